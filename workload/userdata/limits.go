package userdata

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Limits on what an input may declare. A hostile or corrupt file can declare
// sizes and counts far beyond what it holds (a block of 2^40 bytes in a
// 116-byte file); such declarations are checked against the file before any
// library allocates for them, and refused with one line naming the limit.
const (
	// MaxColumns bounds the leaf columns of a schema (nested fields
	// counted one by one): 100,000, ten times the widest real tables we
	// know of, and enough that reading stays within seconds.
	MaxColumns = 100_000
	// MaxDepth bounds the nesting of a schema (a struct in a list in a
	// struct… counts one level each): 64, the recursion limit Arrow C++
	// applies when it reads IPC data, so no deeper file could be read back
	// by the other Arrow implementations anyway.
	MaxDepth = 64
	// MaxDecompressRatio and MinDecompressCap bound how much a compressed
	// Parquet or Arrow file (which must be decompressed to a temporary file
	// to be read at random) may expand: to max(64 × its compressed size,
	// 64 MiB). Such files are mostly compressed already (Parquet pages) or
	// numeric (Arrow), which real compressors shrink 2–20×; a file that
	// expands further is a decompression bomb, or one to decompress by hand.
	MaxDecompressRatio = 64
	MinDecompressCap   = 64 << 20
	// maxAvroBlock bounds one Avro block once decompressed: 1 GiB (writers
	// flush blocks at 16 KiB–64 MiB; Java's reader refuses any over 2 GiB).
	maxAvroBlock = 1 << 30
	// maxAvroFixed bounds the size of an Avro fixed type: 1 MiB, as
	// hamba/avro bounds bytes and strings (real fixed types hold hashes,
	// UUIDs and decimals: tens of bytes).
	maxAvroFixed = 1 << 20
	// maxIPCMetadata bounds one Arrow IPC message's metadata: 64 MiB, the
	// limit arrow-go applies to the file format.
	maxIPCMetadata = 64 << 20
)

// thousands formats n with comma separators: 1000000 → "1,000,000".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// sizeText formats a byte count for messages: "66,126 bytes", "64 MiB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return thousands(n>>30) + " GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return thousands(n>>20) + " MiB"
	}
	return thousands(n) + " bytes"
}

// schemaShape returns the leaf count and the depth (0 for a flat schema) of
// s, stopping early once either passes its limit.
func schemaShape(s *arrow.Schema) (leaves, depth int, deepest string) {
	var walk func(name string, dt arrow.DataType, d int)
	walk = func(name string, dt arrow.DataType, d int) {
		if leaves > MaxColumns || depth > MaxDepth {
			return
		}
		if d > depth {
			depth, deepest = d, name
		}
		switch t := dt.(type) {
		case *arrow.StructType:
			if t.NumFields() == 0 {
				leaves++
			}
			for i := 0; i < t.NumFields(); i++ {
				f := t.Field(i)
				walk(name+"."+f.Name, f.Type, d+1)
			}
		case arrow.ListLikeType: // a map too: a list of key-value structs
			walk(name+"[]", t.Elem(), d+1)
		case arrow.UnionType:
			for _, f := range t.Fields() {
				walk(name+"."+f.Name, f.Type, d+1)
			}
		case *arrow.DictionaryType:
			walk(name, t.ValueType, d)
		default:
			leaves++
		}
	}
	for _, f := range s.Fields() {
		walk(f.Name, f.Type, 0)
	}
	return leaves, depth, deepest
}

// checkSchema refuses a schema wider than MaxColumns leaves or deeper than
// MaxDepth levels.
func (r *Reader) checkSchema(s *arrow.Schema) error {
	leaves, depth, deepest := schemaShape(s)
	if leaves > MaxColumns {
		return fmt.Errorf("userdata: %s: the schema has more than %s leaf columns, the limit (nested fields count one by one)",
			r.path, thousands(MaxColumns))
	}
	if depth > MaxDepth {
		return fmt.Errorf("userdata: %s: field %s nests deeper than %d levels, the limit (Arrow C++ refuses deeper data too)",
			r.path, shorten(deepest, 80), MaxDepth)
	}
	return nil
}

// shorten cuts s to about max bytes, keeping its head and tail.
func shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	h := max / 2
	t := len(s) - (max - h - 1)
	for h > 0 && !runeStart(s[h]) {
		h--
	}
	for t < len(s) && !runeStart(s[t]) {
		t++
	}
	return s[:h] + "…" + s[t:]
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }

// maxTypeText bounds the text of one type in Describe: a longer one is cut
// there with "…" (its nested fields have rows of their own).
const maxTypeText = 240

// typeNodes counts the nested fields of dt, stopping past limit.
func typeNodes(dt arrow.DataType, limit int) int {
	n := 0
	var walk func(dt arrow.DataType, d int)
	walk = func(dt arrow.DataType, d int) {
		n++
		if n > limit || d > MaxDepth {
			n = limit + 1
			return
		}
		switch t := dt.(type) {
		case *arrow.StructType:
			for i := 0; i < t.NumFields() && n <= limit; i++ {
				walk(t.Field(i).Type, d+1)
			}
		case arrow.ListLikeType:
			walk(t.Elem(), d+1)
		case arrow.UnionType:
			for _, f := range t.Fields() {
				walk(f.Type, d+1)
			}
		case *arrow.DictionaryType:
			walk(t.ValueType, d+1)
		}
	}
	walk(dt, 0)
	return n
}

// typeString is dt.String() cut at about maxTypeText bytes, without
// printing the rest (a 10,000-level nesting would print 10,000 types, each
// repeating the ones inside it).
func typeString(dt arrow.DataType) string {
	w := &typeWriter{}
	w.typ(dt)
	return w.b.String()
}

type typeWriter struct {
	b   strings.Builder
	cut bool
}

func (w *typeWriter) str(s string) {
	if w.cut {
		return
	}
	if w.b.Len()+len(s) > maxTypeText {
		w.b.WriteString(s[:max(0, min(len(s), maxTypeText-w.b.Len()))])
		w.b.WriteString("…")
		w.cut = true
		return
	}
	w.b.WriteString(s)
}

// typ writes dt as Arrow's String methods do.
func (w *typeWriter) typ(dt arrow.DataType) {
	if w.cut {
		return
	}
	switch t := dt.(type) {
	case *arrow.StructType:
		w.str("struct<")
		for i := 0; i < t.NumFields() && !w.cut; i++ {
			if i > 0 {
				w.str(", ")
			}
			f := t.Field(i)
			w.str(f.Name + ": ")
			w.typ(f.Type)
			if f.Nullable {
				w.str(" nullable")
			}
		}
		w.str(">")
	case *arrow.MapType:
		w.str("map<")
		w.typ(t.KeyType())
		w.str(", ")
		w.typ(t.ItemType())
		if t.KeysSorted {
			w.str(", keys_sorted")
		}
		if t.ItemField().Nullable {
			w.str(", items_nullable>")
		} else {
			w.str(", items_non_nullable>")
		}
	case *arrow.ListType, *arrow.LargeListType, *arrow.FixedSizeListType, *arrow.ListViewType, *arrow.LargeListViewType:
		f := t.(arrow.ListLikeType).ElemField()
		w.str(dt.Name() + "<" + f.Name + ": ")
		w.typ(f.Type)
		if f.Nullable {
			w.str(", nullable")
		}
		w.str(">")
		if fl, ok := dt.(*arrow.FixedSizeListType); ok {
			w.str(fmt.Sprintf("[%d]", fl.Len()))
		}
	default:
		if typeNodes(dt, 64) <= 64 {
			w.str(dt.String())
		} else {
			w.str(dt.Name() + "<…>")
		}
	}
}

// limitError is an input refused for passing a limit, not for being
// malformed.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// errLimit is returned by limitedWriter past its limit.
var errLimit = errors.New("limit reached")

// limitedWriter writes to w until n bytes have been written, then fails.
type limitedWriter struct {
	w io.Writer
	n int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.n {
		k, err := l.w.Write(p[:l.n])
		l.n -= int64(k)
		if err == nil {
			err = errLimit
		}
		return k, err
	}
	k, err := l.w.Write(p)
	l.n -= int64(k)
	return k, err
}

// readUpTo reads exactly n bytes from r into a buffer that grows as the
// bytes arrive, so that a length declared by a corrupt file costs no more
// memory than the bytes that are really there, or of n bytes at once when n
// is known to be there (exact). It returns the bytes read and
// io.ErrUnexpectedEOF when r ends first.
func readUpTo(r io.Reader, n int64, exact bool) ([]byte, error) {
	const step = 1 << 20
	if n <= step || exact {
		buf := make([]byte, n)
		k, err := io.ReadFull(r, buf)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return buf[:k], err
	}
	buf := make([]byte, 0, step)
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), min(2*int64(cap(buf)), n))
			copy(nb, buf)
			buf = nb
		}
		want := min(int64(cap(buf)), n)
		k, err := io.ReadFull(r, buf[len(buf):want])
		buf = buf[:len(buf)+k]
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}
