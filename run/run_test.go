package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload"
)

const secret = "s3cr3t-pw"

// fake is a workload of three subjects (one a limit row) in one
// comparison group, whose environment and one failing case carry a DSN
// with a password, as pgscan's would.
// fake is a test workload; dsn stands for a server it measures (as
// pgscan's --pg-dsn): it is recorded in the plan's environment and names
// what the plan measures (Identity).
type fake struct{ dsn string }

func (fake) Name() string        { return "fake" }
func (fake) Description() string { return "test workload" }
func (fake) Subjects() []string  { return []string{"a", "b", "lim", "bad"} }
func (fake) Layout() []table.Section {
	return []table.Section{{Title: "Subjects", Blocks: []table.BlockSpec{{Subjects: "subject"}}}}
}
func (fake) Summary(*results.Run, []*results.Case) *table.Table { return nil }

func (fake) Derive(*results.Run, []*results.Case) table.Derived { return nil }

func (f fake) Plan(_ context.Context, cfg workload.Config) (*workload.Plan, error) {
	mk := func(s, role string, err error) bench.Case {
		// A budget of its own (an hour) keeps the run's CaseSampling
		// out of these tests: a loaded machine stretches the sleeps,
		// and the tests count samples (CaseSampling: bench's tests).
		return bench.Case{Workload: "fake", Name: "Fake", Group: "g", Role: role, Budget: time.Hour,
			Labels: results.Labels{{Key: "subject", Value: s}, {Key: "op", Value: "x"}},
			Verify: func() error { return err },
			Run: func(b *bench.B) error {
				for i := 0; i < b.N; i++ {
					time.Sleep(time.Microsecond)
				}
				return nil
			}}
	}
	p := &workload.Plan{Env: map[string]string{"dsn": f.dsn}, Identity: []string{"dsn"}}
	for _, s := range []struct{ name, role string }{{"a", results.RoleBaseline}, {"b", results.RoleSubject}, {"lim", results.RoleLimit}, {"bad", results.RoleSubject}} {
		if !cfg.WantSubject(s.name) {
			continue
		}
		var err error
		if s.name == "bad" {
			err = errors.New("cannot connect to " + f.dsn)
		}
		p.Cases = append(p.Cases, mk(s.name, s.role, err))
		p.Descriptors = append(p.Descriptors, results.Descriptor{Key: "subject", Name: s.name, Role: s.role, What: "test subject " + s.name})
	}
	return p, nil
}

func opts(t *testing.T, dir string, extra func(*Options)) Options {
	o := Options{Workloads: workload.Set{fake{dsn: "postgres://bob:" + secret + "@127.0.0.1:5/db"}}, Scale: workload.Quick, Count: 3, Benchtime: time.Millisecond, Out: dir,
		Args: []string{"serbench", "run", "--pg-dsn", "postgres://bob:" + secret + "@127.0.0.1:5/db"}}
	if extra != nil {
		extra(&o)
	}
	return o
}

// TestNoSecretInOutputs: no file a run writes contains the password of
// the DSN it was given.
func TestNoSecretInOutputs(t *testing.T) {
	dir := t.TempDir()
	out, err := Run(context.Background(), opts(t, dir, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Run.Cases) != 4 {
		t.Fatalf("%d cases", len(out.Run.Cases))
	}
	files, _ := os.ReadDir(dir)
	if len(files) < 4 {
		t.Fatalf("only %d files written", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("%s contains the password", f.Name())
		}
		if f.Name() == ResultsFile && !strings.Contains(string(b), "bob:"+results.Redacted+"@") {
			t.Errorf("%s does not show the redacted DSN", f.Name())
		}
	}
}

// TestGroupRatiosAndDescriptors: the group is sampled together, each
// sample has its in-round ratios, descriptors travel with the results.
func TestGroupRatiosAndDescriptors(t *testing.T) {
	out, err := Run(context.Background(), opts(t, t.TempDir(), nil))
	if err != nil {
		t.Fatal(err)
	}
	run, err := results.ReadFile(out.ResultsPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Descriptors) != 4 || run.Descriptor("fake", "subject", "lim").Role != results.RoleLimit {
		t.Errorf("descriptors %+v", run.Descriptors)
	}
	for _, c := range run.Cases {
		if c.Labels.Get("subject") == "b" {
			if _, ok := c.Stat(results.UnitVsLimit); !ok || c.Role != results.RoleSubject || c.Group != "g" {
				t.Errorf("b: role %q group %q summary %v", c.Role, c.Group, c.Summary)
			}
		}
	}
	if run.Interrupted() || run.End.Done != 4 {
		t.Errorf("end %+v", run.End)
	}
	for _, c := range run.Cases {
		if c.Start.Before(run.Env.Start) || c.End.Before(c.Start) || c.End.Sub(c.Start) != c.Elapsed {
			t.Errorf("%s: measured %s … %s (elapsed %s), run started %s", c.FullName(), c.Start, c.End, c.Elapsed, run.Env.Start)
		}
	}
	// The run probed the machine before its first group, in this process.
	if len(run.Probes) == 0 || run.Probes[0].Fork != 0 || !(run.Probes[0].Ns > 0) || run.Probes[0].Time.Before(run.Env.Start) {
		t.Errorf("probes %+v: want one taken by this process after the start", run.Probes)
	}
}

// TestOutDirRules: a second run into the same directory is refused unless
// --force (which removes the old outputs) or --resume (which keeps the
// finished cases and runs only the rest).
func TestOutDirRules(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), opts(t, dir, func(o *Options) { o.Subjects = []string{"a", "lim"} })); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "old-plot.svg")
	os.WriteFile(stale, []byte("<svg/>"), 0o644)
	_, err := Run(context.Background(), opts(t, dir, nil))
	var ue *workload.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "already holds a run") || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("second run: %v", err)
	}
	out, err := Run(context.Background(), opts(t, dir, func(o *Options) { o.Resume = true }))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Run.Cases) != 4 {
		t.Errorf("resumed run has %d cases, want 2 kept + 2 new", len(out.Run.Cases))
	}
	// Resuming a finished run (killed while writing its report) writes
	// the report again and measures nothing.
	os.Remove(filepath.Join(dir, "report.html"))
	again, err := Run(context.Background(), opts(t, dir, func(o *Options) { o.Resume = true }))
	if err != nil || len(again.Run.Cases) != 4 {
		t.Errorf("resuming a finished run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Errorf("resuming a finished run wrote no report: %v", err)
	}
	if _, err := Run(context.Background(), opts(t, dir, func(o *Options) { o.Force = true; o.Subjects = []string{"a"} })); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("--force left a stale plot behind")
	}
	run, err := results.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil || len(run.Cases) != 1 {
		t.Errorf("forced run: %v, %d cases", err, len(run.Cases))
	}
}

func TestSelectOnceEach(t *testing.T) {
	ws, err := Select(workload.Set{fake{}}, []string{"fake", "fake"})
	if err != nil || len(ws) != 1 {
		t.Errorf("Select twice: %d workloads, %v", len(ws), err)
	}
	_, err = Select(workload.Set{fake{}}, []string{"nope"})
	var ue *workload.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "valid: fake") {
		t.Errorf("unknown workload: %v", err)
	}
}
