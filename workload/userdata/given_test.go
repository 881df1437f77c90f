package userdata

import (
	"strings"
	"testing"
)

func givenAvro(t *testing.T, path string) *Schema {
	t.Helper()
	g, err := AvroSchema(path)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestAvroSchemaJSONL reads JSON Lines into a user's Avro schema: the
// columns have the schema's types (not inferred ones: int32, float32,
// decimal, date, a map as entries) and nullability, the values are exact.
func TestAvroSchemaJSONL(t *testing.T) {
	g := givenAvro(t, "testdata/given/order.avsc")
	d := readAll(t, "testdata/given/orders.jsonl", Options{Schema: g})
	want := []string{"id: type=int64\n", "qty: type=int32\n", "weight: type=float32\n", "price: type=decimal(10, 2)\n",
		"day: type=date32\n", "at: type=timestamp[us, tz=UTC], nullable", "note: type=utf8, nullable",
		"attrs: type=list<entry: struct<key: utf8, value: int64>", "ship: type=struct<city: utf8, zip: utf8 nullable>"}
	s := d.Schema.String()
	for _, w := range want {
		if !strings.Contains(s+"\n", w) {
			t.Errorf("schema lacks %q:\n%s", w, s)
		}
	}
	if d.Rows != 2 {
		t.Errorf("rows = %d, want 2", d.Rows)
	}
	got := rowsJSON(t, d)
	for _, frag := range []string{`"price":"12.5"`, `"price":"0.07"`, `"day":"2024-02-29"`, `"qty":-3`,
		`{"key":"y","value":9007199254740993}`, `"id":9223372036854775807`, `"ship":{"city":"","zip":"411001"}`, `"note":null`} {
		if !strings.Contains(got, frag) {
			t.Errorf("rows lack %s:\n%s", frag, got)
		}
	}
	if notes := strings.Join(d.Notes, "\n"); !strings.Contains(notes, "schema: given, order.avsc (record shop.Order)") {
		t.Errorf("notes do not say the schema is given:\n%s", notes)
	}
}

// TestGivenSchemaRefusals: a row that does not fit gets its line and
// field; a schema file that is not one, and an input with its own schema,
// one clear error each.
func TestGivenSchemaRefusals(t *testing.T) {
	order := givenAvro(t, "testdata/given/order.avsc")
	flat := givenAvro(t, "testdata/given/flat.avsc")
	tests := []struct {
		name, path string
		o          Options
		want       []string
	}{
		{"missing non-null field", "testdata/given/orders-bad.jsonl", Options{Schema: order},
			[]string{"orders-bad.jsonl:2", "field ship.city: missing, and the schema's field is not nullable", "does not fit the given schema order.avsc"}},
		{"null in a non-null field", writeTemp(t, "n.jsonl", `{"id":1,"name":null,"ok":true}`+"\n"), Options{Schema: flat},
			[]string{"n.jsonl:1", "field name: null, and the schema's field is not nullable"}},
		{"wrong type", writeTemp(t, "w.jsonl", `{"id":"x","name":"a","ok":true}`+"\n"), Options{Schema: flat},
			[]string{"w.jsonl:1", "field id: string", "does not fit type int64"}},
		{"int32 overflow", writeTemp(t, "o.jsonl", strings.Replace(`{"id":1,"qty":3000000000,"weight":1,"price":1,"day":"2024-01-01","tags":[],"attrs":{},"ship":{"city":"a"}}`, "", "", 1)+"\n"), Options{Schema: order},
			[]string{"o.jsonl:1", "field qty"}},
		{"unknown member", writeTemp(t, "u.jsonl", `{"id":1,"name":"a","ok":true,"extra":1}`+"\n"), Options{Schema: flat},
			[]string{"field extra: not in the schema"}},
		{"csv cell", writeTemp(t, "c.csv", "id,name,ok\n1,a,maybe\n"), Options{Schema: flat},
			[]string{"c.csv:2", "field ok", "does not fit the given schema flat.avsc"}},
		{"csv unknown column", writeTemp(t, "h.csv", "id,name,ok,who\n1,a,true,x\n"), Options{Schema: flat},
			[]string{"column 4 (who) is not a field of the given schema flat.avsc", "its fields: id, name, score"}},
		{"csv missing column", writeTemp(t, "m.csv", "id,ok\n1,true\n"), Options{Schema: flat},
			[]string{"no column name, a field of the given schema flat.avsc (record Flat) that is not nullable"}},
		{"csv nested column", writeTemp(t, "x.csv", "id,tags\n1,a\n"), Options{Schema: order},
			[]string{"column 2 (tags) is the given schema's field tags of type list", "a CSV cell cannot hold nested data"}},
		{"binary input", "testdata/dict.parquet", Options{Schema: flat},
			[]string{"a parquet file carries its own schema", "applies to JSON Lines, JSON and CSV"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadAll(tt.path, tt.o)
			if err == nil {
				t.Fatal("read without error")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of several lines: %q", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	for _, tt := range []struct{ name, avsc, want string }{
		{"not json", writeTemp(t, "a.avsc", "{"), "not an Avro schema"},
		{"not a record", writeTemp(t, "b.avsc", `"string"`), "the schema is a string; the rows' schema must be a record"},
		{"no file", "testdata/given/none.avsc", "no such file"},
	} {
		if _, err := AvroSchema(tt.avsc); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: AvroSchema error %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestAvroSchemaCSV reads a CSV into a user's schema: typed cells, empty
// cells null, timestamps as the schema's unit.
func TestAvroSchemaCSV(t *testing.T) {
	d := readAll(t, "testdata/given/flat.csv", Options{Schema: givenAvro(t, "testdata/given/flat.avsc")})
	if d.Schema.Field(0).Name != "id" || d.Schema.Field(1).Nullable {
		t.Errorf("the schema's field order and nullability are not kept: %s", d.Schema)
	}
	got := rowsJSON(t, d)
	for _, frag := range []string{`"name":"Ada"`, `"name":""`, `"score":2.5`, `"score":null`, `"ok":false`,
		`"day":"2024-01-02"`, `"at":"2024-01-02T03:04:05Z"`, `"at":null`} {
		if !strings.Contains(got, frag) {
			t.Errorf("rows lack %s:\n%s", frag, got)
		}
	}
}

// TestProtoSchema compiles a .proto and reads protojson-style lines into
// its message: JSON names or field names, quoted 64-bit integers, enum
// names, a Timestamp with nanoseconds, a map, a wrapper, repeated messages.
func TestProtoSchema(t *testing.T) {
	g, err := ProtoSchema("testdata/given/shop.proto", "Order")
	if err != nil {
		t.Fatal(err)
	}
	d := readAll(t, "testdata/given/orders-protojson.jsonl", Options{Schema: g})
	s := d.Schema.String()
	// Fields without presence are not nullable (absent is the default);
	// messages, wrappers and Timestamp are.
	for _, w := range []string{"order_id: type=int64\n", "status: type=utf8\n", "created_at: type=timestamp[ns, tz=UTC], nullable",
		"items: type=list<item: struct<sku: utf8, count: uint32>>\n", "counters: type=list<item: struct<key: utf8, value: int64>>\n",
		"blob: type=binary\n", "ratio: type=float32\n", "coupon: type=utf8, nullable", "big: type=uint64\n"} {
		if !strings.Contains(s+"\n", w) {
			t.Errorf("schema lacks %q:\n%s", w, s)
		}
	}
	got := rowsJSON(t, d)
	for _, frag := range []string{`"order_id":9007199254740993`, `"order_id":2`, `"status":"STATUS_PAID"`, `"created_at":"2024-02-29T10:00:00.123456789Z"`,
		`{"key":"views","value":3}`, `"count":2`, `"coupon":"SAVE"`, `"big":18446744073709551615`, `"ratio":"NaN"`,
		// Row 2 leaves out the fields at their defaults.
		`"status":"STATUS_UNKNOWN"`, `"items":[]`, `"big":0`, `"coupon":null`, `"created_at":null`,
		// A map's entries sorted by key.
		`"counters":[{"key":"a","value":2},{"key":"b","value":1}]`} {
		if !strings.Contains(got, frag) {
			t.Errorf("rows lack %s:\n%s", frag, got)
		}
	}
	for _, tt := range []struct{ message, want string }{
		{"Nope", `no message named "Nope" (valid: shop.Item, shop.Order, shop.Loop)`},
		{"Loop", "message shop.Loop contains itself"},
		{"", "--message names the message"},
	} {
		if _, err := ProtoSchema("testdata/given/shop.proto", tt.message); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("message %q: error %v, want %q", tt.message, err, tt.want)
		}
	}
	// An enum name the .proto does not have is the row's error, naming the field.
	if _, err := ReadAll(writeTemp(t, "bad.jsonl", `{"order_id": 1, "status": "BOGUS"}`+"\n"), Options{Schema: g}); err == nil ||
		!strings.Contains(err.Error(), `field status: "BOGUS" is no value of its enum (valid: STATUS_UNKNOWN, STATUS_PAID)`) {
		t.Errorf("an unknown enum name: %v", err)
	}
	csv := readAll(t, writeTemp(t, "o.csv", "orderId,status,ratio\n\"7\",STATUS_PAID,0.5\n"), Options{Schema: g})
	if got := rowsJSON(t, csv); !strings.Contains(got, `"order_id":7`) || !strings.Contains(got, `"ratio":0.5`) {
		t.Errorf("a CSV under JSON names: %s", got)
	}
	if _, err := ProtoSchema(writeTemp(t, "bad.proto", "syntax = \"proto3\";\nmessage {"), "X"); err == nil || !strings.Contains(err.Error(), "bad.proto") {
		t.Errorf("a .proto that does not compile: %v", err)
	}
}
