package digest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var update = flag.Bool("update", false, "rewrite the expected digests of testdata/*.json")

func vectorFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 6 {
		t.Fatalf("%d test vectors, want at least 6", len(files))
	}
	return files
}

func digestRows(t *testing.T, v *vector, rows []map[string]any, sizes []int) Result {
	t.Helper()
	schema := v.arrowSchema()
	d, err := New(schema)
	if err != nil {
		t.Fatal(err)
	}
	for len(rows) > 0 {
		n := len(rows)
		if len(sizes) > 0 {
			n, sizes = min(sizes[0], n), sizes[1:]
		}
		rec, err := v.batch(schema, rows[:n])
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		rows = rows[n:]
	}
	res, err := d.Sum()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func columnMap(r Result) map[string]string {
	m := make(map[string]string, len(r.Columns))
	for _, c := range r.Columns {
		m[c.Path] = c.Digest
	}
	return m
}

// TestVectors checks the expected digests of every test vector. With -update it rewrites them.
func TestVectors(t *testing.T) {
	for _, file := range vectorFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			v, err := readVector(file)
			if err != nil {
				t.Fatal(err)
			}
			got := digestRows(t, v, v.Rows, nil)
			if got.Rows != int64(len(v.Rows)) {
				t.Errorf("rows %d, want %d", got.Rows, len(v.Rows))
			}
			if *update {
				rewriteExpected(t, file, got)
				return
			}
			want := Result{Table: v.Table}
			for p, d := range v.Columns {
				want.Columns = append(want.Columns, ColumnDigest{Path: p, Digest: d})
			}
			if err := Diff(want, got); err != nil {
				t.Error(err)
			}
			if tbl, err := TableDigest(want.Columns); err != nil || tbl != v.Table {
				t.Errorf("TableDigest of the expected columns = %s, %v; want %s", tbl, err, v.Table)
			}
			m := columnMap(got)
			for _, eq := range v.EqualColumns {
				for _, p := range eq[1:] {
					if m[p] == "" || m[p] != m[eq[0]] {
						t.Errorf("column %q digest %s differs from %q's %s", p, m[p], eq[0], m[eq[0]])
					}
				}
			}
		})
	}
}

// rewriteExpected replaces the "columns" and "table" members that end a vector file.
func rewriteExpected(t *testing.T, file string, r Result) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("\n  \"columns\":"))
	if i < 0 {
		t.Fatalf("%s: no \"columns\" member at the end", file)
	}
	var tail strings.Builder
	tail.WriteString("\n  \"columns\": {\n")
	for k, c := range r.Columns {
		p, _ := json.Marshal(c.Path)
		tail.WriteString("    " + string(p) + ": \"" + c.Digest + "\"")
		if k < len(r.Columns)-1 {
			tail.WriteString(",")
		}
		tail.WriteString("\n")
	}
	tail.WriteString("  },\n  \"table\": \"" + r.Table + "\"\n}\n")
	if err := os.WriteFile(file, append(b[:i:i], tail.String()...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBatchingInvariance checks that splitting a vector's rows into batches of random sizes,
// or slicing one batch, leaves every digest unchanged.
func TestBatchingInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, file := range vectorFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			v, err := readVector(file)
			if err != nil {
				t.Fatal(err)
			}
			want := digestRows(t, v, v.Rows, nil)
			ones := make([]int, len(v.Rows))
			for i := range ones {
				ones[i] = 1
			}
			splits := [][]int{ones}
			for range 20 {
				var s []int
				for n := 0; n < len(v.Rows); {
					k := 1 + rng.IntN(4)
					s, n = append(s, k), n+k
				}
				splits = append(splits, s)
			}
			for _, s := range splits {
				if got := digestRows(t, v, v.Rows, s); got.Table != want.Table {
					t.Fatalf("batches %v: table %s, want %s (%v)", s, got.Table, want.Table, Diff(want, got))
				}
			}
			// Slices of one batch: arrays with offsets.
			schema := v.arrowSchema()
			rec, err := v.batch(schema, v.Rows)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			for _, s := range splits[:5] {
				d, _ := New(schema)
				var off int64
				for _, k := range s {
					end := min(off+int64(k), rec.NumRows())
					sl := rec.NewSlice(off, end)
					if err := d.Write(sl); err != nil {
						t.Fatal(err)
					}
					sl.Release()
					off = end
				}
				got, err := d.Sum()
				if err != nil {
					t.Fatal(err)
				}
				if got.Table != want.Table {
					t.Fatalf("slices %v: %v", s, Diff(want, got))
				}
			}
		})
	}
}

// site is one value of a vector's rows, reached through present ancestors.
type site struct {
	path     string // schema path of the value
	t        *vtype
	nullable bool
	val      any
	set      func(any)
}

func collectSites(rows []map[string]any, fields []*vfield) []site {
	var out []site
	var walk func(path string, t *vtype, nullable bool, val any, set func(any))
	walk = func(path string, t *vtype, nullable bool, val any, set func(any)) {
		out = append(out, site{path, t, nullable, val, set})
		if val == nil {
			return
		}
		switch {
		case t.fields != nil:
			obj := val.(map[string]any)
			for _, f := range t.fields {
				walk(path+"."+f.Name, f.elem, f.nullable(), obj[f.Name], func(x any) { obj[f.Name] = x })
			}
		case t.list != "":
			xs := val.([]any)
			for j := range xs {
				walk(path+".[]", t.elem, true, xs[j], func(x any) { xs[j] = x })
			}
		}
	}
	for _, row := range rows {
		for _, f := range fields {
			walk(f.Name, f.elem, f.nullable(), row[f.Name], func(x any) { row[f.Name] = x })
		}
	}
	return out
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

func copyRows(rows []map[string]any) []map[string]any {
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		out[i] = deepCopy(r).(map[string]any)
	}
	return out
}

// sample returns a present value of type t.
func sample(t *vtype) any {
	switch {
	case t.fields != nil:
		m := map[string]any{}
		for _, f := range t.fields {
			if f.nullable() {
				m[f.Name] = nil
			} else {
				m[f.Name] = sample(f.elem)
			}
		}
		return m
	case t.list == "fixed_size_list":
		xs := make([]any, t.size)
		for i := range xs {
			xs[i] = sample(t.elem)
		}
		return xs
	case t.list != "":
		return []any{}
	case t.dict:
		return "s"
	}
	switch {
	case t.prim == "bool":
		return true
	case t.prim == "string" || t.prim == "large_string":
		return "s"
	case t.prim == "binary":
		return "ab"
	case strings.HasPrefix(t.prim, "float"):
		return json.Number("2.5")
	case strings.HasPrefix(t.prim, "decimal"):
		return "1.5"
	}
	return json.Number("7")
}

// changed returns a present value of primitive type t different from v.
func changed(t *vtype, v any) any {
	if t.dict {
		return v.(string) + "x"
	}
	p := t.prim
	switch {
	case p == "bool":
		return !v.(bool)
	case p == "string" || p == "large_string":
		return v.(string) + "x"
	case p == "binary":
		return v.(string) + "00"
	case strings.HasPrefix(p, "decimal"):
		s := v.(string)
		if strings.HasPrefix(s, "-") {
			return "-7" + s[1:]
		}
		return "7" + s
	case strings.HasPrefix(p, "float"):
		f, _ := floatValue(v, p == "float32")
		if f == 0.5 {
			return json.Number("0.25")
		}
		return json.Number("0.5")
	}
	step := big.NewInt(1)
	if p == "timestamp[ns]" {
		step = big.NewInt(1000)
	}
	x, _ := new(big.Int).SetString(string(v.(json.Number)), 10)
	hi := map[string]*big.Int{
		"int8": big.NewInt(math.MaxInt8), "int16": big.NewInt(math.MaxInt16), "int32": big.NewInt(math.MaxInt32),
		"uint8": big.NewInt(math.MaxUint8), "uint16": big.NewInt(math.MaxUint16), "uint32": big.NewInt(math.MaxUint32),
		"uint64": new(big.Int).SetUint64(math.MaxUint64),
	}[p]
	if hi == nil {
		hi = big.NewInt(math.MaxInt64 - 1000)
	}
	y := new(big.Int).Add(x, step)
	if y.Cmp(hi) > 0 {
		y.Sub(x, step)
	}
	return json.Number(y.String())
}

// TestMutations checks that changing any single value, null-ness or list boundary of a vector
// changes the digest of exactly the leaf columns under the changed value.
func TestMutations(t *testing.T) {
	for _, file := range vectorFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			v, err := readVector(file)
			if err != nil {
				t.Fatal(err)
			}
			base := columnMap(digestRows(t, v, v.Rows, nil))
			check := func(what, path string, rows []map[string]any) {
				t.Helper()
				got := columnMap(digestRows(t, v, rows, nil))
				for p, d := range base {
					under := p == path || strings.HasPrefix(p, path+".")
					if under && got[p] == d {
						t.Errorf("%s at %s: column %q digest unchanged", what, path, p)
					}
					if !under && got[p] != d {
						t.Errorf("%s at %s: column %q digest changed", what, path, p)
					}
				}
			}
			n := len(collectSites(v.Rows, v.Schema))
			mutations := 0
			for i := range n {
				type mut struct {
					what string
					f    func(s site)
				}
				s0 := collectSites(v.Rows, v.Schema)[i]
				var muts []mut
				if s0.val == nil {
					muts = append(muts, mut{"null to present", func(s site) { s.set(sample(s.t)) }})
				} else {
					if s0.nullable {
						muts = append(muts, mut{"present to null", func(s site) { s.set(nil) }})
					}
					switch {
					case s0.t.fields != nil:
					case s0.t.list == "fixed_size_list":
					case s0.t.list != "":
						muts = append(muts, mut{"append element", func(s site) { s.set(append(s.val.([]any), sample(s.t.elem))) }})
						if xs := s0.val.([]any); len(xs) > 0 {
							muts = append(muts, mut{"drop element", func(s site) { xs := s.val.([]any); s.set(xs[:len(xs)-1]) }})
						}
						if s0.t.elem.list != "" && s0.t.elem.list != "fixed_size_list" {
							xs := s0.val.([]any)
							for j := 0; j+1 < len(xs); j++ {
								if a, ok := xs[j].([]any); ok && len(a) > 0 && xs[j+1] != nil {
									j := j
									muts = append(muts, mut{"move boundary", func(s site) {
										xs := s.val.([]any)
										a, b := xs[j].([]any), xs[j+1].([]any)
										xs[j], xs[j+1] = a[:len(a)-1], append([]any{a[len(a)-1]}, b...)
									}})
								}
							}
						}
					default:
						muts = append(muts, mut{"change value", func(s site) { s.set(changed(s.t, s.val)) }})
					}
				}
				for _, m := range muts {
					rows := copyRows(v.Rows)
					s := collectSites(rows, v.Schema)[i]
					m.f(s)
					path := s.path
					if m.what == "move boundary" {
						path += ".[]"
					}
					check(m.what, path, rows)
					mutations++
				}
			}
			// List boundaries between rows: move the last element of a row's list to the next row's.
			for _, f := range v.Schema {
				if f.elem.list == "" || f.elem.list == "fixed_size_list" {
					continue
				}
				for r := 0; r+1 < len(v.Rows); r++ {
					a, ok := v.Rows[r][f.Name].([]any)
					if !ok || len(a) == 0 || v.Rows[r+1][f.Name] == nil {
						continue
					}
					rows := copyRows(v.Rows)
					a, b := rows[r][f.Name].([]any), rows[r+1][f.Name].([]any)
					rows[r][f.Name], rows[r+1][f.Name] = a[:len(a)-1], append([]any{a[len(a)-1]}, b...)
					check("move boundary between rows", f.Name, rows)
					mutations++
				}
			}
			t.Logf("%d mutations", mutations)
			if mutations == 0 {
				t.Error("no mutations")
			}
		})
	}
}

// TestHandComputed checks two columns against bytes written out by hand from the definition.
func TestHandComputed(t *testing.T) {
	mem := memory.NewGoAllocator()
	ib := array.NewInt32Builder(mem)
	ib.Append(1)
	ib.AppendNull()
	ints := ib.NewArray()
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).AppendValues([]int64{-1, 2}, nil)
	lb.AppendNull()
	lists := lb.NewArray()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
	}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{ints, lists}, 2)
	got, err := Batches(schema, rec)
	if err != nil {
		t.Fatal(err)
	}
	le := func(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }
	sum := func(parts ...[]byte) string {
		s := sha256.Sum256(bytes.Join(parts, nil))
		return hex.EncodeToString(s[:16])
	}
	wantI := sum([]byte{1}, le(1), []byte{0})
	wantL := sum([]byte{1}, le(2), []byte{1}, le(-1), []byte{1}, le(2), []byte{0})
	raw := func(h string) []byte { b, _ := hex.DecodeString(h); return b }
	wantT := sum(le(1), []byte("i"), raw(wantI), le(4), []byte("l.[]"), raw(wantL))
	want := Result{Columns: []ColumnDigest{{"i", wantI}, {"l.[]", wantL}}, Table: wantT, Rows: 2}
	if err := Diff(want, got); err != nil || got.Table != wantT {
		t.Fatalf("got %+v, want %+v: %v", got, want, err)
	}
	// The empty table: every column hashes nothing.
	empty, _ := Batches(schema)
	if e := sum(); empty.Columns[0].Digest != e || empty.Rows != 0 {
		t.Errorf("empty column digest %s, want %s", empty.Columns[0].Digest, e)
	}
}

func TestUnsupportedTypes(t *testing.T) {
	for _, dt := range []arrow.DataType{
		arrow.SparseUnionOf([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int8}}, []arrow.UnionTypeCode{0}),
		arrow.FixedWidthTypes.MonthInterval,
		arrow.StructOf(arrow.Field{Name: "x", Type: arrow.FixedWidthTypes.DayTimeInterval}),
	} {
		schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
		_, err := New(schema)
		if err == nil || !strings.Contains(err.Error(), "unsupported Arrow type") {
			t.Errorf("%s: error %v, want one naming the unsupported type", dt, err)
		}
	}
	dup := arrow.NewSchema([]arrow.Field{
		{Name: "a.b", Type: arrow.PrimitiveTypes.Int8},
		{Name: "a", Type: arrow.StructOf(arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int8})},
	}, nil)
	if _, err := New(dup); err == nil {
		t.Error("two leaves sharing a path: no error")
	}
	if _, err := New(nil); err == nil {
		t.Error("nil schema: no error")
	}
}

func TestWriteErrors(t *testing.T) {
	dt := &arrow.TimestampType{Unit: arrow.Second}
	schema := arrow.NewSchema([]arrow.Field{{Name: "t", Type: dt}}, nil)
	b := array.NewTimestampBuilder(memory.NewGoAllocator(), dt)
	b.Append(arrow.Timestamp(math.MaxInt64 / 10))
	rec := array.NewRecordBatch(schema, []arrow.Array{b.NewArray()}, 1)
	d, _ := New(schema)
	if err := d.Write(rec); err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("overflow: error %v", err)
	}
	if _, err := d.Sum(); err == nil {
		t.Error("Sum after a failed Write: no error")
	}
	other := arrow.NewSchema([]arrow.Field{{Name: "u", Type: dt}}, nil)
	d2, _ := New(other)
	if err := d2.Write(rec); err == nil {
		t.Error("schema mismatch: no error")
	}
	if err := d2.Write(nil); err == nil {
		t.Error("nil batch: no error")
	}
}

func TestMicros(t *testing.T) {
	for _, c := range []struct {
		v    int64
		unit arrow.TimeUnit
		want int64
	}{
		{1, arrow.Second, 1_000_000}, {-1, arrow.Millisecond, -1000}, {5, arrow.Microsecond, 5},
		{1999, arrow.Nanosecond, 1}, {-1, arrow.Nanosecond, -1}, {-1000, arrow.Nanosecond, -1},
		{-1001, arrow.Nanosecond, -2}, {math.MinInt64, arrow.Nanosecond, math.MinInt64/1000 - 1},
	} {
		if got, err := micros(c.v, c.unit); err != nil || got != c.want {
			t.Errorf("micros(%d, %s) = %d, %v; want %d", c.v, c.unit, got, err, c.want)
		}
	}
}

func TestDecimalString(t *testing.T) {
	for _, c := range []struct {
		u     int64
		scale int32
		want  string
	}{
		{12345, 2, "123.45"}, {-5, 2, "-0.05"}, {0, 3, "0.000"}, {7, 0, "7"}, {-7, -2, "-700"},
		{0, -2, "0"}, {100, 2, "1.00"},
	} {
		if got := decimalString(big.NewInt(c.u), c.scale); got != c.want {
			t.Errorf("decimalString(%d, %d) = %q, want %q", c.u, c.scale, got, c.want)
		}
	}
}

func TestDiff(t *testing.T) {
	want := Result{Columns: []ColumnDigest{{"a", strings.Repeat("0", 32)}, {"b", strings.Repeat("1", 32)}}, Rows: 3}
	if err := Diff(want, want); err != nil {
		t.Fatal(err)
	}
	got := Result{Columns: []ColumnDigest{{"a", strings.Repeat("2", 32)}, {"c", strings.Repeat("1", 32)}}, Rows: 4}
	err := Diff(want, got)
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{`"a"`, `"b" missing`, `unexpected column "c"`, "4 rows"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%v: does not mention %s", err, s)
		}
	}
	if _, err := TableDigest([]ColumnDigest{{"a", "zz"}}); err == nil {
		t.Error("TableDigest of a malformed digest: no error")
	}
	if _, err := TableDigest([]ColumnDigest{want.Columns[0], want.Columns[0]}); err == nil {
		t.Error("TableDigest of a repeated path: no error")
	}
}

// TestPaths checks the paths of nested types, maps and dictionaries included.
func TestPaths(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)},
		{Name: "d", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}},
		{Name: "s", Type: arrow.StructOf(
			arrow.Field{Name: "l", Type: arrow.FixedSizeListOf(2, arrow.ListOf(arrow.PrimitiveTypes.Float32))},
			arrow.Field{Name: "t", Type: arrow.FixedWidthTypes.Date64})},
		{Name: "v", Type: arrow.ListViewOf(arrow.PrimitiveTypes.Int8)},
	}, nil)
	d, err := New(schema)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"m.[].key", "m.[].value", "d", "s.l.[].[]", "s.t", "v.[]"}
	if got := d.Paths(); !slices.Equal(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
}

// TestWorkedExample checks the numbers of the worked example in docs/runner-protocol.md.
func TestWorkedExample(t *testing.T) {
	mem := memory.NewGoAllocator()
	ib := array.NewInt64Builder(mem)
	ib.Append(7)
	ib.AppendNull()
	lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"a", ""}, nil)
	lb.AppendNull()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{ib.NewArray(), lb.NewArray()}, 2)
	got, err := Batches(schema, rec)
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Columns: []ColumnDigest{
		{"id", "1b6adcc983ad40868b3d1949eeaf3603"},
		{"tags.[]", "0dcc16f7a897b8ef8c0d1b617f194d02"},
	}, Table: "6b7ca86f5258e5bd6afcf20fa2fbc1dd", Rows: 2}
	if err := Diff(want, got); err != nil || got.Table != want.Table {
		t.Fatalf("got %+v: %v", got, err)
	}
}

// TestMalformedBatch checks that a batch whose list offsets point past its values is an error.
func TestMalformedBatch(t *testing.T) {
	mem := memory.NewGoAllocator()
	values := array.NewInt64Builder(mem)
	values.Append(1)
	vals := values.NewArray()
	offsets := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, 5}))
	dt := arrow.ListOf(arrow.PrimitiveTypes.Int64)
	data := array.NewData(dt, 1, []*memory.Buffer{nil, offsets}, []arrow.ArrayData{vals.Data()}, 0, 0)
	list := array.MakeFromData(data)
	schema := arrow.NewSchema([]arrow.Field{{Name: "l", Type: dt, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{list}, 1)
	d, _ := New(schema)
	if err := d.Write(rec); err == nil {
		t.Error("no error")
	} else {
		t.Log(err)
	}
}
