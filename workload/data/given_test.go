package data

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/workload"
)

// givenDir holds the user-schema inputs of package userdata's tests.
var givenDir = filepath.Join("..", "userdata", "testdata", "given")

// TestGivenSchemaSettings: --avsc and --proto are refused together, --proto
// needs --message and --message --proto, and --infer-rows has nothing to
// infer beside them.
func TestGivenSchemaSettings(t *testing.T) {
	for _, tt := range []struct {
		s    Settings
		want string
	}{
		{Settings{Avsc: "a.avsc", Proto: "b.proto", Message: "M"}, "give one"},
		{Settings{Proto: "b.proto"}, "needs --message NAME"},
		{Settings{Message: "M"}, "give --proto"},
		{Settings{Avsc: "a.avsc", InferRows: -1}, "--infer-rows infers a schema"},
	} {
		if err := CheckSettings(tt.s); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error containing %q", tt.s, err, tt.want)
		}
	}
}

// TestGivenSchemaPlan plans the data workload with the user's schemas: the
// run records the schema it read the input into, and names it among what
// it measures; a row that does not fit is a usage error naming its line
// and field.
func TestGivenSchemaPlan(t *testing.T) {
	for _, s := range []Settings{
		{Input: filepath.Join(givenDir, "orders.jsonl"), Avsc: filepath.Join(givenDir, "order.avsc")},
		{Input: filepath.Join(givenDir, "orders-protojson.jsonl"), Proto: filepath.Join(givenDir, "shop.proto"), Message: "shop.Order"},
	} {
		p, err := NewWith(s, nil).Plan(context.Background(), workload.Config{Scale: workload.Quick, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(p.Env["schema"], "given: ") || !strings.Contains(strings.Join(p.Identity, ","), "schema") {
			t.Errorf("env schema %q, identity %v", p.Env["schema"], p.Identity)
		}
		if len(p.Cases) == 0 {
			t.Error("no case planned")
		}
		if p.Close != nil {
			p.Close()
		}
	}
	_, err := NewWith(Settings{Input: filepath.Join(givenDir, "orders-bad.jsonl"), Avsc: filepath.Join(givenDir, "order.avsc")}, nil).
		Plan(context.Background(), workload.Config{Scale: workload.Quick, DryRun: true})
	var ue *workload.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "orders-bad.jsonl:2: field ship.city") {
		t.Errorf("a row that does not fit: %v", err)
	}
	_, err = NewWith(Settings{Input: filepath.Join(givenDir, "orders.jsonl"), Proto: filepath.Join(givenDir, "shop.proto"), Message: "Nope"}, nil).
		Plan(context.Background(), workload.Config{Scale: workload.Quick, DryRun: true})
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "valid: shop.Item, shop.Order") {
		t.Errorf("an unknown message: %v", err)
	}
}
