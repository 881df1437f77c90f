package jsonv

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestParse(t *testing.T) {
	good := []struct{ in, out string }{
		{`{"a":1,"b":[true,false,null],"c":{"d":"x\u00e9\n\ud83d\ude00"}}`, `{"a":1,"b":[true,false,null],"c":{"d":"xé\n😀"}}`},
		{` -0.5e+10 `, `-0.5e+10`},
		{`18446744073709551616`, `18446744073709551616`},
		{`[]`, `[]`},
		{`"\/\b\f\r\t\\"`, `"/\u0008\u000c\r\t\\"`},
	}
	for _, g := range good {
		v, err := Parse([]byte(g.in))
		if err != nil {
			t.Errorf("Parse(%s): %v", g.in, err)
			continue
		}
		out, err := AppendText(nil, &v)
		if err != nil || string(out) != g.out {
			t.Errorf("Parse(%s) → %s, %v; want %s", g.in, out, err, g.out)
		}
		if !json.Valid(out) {
			t.Errorf("%s is not valid JSON", out)
		}
	}
	bad := []struct{ in, want string }{
		{`{"a":1,}`, "byte 7"},
		{`{"a" 1}`, "expected ':'"},
		{`[1 2]`, "after array element"},
		{`01`, "after the value"},
		{`1.`, "no digits after '.'"},
		{`1e`, "no digits in exponent"},
		{`"\x"`, "invalid escape"},
		{`"\ud800"`, "unpaired surrogate"},
		{"\"\xff\"", "invalid UTF-8"},
		{"\"a\tb\"", "control character"},
		{`{"a":1,"a":2}`, "duplicate key"},
		{`{"a":`, "unexpected end of input"},
		{`nul`, "looking for a value"},
		{strings.Repeat("[", MaxDepth+2), "nesting deeper"},
		{``, "unexpected end"},
	}
	for _, b := range bad {
		_, err := Parse([]byte(b.in))
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", b.in, err, b.want)
		}
	}
}

func TestIsInt(t *testing.T) {
	for in, want := range map[string]bool{"1": true, "-0": true, "1.0": false, "1e3": false, "1E3": false} {
		v, err := Parse([]byte(in))
		if err != nil || v.IsInt() != want {
			t.Errorf("IsInt(%s) = %v, %v", in, v.IsInt(), err)
		}
	}
}

func TestTimeUnits(t *testing.T) {
	tm := time.Date(2024, 2, 29, 12, 0, 0, 123456789, time.UTC)
	if _, err := TimeToUnit(tm, arrow.Microsecond); err == nil {
		t.Error("ns precision fits microseconds")
	}
	v, err := TimeToUnit(tm, arrow.Nanosecond)
	if err != nil || !UnitToTime(v, arrow.Nanosecond).Equal(tm) {
		t.Errorf("ns round trip: %d, %v", v, err)
	}
	if _, err := TimeToUnit(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), arrow.Nanosecond); err == nil {
		t.Error("year 3000 fits int64 nanoseconds")
	}
	neg := time.Date(1900, 1, 1, 0, 0, 0, 1000, time.UTC)
	v, err = TimeToUnit(neg, arrow.Microsecond)
	if err != nil || !UnitToTime(v, arrow.Microsecond).Equal(neg) {
		t.Errorf("negative µs round trip: %d, %v → %v", v, err, UnitToTime(v, arrow.Microsecond))
	}
}

func TestRowAppenderErrors(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "t", Type: arrow.FixedWidthTypes.Date32, Nullable: true}), Nullable: true}}, nil)
	app, err := NewRowAppender(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		`{"a":300}`:                "field a: number 300 does not fit type int8",
		`{"a":"1"}`:                `field a: string "1" does not fit type int8`,
		`{"s":{"t":"2024-13-01"}}`: `field s.t: invalid date "2024-13-01"`,
		`{"s":{"u":1}}`:            "field s.u: not in the schema",
		`[1]`:                      "expected a JSON object, got array",
	} {
		v, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := app.Check(&v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%s) = %v, want %q", in, err, want)
		}
	}
	if _, err := NewRowAppender(arrow.NewSchema([]arrow.Field{{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)}}, nil), nil); err == nil {
		t.Error("map type accepted")
	}
}

func TestWideObjectDuplicate(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("{")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&sb, `"k%d":%d,`, i, i)
	}
	sb.WriteString(`"k50":0}`)
	if _, err := Parse([]byte(sb.String())); err == nil || !strings.Contains(err.Error(), `duplicate key "k50"`) {
		t.Errorf("err = %v", err)
	}
	ok := strings.Replace(sb.String(), `"k50":0}`, `"k100":0}`, 1)
	if v, err := Parse([]byte(ok)); err != nil || len(v.Keys) != 101 {
		t.Errorf("wide object: %d keys, %v", len(v.Keys), err)
	}
}

func TestParseDecimal128(t *testing.T) {
	for _, c := range []struct {
		text        string
		prec, scale int32
		ok          bool
	}{
		{"123.45", 5, 2, true}, {"-0.05", 3, 2, true}, {"99999999999999999999999999999999999999", 38, 0, true},
		{"-9999999999999999999999999999.9999999999", 38, 10, true}, {"1200", 4, -2, true},
		{"123.4", 5, 2, false}, {"123", 5, 2, false}, {"1e3", 5, 0, false}, {"123456", 5, 0, false}, {"1.0", 5, 0, false},
		{"", 5, 0, false}, {"-", 5, 0, false}, {"1201", 4, -2, false},
	} {
		n, err := ParseDecimal128(c.text, c.prec, c.scale)
		if (err == nil) != c.ok {
			t.Errorf("ParseDecimal128(%q, %d, %d) = %v, %v", c.text, c.prec, c.scale, n, err)
			continue
		}
		if c.ok && c.scale >= 0 && n.ToString(c.scale) != c.text {
			t.Errorf("ParseDecimal128(%q) → %s", c.text, n.ToString(c.scale))
		}
	}
}
