package jsonv

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestAppenderOptions: a strict schema enforces nullability (nested too),
// quoted numbers and aliases are accepted only when asked for, and a
// decimal under a strict schema may be a number with a short fraction.
func TestAppenderOptions(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "user_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String}), Nullable: true},
	}, nil)
	alias := func(p string) string {
		if p == "user_id" {
			return "userId"
		}
		return ""
	}
	strict := Options{Strict: true, QuotedNumbers: true, Alias: alias}
	// proto3 without presence: absent or null is the default value.
	defaults := strict
	defaults.Default = func(p string) *Value {
		switch p {
		case "user_id":
			return &Value{Kind: Number, Text: "0"}
		case "s.a":
			return &Value{Kind: String}
		}
		return nil
	}
	tests := []struct {
		name, row string
		o         Options
		want      string // "" = fits; else a fragment of the error
		appended  string // the row as appended (when it fits)
	}{
		{"plain", `{"user_id":1,"price":"1.50","s":{"a":"x"}}`, Options{}, "", `{"price":"1.5","s":{"a":"x"},"user_id":1}`},
		{"absent ok by default", `{}`, Options{}, "", `{"price":null,"s":null,"user_id":null}`},
		{"absent, strict", `{"price":"1.00"}`, strict, "field user_id: missing, and the schema's field is not nullable", ""},
		{"null, strict", `{"user_id":null}`, strict, "field user_id: null, and the schema's field is not nullable", ""},
		{"nested absent, strict", `{"user_id":1,"s":{}}`, strict, "field s.a: missing", ""},
		{"quoted refused by default", `{"user_id":"7"}`, Options{}, "does not fit type int64", ""},
		{"quoted, alias", `{"userId":"7","price":2.5}`, strict, "", `{"price":"2.5","s":null,"user_id":7}`},
		{"quoted garbage", `{"user_id":"7x"}`, strict, "does not fit type int64", ""},
		{"alias unknown without the option", `{"userId":7}`, Options{}, "field userId: not in the schema", ""},
		{"decimal number refused by default", `{"price":2.5}`, Options{}, "does not fit type decimal", ""},
		{"decimal too precise", `{"user_id":1,"price":"2.555"}`, strict, "not a decimal(9, 2)", ""},
		{"absent, a default", `{}`, defaults, "", `{"price":null,"s":null,"user_id":0}`},
		{"null, a default", `{"user_id":null,"s":{"a":null}}`, defaults, "", `{"price":null,"s":{"a":""},"user_id":0}`},
		{"nested absent, a default", `{"s":{}}`, defaults, "", `{"price":null,"s":{"a":""},"user_id":0}`},
		{"present beats the default", `{"user_id":"5","s":{"a":"x"}}`, defaults, "", `{"price":null,"s":{"a":"x"},"user_id":5}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewRowAppenderWith(schema, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			v, err := Parse([]byte(tt.row))
			if err != nil {
				t.Fatal(err)
			}
			err = a.Check(&v)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Check: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Check: %v, want an error containing %q", err, tt.want)
			case tt.want != "":
				return
			}
			b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
			defer b.Release()
			a.Append(b, &v)
			rec := b.NewRecordBatch()
			defer rec.Release()
			j, err := rec.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(strings.Fields(string(j)), ""); got != "["+tt.appended+"]" {
				t.Errorf("appended %s, want [%s]", got, tt.appended)
			}
		})
	}
}
