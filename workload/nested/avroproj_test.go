package nested

import (
	"bytes"
	"testing"

	"github.com/hamba/avro/v2"

	dsn "github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/media"
	"github.com/serbench/serbench/dataset/nested/userevents"
)

// checkAvroProjection decodes every single leaf and a few subsets with
// the pruned reader schema and compares with nested.Project.
func checkAvroProjection[T any](t *testing.T, recs []T, schema string) {
	t.Helper()
	ws := avro.MustParse(schema)
	var data [][]byte
	for i := range recs {
		b, err := avro.Marshal(ws, &recs[i])
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, bytes.Clone(b))
	}
	leaves := dsn.Leaves[T]()
	queries := [][]string{}
	for _, l := range leaves {
		queries = append(queries, []string{l})
	}
	queries = append(queries, leaves[:3], leaves[len(leaves)-4:], []string{leaves[0], leaves[len(leaves)/2], leaves[len(leaves)-1]})
	for _, q := range queries {
		f, mixed, err := avroProjected[T](schema, q)
		if err != nil {
			t.Fatalf("%v: %v", q, err)
		}
		p, err := dsn.NewProjector[T](q)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := f.Bind(struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range recs {
			var v T
			if err := rc.unmarshal(data[i], &v); err != nil {
				t.Fatalf("%v: record %d: %v", q, i, err)
			}
			if mixed {
				v = p.Project(&v)
			}
			want := p.Project(&recs[i])
			if err := dsn.Diff(&v, &want); err != nil {
				t.Fatalf("%v: record %d: %v", q, i, err)
			}
		}
	}
}

func TestAvroReaderSchema(t *testing.T) {
	t.Run("media", func(t *testing.T) { checkAvroProjection(t, media.Generate(50), media.AvroSchema()) })
	t.Run("userevents", func(t *testing.T) { checkAvroProjection(t, userevents.Generate(20), userevents.AvroSchema()) })
}
