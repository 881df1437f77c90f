package userdata

import (
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// utf8Note is what invalid UTF-8 in a string column means for the run.
const utf8Note = "JSON Lines, whose strings must be UTF-8, cannot hold it and its cases will fail; " +
	"formats that keep strings as bytes are unaffected (re-encode the file as UTF-8 to measure them all)"

// liner is a source that knows the line of each row of its last batch.
type liner interface{ lineOf(i int) int64 }

// checkUTF8 looks for invalid UTF-8 in rec's string columns (nested ones
// included) and notes the first such value: Arrow's string type promises
// UTF-8 but neither CSV nor Parquet nor Arrow files check it, and some
// formats refuse it later, case by case.
func (r *Reader) checkUTF8(rec arrow.RecordBatch) {
	for i, col := range rec.Columns() {
		idx, path, ok := badUTF8(col)
		if !ok {
			continue
		}
		r.utf8Done = true
		where := fmt.Sprintf("row %s", thousands(r.rows+int64(idx)+1))
		if l, ok := r.src.(liner); ok && r.textSampling() {
			if line := l.lineOf(idx); line > 0 {
				where += fmt.Sprintf(" (line %s)", thousands(line))
			}
		}
		r.notes = append(r.notes, fmt.Sprintf("column %s: invalid UTF-8 in %s, the first such value: %s",
			shorten(rec.Schema().Field(i).Name+path, 80), where, utf8Note))
		return
	}
}

// checkNamesUTF8 notes the first field name of s that is not valid UTF-8.
func (r *Reader) checkNamesUTF8(s *arrow.Schema) {
	var walk func(prefix string, f arrow.Field) bool
	walk = func(prefix string, f arrow.Field) bool {
		if !utf8.ValidString(f.Name) {
			r.notes = append(r.notes, fmt.Sprintf("column name %q%s is not valid UTF-8: %s",
				shorten(f.Name, 60), prefix, utf8Note))
			return true
		}
		if nt, ok := f.Type.(arrow.NestedType); ok {
			for _, c := range nt.Fields() {
				if walk(fmt.Sprintf(" (in %s)", shorten(f.Name, 60)), c) {
					return true
				}
			}
		}
		return false
	}
	for _, f := range s.Fields() {
		if walk("", f) {
			return
		}
	}
}

// badUTF8 returns the index of the first value of a holding invalid UTF-8,
// with the path to the string inside it ("", ".b", "[]"…).
func badUTF8(a arrow.Array) (int, string, bool) {
	switch a := a.(type) {
	case *array.String:
		if utf8.Valid(a.ValueBytes()) {
			return 0, "", false
		}
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) && !utf8.ValidString(a.Value(i)) {
				return i, "", true
			}
		}
	case *array.LargeString:
		if utf8.Valid(a.ValueBytes()) {
			return 0, "", false
		}
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) && !utf8.ValidString(a.Value(i)) {
				return i, "", true
			}
		}
	case *array.StringView:
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) && !utf8.ValidString(a.Value(i)) {
				return i, "", true
			}
		}
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		for j := 0; j < a.NumField(); j++ {
			if idx, p, ok := badUTF8(a.Field(j)); ok && a.IsValid(idx) {
				return idx, "." + st.Field(j).Name + p, true
			}
		}
	case array.ListLike:
		idx, p, ok := badUTF8(a.ListValues())
		if !ok {
			return 0, "", false
		}
		for i := 0; i < a.Len(); i++ {
			if start, end := a.ValueOffsets(i); int64(idx) >= start && int64(idx) < end && a.IsValid(i) {
				return i, "[]" + p, true
			}
		}
	}
	return 0, "", false
}
