package pgarrow_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5"
	"github.com/serbench/serbench/pgarrow"
)

// typeCases lists, per PostgreSQL type, values (SQL literals) including
// edge values; every case also gets a NULL row.
var typeCases = []struct {
	typ    string
	arrow  string // expected Arrow type
	values []string
	noCopy bool // the type cannot be read with binary COPY
}{
	{"bool", "bool", []string{"true", "false"}, false},
	{"int2", "int16", []string{"-32768", "32767", "0"}, false},
	{"int4", "int32", []string{"-2147483648", "2147483647", "-1"}, false},
	{"int8", "int64", []string{"-9223372036854775808", "9223372036854775807", "0"}, false},
	{"oid", "uint32", []string{"0", "4294967295"}, false},
	{"float4", "float32", []string{"'NaN'", "'Infinity'", "'-Infinity'", "1.5", "'-0'", "3.4028235e38", "1e-45", "123456", "1234567", "0.0001", "0.00001"}, false},
	{"float8", "float64", []string{"'NaN'", "'Infinity'", "'-Infinity'", "0.1", "1e300", "5e-324", "123456789012345", "1e15", "1e-5", "'-0'", "1.7976931348623157e308"}, false},
	{"numeric", "utf8", []string{"0", "-1.5", "1e-30", "12345678901234567890.123456789", "'NaN'", "'Infinity'", "'-Infinity'", "1e100", "0.000100", "-0.00", "10000", "99990000.0001"}, false},
	{"numeric(38,10)", "decimal(38, 10)", []string{"0", "1.5", "-9999999999999999999999999999.9999999999", "0.0000000001", "1234567890123456789012345678"}, false},
	{"numeric(10,2)", "decimal(10, 2)", []string{"123.45", "-0.01", "99999999.99", "10000"}, false},
	{"numeric(3,-1)", "utf8", []string{"120", "-9990"}, false},
	{"numeric(50,20)", "utf8", []string{"123456789012345678901234567890.12345678901234567890"}, false},
	{"text", "utf8", []string{"''", "'unicode ✓ 日本語 🎉'", `'with "quotes", {braces} and \ backslash'`, "'NULL'", "repeat('x', 100000)"}, false},
	{"varchar(5)", "utf8", []string{"'abc'", "''"}, false},
	{"bpchar(5)", "utf8", []string{"'ab'", "'ü'"}, false},
	{"name", "utf8", []string{"'pg_class'"}, false},
	{`"char"`, "utf8", []string{"'a'", `chr(200)::"char"`, `''::"char"`}, false},
	{"bytea", "binary", []string{`'\x'`, `'\x00ff10'`}, false},
	{"date", "date32", []string{"'2020-01-01'", "'4713-11-24 BC'", "'5874897-12-31'", "'0001-01-01'", "'0001-12-31 BC'", "'1970-01-01'", "'1969-12-31'"}, false},
	{"time", "time64[us]", []string{"'00:00'", "'23:59:59.999999'", "'12:00:00.5'"}, false},
	{"timestamp", "timestamp[us]", []string{"'2000-01-01'", "'4713-11-24 00:00:00 BC'", "'294246-12-31 23:59:59.999999'", "'1970-01-01 00:00:00.000001'", "'1969-12-31 23:59:59.999999'"}, false},
	{"timestamptz", "timestamp[us, tz=UTC]", []string{"'2020-05-05 12:34:56.789+02'", "'4713-11-24 00:00:00+00 BC'", "'2000-01-01 00:00:00+00'"}, false},
	{"interval", "month_day_nano_interval", []string{"'1 year 2 mons 3 days 04:05:06.789'", "'-1 days'", "'-1 year -2 mons +3 days -04:05:06'", "'0'", "'1000000 hours'", "'00:00:00.000001'", "'-00:00:00.000001'", "'1 day -1 second'", "'-7 mons'"}, false},
	{"uuid", "fixed_size_binary[16]", []string{"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'00000000-0000-0000-0000-000000000000'"}, false},
	{"json", "utf8", []string{`'{"a": [1, 2]}'`, `'"x"'`, `'  {"sp":  1}'`}, false},
	{"jsonb", "utf8", []string{`'{"b": 1, "a": [true, null, 1.50]}'`, `'"ü"'`}, false},
	{"inet", "utf8", []string{"'192.168.1.5'", "'192.168.1.5/24'", "'::1'", "'2001:db8::1/64'", "'::ffff:1.2.3.4'", "'::1.2.3.4'", "'fe80::1:0:0:0'", "'0.0.0.0/0'", "'::'", "'1:0:0:1::1'"}, false},
	{"cidr", "utf8", []string{"'10.0.0.0/8'", "'2001:db8::/32'", "'192.168.1.5/32'", "'::/0'"}, false},
	{"mood", "utf8", []string{"'sad'", "'happy ✓'"}, false},
	{"posint", "int32", []string{"1", "2147483647"}, false},
	{"int4[]", "list<item: int32, nullable>", []string{"'{1,NULL,3}'", "'{}'", "'{NULL}'"}, false},
	{"text[]", "list<item: utf8, nullable>", []string{`'{"a b","",NULL,"NULL","q\"uote","back\\slash",ü}'`, "'{}'"}, false},
	{"float8[]", "list<item: float64, nullable>", []string{"'{1.5,NaN,-Infinity,NULL}'"}, false},
	{"numeric[]", "list<item: utf8, nullable>", []string{"'{1.50,NaN,-3,NULL}'"}, false},
	{"numeric(5,2)[]", "list<item: decimal(5, 2), nullable>", []string{"'{1.50,-3,NULL}'"}, false},
	{"date[]", "list<item: date32, nullable>", []string{"'{2020-01-01,NULL,4713-11-24 BC}'"}, false},
	{"timestamptz[]", "list<item: timestamp[us, tz=UTC], nullable>", []string{"'{2020-01-01 00:00:00+00,NULL}'"}, false},
	{"uuid[]", "list<item: fixed_size_binary[16], nullable>", []string{"'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL}'"}, false},
	{"bool[]", "list<item: bool, nullable>", []string{"'{t,f,NULL}'"}, false},
	{"bytea[]", "list<item: binary, nullable>", []string{`'{"\\x01ff",NULL}'::bytea[]`}, false},
	{"mood[]", "list<item: utf8, nullable>", []string{"'{sad,\"happy ✓\",NULL}'"}, false},
	{"jsonb[]", "list<item: utf8, nullable>", []string{`ARRAY['{"a": 1}'::jsonb, NULL]`}, false},
	{"interval[]", "list<item: month_day_nano_interval, nullable>", []string{"'{1 day,-1 mon,NULL}'"}, false},
	{"inet[]", "list<item: utf8, nullable>", []string{"'{10.0.0.1/8,::1,NULL}'"}, false},
	{"varchar[]", "list<item: utf8, nullable>", []string{"'{a,NULL}'"}, false},
	{"int8[]", "list<item: int64, nullable>", []string{"'{-9223372036854775808,9223372036854775807}'"}, false},
	// Types without a binary decoder come back in their text form.
	{"macaddr", "utf8", []string{"'08:00:2b:01:02:03'"}, true},
	{"point", "utf8", []string{"'(1.5,2)'"}, true},
	{"int4range", "utf8", []string{"'[1,5)'", "'empty'"}, true},
	{"money", "utf8", []string{"12.34"}, true},
	{"timetz", "utf8", []string{"'12:00:00+02'"}, true},
	{"macaddr[]", "utf8", []string{"'{08:00:2b:01:02:03,NULL}'"}, true},
	{"int4[][]", "list<item: int32, nullable>", []string{"'{}'", "'{1,2}'"}, false},
}

func setupTypes(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	for _, stmt := range []string{
		"DO $$ BEGIN CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy ✓'); EXCEPTION WHEN duplicate_object THEN NULL; END $$",
		"DO $$ BEGIN CREATE DOMAIN posint AS int4 CHECK (VALUE > 0); EXCEPTION WHEN duplicate_object THEN NULL; END $$",
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTypes reads every supported type with SELECT and with COPY and
// compares each value, formatted in PostgreSQL's text form, with what the
// server itself prints for it.
func TestTypes(t *testing.T) {
	conn := connect(t)
	setupTypes(t, conn)
	ctx := context.Background()
	c, err := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range typeCases {
		rows := make([]string, 0, len(tc.values)+1)
		for _, v := range tc.values {
			rows = append(rows, "(("+v+")::"+tc.typ+")")
		}
		rows = append(rows, "(NULL::"+tc.typ+")")
		q := "SELECT v FROM (VALUES " + strings.Join(rows, ",") + ") t(v)"

		// What the server prints: the same query in text format.
		res := conn.PgConn().ExecParams(ctx, q, nil, nil, nil, []int16{0}).Read()
		if res.Err != nil {
			t.Fatalf("%s: %v", tc.typ, res.Err)
		}
		var want []*string
		for _, r := range res.Rows {
			if r[0] == nil {
				want = append(want, nil)
			} else {
				s := string(r[0])
				want = append(want, &s)
			}
		}

		for _, method := range []string{"select", "copy"} {
			t.Run(tc.typ+"/"+method, func(t *testing.T) {
				var r *pgarrow.RecordReader
				var err error
				if method == "select" {
					r, err = c.Query(ctx, q)
				} else {
					r, err = c.Copy(ctx, q)
					if tc.noCopy {
						if err == nil || !strings.Contains(err.Error(), "cast it to text") {
							t.Fatalf("Copy of %s: err = %v, want a cast-to-text error", tc.typ, err)
						}
						return
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				defer r.Release()
				f := r.Schema().Field(0)
				if got := f.Type.String(); got != tc.arrow {
					t.Errorf("arrow type %s, want %s", got, tc.arrow)
				}
				if pt, _ := f.Metadata.GetValue(pgarrow.MetaType); pt == "" {
					t.Errorf("no %s metadata", pgarrow.MetaType)
				}
				var got []arrow.Array
				n := 0
				for r.Next() {
					rec := r.RecordBatch()
					got = append(got, rec.Column(0))
					rec.Column(0).Retain()
					n += int(rec.NumRows())
				}
				if err := r.Err(); err != nil {
					t.Fatal(err)
				}
				if n != len(want) {
					t.Fatalf("%d rows, want %d", n, len(want))
				}
				row := 0
				for _, a := range got {
					for i := 0; i < a.Len(); i++ {
						s, ok := pgText(a, i)
						w := want[row]
						switch {
						case w == nil && ok:
							t.Errorf("row %d: got %q, want NULL", row, s)
						case w != nil && !ok:
							t.Errorf("row %d: got NULL, want %q", row, *w)
						case w != nil && s != *w:
							t.Errorf("row %d: got %q, want %q", row, s, *w)
						}
						row++
					}
					a.Release()
				}
			})
		}
	}
}
