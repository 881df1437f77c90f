package interop

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/serbench/serbench/digest"
)

// TestCompare: a cell's reason names the columns that differ, with the
// cause their type suggests; columns found under their Avro names are
// renamed (ok in Avro, a difference elsewhere).
func TestCompare(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond}},
		{Name: "data.buf", Type: arrow.BinaryTypes.String},
	}, nil)
	col := func(p, d string) digest.ColumnDigest {
		return digest.ColumnDigest{Path: p, Digest: strings.Repeat(d, 32)}
	}
	res := func(cols ...digest.ColumnDigest) digest.Result {
		r := digest.Result{Rows: 3, Columns: cols}
		r.Table, _ = digest.TableDigest(cols)
		return r
	}
	want := res(col("id", "1"), col("ts", "2"), col("data.buf", "3"))
	if why, _ := compare("jsonl", s, want, want); why != "" {
		t.Errorf("equal: %q", why)
	}
	why, _ := compare("jsonl", s, want, res(col("id", "1"), col("ts", "9"), col("data.buf", "3")))
	if !strings.Contains(why, "columns differ: ts (timestamp[ms]") {
		t.Errorf("ts: %q", why)
	}
	renamed := res(col("id", "1"), col("ts", "2"), col("data_buf", "3"))
	if why, note := compare("avro-ocf", s, want, renamed); why != "" || !strings.Contains(note, "data.buf → data_buf") {
		t.Errorf("avro rename: %q %q", why, note)
	}
	if why, _ := compare("parquet", s, want, renamed); !strings.Contains(why, "renamed to Avro names: data.buf → data_buf") {
		t.Errorf("parquet rename: %q", why)
	}
	if why, _ := compare("jsonl", s, want, res(col("id", "1"), col("ts", "2"))); !strings.Contains(why, "columns missing: data.buf") {
		t.Errorf("missing: %q", why)
	}
	if why, _ := compare("jsonl", s, want, digest.Result{Rows: 2}); why != "read 2 rows, want 3" {
		t.Errorf("rows: %q", why)
	}
	if got := explain("x: CBOR item (major 6, argument 0) is not an int64"); !strings.Contains(got, "tag 0") {
		t.Errorf("explain: %q", got)
	}
}

func TestReaderLimit(t *testing.T) {
	ns := "columns differ: birthday (timestamp[ns]: the file's timestamp unit or representation differs)"
	tests := []struct{ reader, why, want string }{
		{"python:msgspec-json", ns, "hold microseconds"},
		{"python:fastavro", ns, "fastavro/fastavro#883"},
		{"rust:apache-avro", ns, ""},
		{"python:orjson", "columns differ: x (float32: written or read with another width)", ""},
	}
	for _, tt := range tests {
		got := readerLimit(tt.reader, tt.why)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("readerLimit(%s) = %q, want %q", tt.reader, got, tt.want)
		}
	}
}
