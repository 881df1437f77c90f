package userdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzGivenSchema feeds arbitrary bytes, as JSON Lines and as CSV, to the
// readers of a given schema (an Avro record and a protobuf message with
// every kind of field): Open and Next return, an error being one line.
//
//	go test ./workload/userdata -run '^$' -fuzz '^FuzzGivenSchema$' -fuzztime 30s -parallel 1
func FuzzGivenSchema(f *testing.F) {
	for _, p := range []string{"testdata/given/orders.jsonl", "testdata/given/orders-bad.jsonl", "testdata/given/orders-protojson.jsonl", "testdata/given/flat.csv"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	var schemas []*Schema
	for _, avsc := range []string{"testdata/given/order.avsc", "testdata/given/flat.avsc"} {
		g, err := AvroSchema(avsc)
		if err != nil {
			f.Fatal(err)
		}
		schemas = append(schemas, g)
	}
	g, err := ProtoSchema("testdata/given/shop.proto", "shop.Order")
	if err != nil {
		f.Fatal(err)
	}
	schemas = append(schemas, g)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"in.jsonl", "in.csv"} {
			p := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, g := range schemas {
				r, err := Open(p, Options{Schema: g, BatchSize: 16, Limit: 200})
				if err == nil {
					for r.Next() {
					}
					err = r.Err()
					r.Close()
				}
				if err != nil && strings.Contains(err.Error(), "\n") {
					t.Errorf("error of more than one line: %q", err)
				}
			}
		}
	})
}
