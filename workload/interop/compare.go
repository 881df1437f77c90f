package interop

import (
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/serbench/serbench/digest"
)

// compare returns "" when got is the dataset's digest, else one line naming
// the columns that differ and, from their Arrow types, what probably made
// them differ (digest.Diff's verdict, made short and explained). A column
// found only under its name made an Avro name (data.buffer → data_buffer,
// as Go, Java and Python derive Avro schemas) with the same values counts
// as renamed: forced in an Avro file (note says so), a difference in any
// other format.
func compare(format string, schema *arrow.Schema, want, got digest.Result) (why, note string) {
	if digest.Diff(want, got) == nil {
		return "", ""
	}
	if want.Rows != got.Rows {
		return fmt.Sprintf("read %d rows, want %d", got.Rows, want.Rows), ""
	}
	g := map[string]string{}
	for _, c := range got.Columns {
		g[c.Path] = c.Digest
	}
	types := leafTypes(schema)
	avroNames := avroPaths(schema)
	var missing, differ, renamed []string
	for _, c := range want.Columns {
		d, ok := g[c.Path]
		if !ok {
			for _, alt := range avroNames[c.Path] {
				if d, ok = g[alt]; ok {
					renamed = append(renamed, c.Path+" → "+alt)
					break
				}
			}
		}
		switch {
		case !ok:
			missing = append(missing, c.Path)
		case !strings.EqualFold(d, c.Digest):
			differ = append(differ, c.Path)
		}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "columns missing: "+list(missing))
	}
	if len(differ) > 0 {
		hint := whyTypes(differ, types)
		if allRenamable(differ, avroNames) {
			hint = " (each has a name that is not an Avro name: the writer probably renamed them, as parquet-java's parquet-avro writes Avro names, and the reader found nothing under the dataset's names)"
		}
		parts = append(parts, "columns differ: "+list(differ)+hint)
	}
	if len(renamed) > 0 {
		r := "columns renamed to Avro names: " + list(renamed)
		if len(parts) == 0 && format == "avro-ocf" {
			return "", r + " (Avro names allow only [A-Za-z_][A-Za-z0-9_]*; the values are the dataset's)"
		}
		if format != "avro-ocf" {
			r += " (the writer went through an Avro schema, e.g. parquet-java's parquet-avro, though " + format + " allows the names)"
		}
		parts = append(parts, r)
	}
	if len(parts) == 0 {
		return "digest mismatch: " + digest.Diff(want, got).Error(), ""
	}
	return strings.Join(parts, "; "), ""
}

// allRenamable reports whether every path changes when its names are
// made Avro names.
func allRenamable(paths []string, avroNames map[string][]string) bool {
	for _, p := range paths {
		if len(avroNames[p]) == 0 {
			return false
		}
	}
	return len(paths) > 0
}

// avroPaths maps each leaf path of schema to its path with every name made
// an Avro name, by Go's rule (format/dynamic: other characters → '_', a
// leading digit prefixed with '_') and by the JVM runner's (a leading digit
// replaced by '_'), when that differs from the path.
func avroPaths(s *arrow.Schema) map[string][]string {
	out := map[string][]string{}
	var walk func(path, gp, jp string, t arrow.DataType)
	join := func(p, n string) string {
		if p == "" {
			return n
		}
		return p + "." + n
	}
	walk = func(path, gp, jp string, t arrow.DataType) {
		switch dt := t.(type) {
		case *arrow.DictionaryType:
			walk(path, gp, jp, dt.ValueType)
		case arrow.ExtensionType:
			walk(path, gp, jp, dt.StorageType())
		case *arrow.MapType:
			walk(path+".[].key", gp+".[].key", jp+".[].key", dt.KeyType())
			walk(path+".[].value", gp+".[].value", jp+".[].value", dt.ItemType())
		case *arrow.StructType:
			for _, f := range dt.Fields() {
				walk(join(path, f.Name), join(gp, avroName(f.Name, true)), join(jp, avroName(f.Name, false)), f.Type)
			}
		case arrow.ListLikeType:
			walk(path+".[]", gp+".[]", jp+".[]", dt.Elem())
		default:
			for _, alt := range []string{gp, jp} {
				if alt != path && (len(out[path]) == 0 || out[path][0] != alt) {
					out[path] = append(out[path], alt)
				}
			}
		}
	}
	for _, f := range s.Fields() {
		walk(f.Name, avroName(f.Name, true), avroName(f.Name, false), f.Type)
	}
	return out
}

// avroName makes n an Avro name: every character but ASCII letters,
// digits and '_' becomes '_'; a leading digit is prefixed with '_' (goRule)
// or replaced by '_'.
func avroName(n string, goRule bool) string {
	var b strings.Builder
	for i, r := range n {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || (i > 0 && r >= '0' && r <= '9'):
			b.WriteRune(r)
		case i == 0 && r >= '0' && r <= '9' && goRule:
			b.WriteByte('_')
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// knownCauses explain reader errors whose cause is a convention two
// libraries do not share (seen in the matrix of the runners' subjects).
var knownCauses = []struct{ match, why string }{
	{`"ext" with method for "int"`, "the writer carried a timestamp as the MessagePack timestamp extension (type -1); Go's msgpack reader takes a timestamp as an integer in the column's unit"},
	{"Expected `datetime | null`, got `int`", "the writer carried a timestamp as an integer in the column's unit; msgspec's typed decoder takes the MessagePack timestamp extension (or RFC 3339 text)"},
	{"(major 6, argument 0)", "the writer carried a timestamp as CBOR tag 0 (RFC 3339 text); Go's CBOR reader takes an integer in the column's unit"},
	{"(major 6, argument 1004)", "the writer carried a date as CBOR tag 1004 (full-date text); Go's CBOR reader takes integer days"},
	{"(major 6, argument 4)", "the writer carried a decimal as CBOR tag 4 (decimal fraction); Go's CBOR reader takes decimal text"},
	{"Illegal character in:", "parquet-java reads a Parquet file through an Avro schema converted from the file's (parquet-avro), and Avro names allow only [A-Za-z_][A-Za-z0-9_]*: a column whose name is not an Avro name cannot be read that way"},
	{"invalid name", "the file's Avro schema has a field name that is not an Avro name ([A-Za-z_][A-Za-z0-9_]*), which the Avro specification forbids"},
}

// explain appends the known cause of a reader's error, if any.
func explain(reason string) string {
	for _, k := range knownCauses {
		if strings.Contains(reason, k.match) {
			return reason + " — " + k.why
		}
	}
	return reason
}

// list joins paths, at most six of them.
func list(paths []string) string {
	const n = 6
	if len(paths) > n {
		return strings.Join(paths[:n], ", ") + fmt.Sprintf(" and %d more", len(paths)-n)
	}
	return strings.Join(paths, ", ")
}

// whyTypes names, from the differing leaves' types, the likely cause; "" when
// the types say nothing.
func whyTypes(paths []string, types map[string]arrow.DataType) string {
	causes := map[string]bool{}
	for _, p := range paths {
		t := types[p]
		if t == nil {
			continue
		}
		var c string
		switch dt := t.(type) {
		case *arrow.TimestampType:
			c = fmt.Sprintf("timestamp[%s]: the file's timestamp unit or representation (integers in which unit, text, an extension type) differs", dt.Unit)
		case *arrow.Date32Type, *arrow.Date64Type:
			c = "date: the file's date representation (days, text, a tag) differs"
		case *arrow.Time32Type, *arrow.Time64Type:
			c = "time of day: its unit differs"
		case *arrow.DurationType:
			c = "duration: its unit differs"
		case *arrow.Decimal128Type, *arrow.Decimal256Type:
			c = "decimal: its logical type (text, bytes, a tag, a float) differs"
		case *arrow.Float16Type, *arrow.Float32Type:
			c = "float32: written or read with another width"
		case *arrow.Float64Type:
			c = "float64: NaN, infinities or -0.0 not carried"
		case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.FixedSizeBinaryType:
			c = "binary: carried as text (base64?) or as another type"
		case *arrow.Uint64Type:
			c = "uint64: values past 2^63 carried as another type"
		}
		if strings.HasSuffix(p, ".[].key") {
			c = "map keys: their type or order differs"
		}
		if c != "" {
			causes[c] = true
		}
	}
	if len(causes) == 0 {
		return ""
	}
	out := make([]string, 0, len(causes))
	for c := range causes {
		out = append(out, c)
	}
	sort.Strings(out)
	return " (" + strings.Join(out, "; ") + ")"
}

// leafTypes maps the §7.1 leaf paths of schema to their types.
func leafTypes(s *arrow.Schema) map[string]arrow.DataType {
	out := map[string]arrow.DataType{}
	var walk func(path string, t arrow.DataType)
	walk = func(path string, t arrow.DataType) {
		switch dt := t.(type) {
		case *arrow.DictionaryType:
			walk(path, dt.ValueType)
		case arrow.ExtensionType:
			walk(path, dt.StorageType())
		case *arrow.MapType:
			walk(path+".[].key", dt.KeyType())
			walk(path+".[].value", dt.ItemType())
		case *arrow.StructType:
			for _, f := range dt.Fields() {
				walk(path+"."+f.Name, f.Type)
			}
		case arrow.ListLikeType:
			walk(path+".[]", dt.Elem())
		default:
			out[path] = t
		}
	}
	for _, f := range s.Fields() {
		walk(f.Name, f.Type)
	}
	return out
}
