package pgarrow_test

import (
	"context"
	"testing"

	"github.com/serbench/serbench/pgarrow"
)

func TestSmoke(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	c, err := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT i::int8 AS id, 'user_'||i AS name, i*1.5::float8 AS score, (i%2=0) AS b, date '2020-01-01' + i AS d, '{1,2,NULL}'::int[] AS arr, '08:00:2b:01:02:03'::macaddr AS mac FROM generate_series(1,7) i"} {
		r, err := c.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			t.Log(r.RecordBatch())
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		r.Release()
		r, err = c.Copy(ctx, "SELECT i::int8 AS id, 'user_'||i AS name, '{1,2,NULL}'::int[] AS arr FROM generate_series(1,7) i")
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			t.Log(r.RecordBatch())
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		r.Release()
	}
}
