package pgscan

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/subject"
	"github.com/serbench/serbench/workload"
)

// TestRegisteredMethod adds a method of its own to a registry holding the
// built-in ones — pgx's text protocol, rows counted — and runs the
// workload on the throwaway server with it: its cases are planned, set up,
// verified and measured like a built-in method's; a method binding to no
// read is refused with its name.
func TestRegisteredMethod(t *testing.T) {
	needServer(t)
	r := subject.NewRegistry()
	if err := Register(r); err != nil {
		t.Fatal(err)
	}
	textRows := Subject{Desc: results.Descriptor{Name: "pgx-text", Role: results.RoleSubject, Module: modulePgx, What: "pgx's simple protocol, rows counted"},
		Bind: func(Query) (Method, error) {
			return Method{Read: func(ctx context.Context, s *Session, _ bool) (int64, error) {
				rows, err := s.Conn().Query(ctx, s.SQL())
				if err != nil {
					return 0, err
				}
				defer rows.Close()
				var n int64
				for rows.Next() {
					n++
				}
				if err := rows.Err(); err != nil {
					return n, fmt.Errorf("pgx-text: %w", err)
				}
				return n, nil
			}}, nil
		}}
	noRead := Subject{Desc: results.Descriptor{Name: "no-read"}, Bind: func(Query) (Method, error) { return Method{}, nil }}
	if err := subject.Add(r, Name, textRows, noRead); err != nil {
		t.Fatal(err)
	}
	w := New().WithSubjects(r)
	ctx := context.Background()
	p, err := w.Plan(ctx, workload.Config{Scale: workload.Quick, TempDir: t.TempDir(), Subjects: []string{"pgx-text"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if len(p.Cases) == 0 {
		t.Fatal("no case planned for pgx-text")
	}
	for _, c := range p.Cases {
		if got := c.Labels.Get(LabelSubject); got != "pgx-text" {
			t.Errorf("case %s of %s", c.FullName(), got)
		}
		res, err := bench.Measure(ctx, c, bench.Options{Count: 1, SampleTime: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK() {
			t.Errorf("%s: %s", res.FullName(), res.Error)
		}
	}
	if _, err := w.Plan(ctx, workload.Config{Scale: workload.Quick, DryRun: true, Subjects: []string{"no-read"}}); err == nil {
		t.Error("a method bound to no read was planned")
	}
}
