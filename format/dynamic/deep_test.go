package dynamic

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// deepSchema is one nullable column "v" of nullable lists (kind "list") or
// structs of one nullable field "s" (kind "struct") nested depth deep around
// an int64, and an int64 column "id".
func deepSchema(kind string, depth int) *arrow.Schema {
	var t arrow.DataType = arrow.PrimitiveTypes.Int64
	for range depth {
		if kind == "list" {
			t = arrow.ListOfField(arrow.Field{Name: "item", Type: t, Nullable: true})
		} else {
			t = arrow.StructOf(arrow.Field{Name: "s", Type: t, Nullable: true})
		}
	}
	return arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: t, Nullable: true}}, nil)
}

// deepBatch returns rows rows of deepSchema(kind, depth): row r holds r at
// the bottom, but every third row stops with a null at level r%depth and,
// for lists, every fifth (not third) has two elements at the bottom level.
func deepBatch(s *arrow.Schema, kind string, depth, rows int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.NewGoAllocator(), s)
	defer b.Release()
	for r := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(r))
		bld := b.Field(1)
		for level := 0; ; level++ {
			if r%3 == 0 && level == r%depth {
				bld.AppendNull()
				break
			}
			if level == depth {
				bld.(*array.Int64Builder).Append(int64(r))
				break
			}
			if kind == "list" {
				lb := bld.(*array.ListBuilder)
				lb.Append(true)
				bld = lb.ValueBuilder()
				if level == depth-1 && r%5 == 0 {
					bld.(*array.Int64Builder).Append(-1)
				}
			} else {
				sb := bld.(*array.StructBuilder)
				sb.Append(true)
				bld = sb.FieldBuilder(0)
			}
		}
	}
	return b.NewRecordBatch()
}

// deepRoundTrip builds format c for a schema nested depth deep and round
// trips rows of it, comparing.
func deepRoundTrip(c Entry, kind string, depth int) error {
	s := deepSchema(kind, depth)
	f, err := c.New(s, Options{BatchRows: 4})
	if err != nil {
		return err
	}
	rec := deepBatch(s, kind, depth, 7)
	defer rec.Release()
	got, _, err := roundTrip(f, []arrow.RecordBatch{rec})
	defer release(got)
	if err != nil {
		return err
	}
	return Compare([]arrow.RecordBatch{rec}, got)
}

// bindDeep builds format c for a schema nested depth deep, encodes rec (of
// that schema) and opens a decoder of the bytes: the work of compiling the
// schema into encoders and decoders, and of writing (decoding is left out:
// arrow-go's StructBuilder rebuilds its type at every level of every batch,
// quadratic in depth).
func bindDeep(c Entry, s *arrow.Schema, rec arrow.RecordBatch) error {
	f, err := c.New(s, Options{})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc, err := f.NewEncoder(&buf)
	if err != nil {
		return err
	}
	if err := enc.Encode(&rec); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err = f.NewDecoder(bytes.NewReader(buf.Bytes()))
	return err
}

// TestDeepNestingLinear (issue 26): the work of compiling a schema nested d
// deep into a format's encoder and decoder, and of encoding a few rows,
// grows linearly with d. protobuf-wire's encoder bound both a nullable
// list's wrapper body and its bare repeated body at every level — 2^d
// closures (d = 16: 0.42 s, 24: 37.5 s, 200: hung). Counted in
// allocations, not time: doubling the depth from 8 to 16 must not more
// than triple them (it multiplied them by 2^8).
func TestDeepNestingLinear(t *testing.T) {
	for _, c := range Constructors() {
		if c.Name == "csv" {
			continue // flat only
		}
		for _, kind := range []string{"list", "struct"} {
			t.Run(c.Name+"/"+kind, func(t *testing.T) {
				allocs := func(depth int) float64 {
					s := deepSchema(kind, depth)
					rec := deepBatch(s, kind, depth, 7)
					defer rec.Release()
					var err error
					n := testing.AllocsPerRun(2, func() { err = bindDeep(c, s, rec) })
					if err != nil {
						t.Fatalf("depth %d: %v", depth, err)
					}
					return n
				}
				a8, a16 := allocs(8), allocs(16)
				if a16 > 3*a8 {
					t.Errorf("allocations: %.0f at depth 8, %.0f at depth 16: not linear in depth", a8, a16)
				}
			})
		}
	}
}

// TestDeepNesting200 (issue 26): every format builds and round-trips data
// nested 200 deep (lists of lists, structs of structs) in well under the
// bound, or refuses the schema at once with a short error wrapping
// ErrCannotHold that says why first: Arrow IPC (arrow-go's recursion limit
// of 63 levels, which failed every write with 3–8 KB of "could not visit
// list element …" ending in "max recursion depth reached") and CSV (flat).
func TestDeepNesting200(t *testing.T) {
	const depth = 200
	// By the uncompressed sibling; the error starts with the format's name.
	refuses := map[string]string{
		"arrow-stream": ": cannot hold this data: column v is nested 200 levels deep",
		"csv":          ": cannot hold this data: column v: nested type",
	}
	for _, c := range Constructors() {
		for _, kind := range []string{"list", "struct"} {
			t.Run(c.Name+"/"+kind, func(t *testing.T) {
				start := time.Now()
				err := deepRoundTrip(c, kind, depth)
				if el := time.Since(start); el > 5*time.Second {
					t.Errorf("%v for depth %d (a few ms expected)", el, depth)
				}
				want, refused := refuses[sibling(c.Name)]
				want = c.Name + want
				switch {
				case !refused && err != nil:
					t.Fatalf("depth %d: %.500v", depth, err)
				case refused && (!errors.Is(err, ErrCannotHold) || !strings.HasPrefix(fmt.Sprint(err), want)):
					t.Fatalf("depth %d: err = %.500v, want one wrapping ErrCannotHold starting %q", depth, err, want)
				case refused && len(err.Error()) > maxErrLen+len(c.Name)+2:
					t.Errorf("depth %d: a %d-byte error: %s", depth, len(err.Error()), err)
				}
			})
		}
	}
}

// TestArrowStreamNestingLimit: Arrow IPC holds exactly what arrow-go's IPC
// recursion limit allows, 63 levels, and refuses 64.
func TestArrowStreamNestingLimit(t *testing.T) {
	c := Entry{"arrow-stream", NewArrowStream}
	for _, kind := range []string{"list", "struct"} {
		if err := deepRoundTrip(c, kind, ipcMaxNesting); err != nil {
			t.Errorf("%s nested %d deep: %v", kind, ipcMaxNesting, err)
		}
		if err := deepRoundTrip(c, kind, ipcMaxNesting+1); !errors.Is(err, ErrCannotHold) {
			t.Errorf("%s nested %d deep: err = %.300v, want ErrCannotHold", kind, ipcMaxNesting+1, err)
		}
	}
}

// TestShortErr: a long error chain is shown cause first and capped, and
// still wraps what it wrapped.
func TestShortErr(t *testing.T) {
	cause := errors.New("arrow/ipc: max recursion depth reached")
	err := cause
	for range 64 {
		err = fmt.Errorf("could not visit list element for array *array.List: %w", err)
	}
	s := shortErr(err)
	if !errors.Is(s, cause) || !strings.HasPrefix(s.Error(), cause.Error()) || len(s.Error()) > maxErrLen+len("…") {
		t.Errorf("shortErr = %q (%d bytes)", s, len(s.Error()))
	}
	if short := errors.New("short"); shortErr(short) != short {
		t.Error("a short error changed")
	}
	if got := elide(strings.Repeat("é", 100), 20); len(got) > 24 || !strings.Contains(got, "…") || !strings.HasPrefix(got, "é") {
		t.Errorf("elide = %q", got)
	}
}
