package run

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

// TestRemoveStaleTemps: a run removes the temporary directories of dead
// runs (unlocked) and leaves those of live runs (locked) and everything
// that is not a serbench run's directory.
func TestRemoveStaleTemps(t *testing.T) {
	base := t.TempDir()
	live, err := newTempDir(base)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Remove()
	dead, err := newTempDir(base)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dead.path, "records.bin"), []byte("data"), 0o644)
	dead.lock.Close() // its process died: the kernel released the lock
	others := []string{"serbench-records-123", "serbench-x", "pgserver-1", tempNewPrefix + "42"}
	for _, n := range others {
		if err := os.Mkdir(filepath.Join(base, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(base, "serbench-7"), nil, 0o644) // a file, not a directory

	var log bytes.Buffer
	if n := RemoveStaleTemps(base, &log); n != 1 {
		t.Errorf("removed %d, want 1 (log %q)", n, log.String())
	}
	if _, err := os.Stat(dead.path); !os.IsNotExist(err) {
		t.Errorf("the dead run's directory is still there: %v", err)
	}
	for _, p := range append([]string{live.path, filepath.Join(base, "serbench-7")}, others...) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
	if err := live.Remove(); err != nil {
		t.Fatal(err)
	}
}

// TestOutLocked: while a run holds its output directory, another is
// refused as bad input before it reads or writes anything there.
func TestOutLocked(t *testing.T) {
	dir := t.TempDir()
	held, err := lockOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), opts(t, dir, nil))
	var ue *workload.UsageError
	if !errors.As(err, &ue) || !errors.Is(err, ErrOutInUse) {
		t.Fatalf("a run on a held directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ResultsFile)); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote %s", ResultsFile)
	}
	held.Close()
	if _, err := Run(context.Background(), opts(t, dir, nil)); err != nil {
		t.Fatalf("once released: %v", err)
	}
}

// TestResumeAfterCutLine: a results file whose last line was cut (a run
// killed, a disk full) is resumed into a file every reader accepts, with
// the cut case measured again and every case once; a file cut inside its
// environment line starts afresh.
func TestResumeAfterCutLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(b []byte) []byte
		want string // in the log
	}{
		{"mid case line", func(b []byte) []byte {
			i := bytes.LastIndex(b, []byte(`{"kind":"case"`))
			return b[:i+40]
		}, "cut short"},
		{"just before the newline", func(b []byte) []byte {
			i := bytes.LastIndex(b, []byte(`{"kind":"case"`))
			j := bytes.IndexByte(b[i:], '\n')
			return b[:i+j]
		}, ""},
		{"mid environment line", func(b []byte) []byte { return b[:30] }, "afresh"},
		{"empty", func([]byte) []byte { return nil }, "afresh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Run(context.Background(), opts(t, dir, nil)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, ResultsFile)
			b, _ := os.ReadFile(path)
			full, err := results.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// Drop the end line and the last case (and what follows).
			b = b[:bytes.LastIndex(b, []byte(`{"kind":"end"`))]
			os.WriteFile(path, tc.cut(b), 0o644)
			var log strings.Builder
			out, err := Run(context.Background(), opts(t, dir, func(o *Options) { o.Resume = true; o.Log = &log }))
			if err != nil {
				t.Fatalf("resume: %v (log %s)", err, log.String())
			}
			if !strings.Contains(log.String(), tc.want) {
				t.Errorf("log %q, want %q", log.String(), tc.want)
			}
			got, err := results.ReadFile(path)
			if err != nil {
				t.Fatalf("the resumed file: %v", err)
			}
			if len(got.Warnings) > 0 {
				t.Errorf("warnings %v", got.Warnings)
			}
			seen := map[string]bool{}
			for _, c := range got.Cases {
				if seen[c.FullName()] {
					t.Errorf("%s twice", c.FullName())
				}
				seen[c.FullName()] = true
			}
			if len(got.Cases) != len(full.Cases) || len(out.Run.Cases) != len(full.Cases) {
				t.Errorf("%d cases after resume, want %d", len(got.Cases), len(full.Cases))
			}
		})
	}
}

// TestRepairTail checks the cases of results.RepairTail through the file
// system: what it keeps, what it cuts.
func TestRepairTail(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"a\n", "a\n"},
		{"{\"x\":1}\n{\"y\":", "{\"x\":1}\n"},
		{"{\"x\":1}\n{\"y\":2}", "{\"x\":1}\n{\"y\":2}\n"},
		{"{\"y\":", ""},
		{strings.Repeat("z", 200<<10), ""},
		{"{\"x\":1}\n" + strings.Repeat("z", 200<<10), "{\"x\":1}\n"},
	} {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		os.WriteFile(path, []byte(tc.in), 0o644)
		removed, err := results.RepairTail(path)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(path)
		got, _ := io.ReadAll(f)
		f.Close()
		if string(got) != tc.want || removed != int64(max(0, len(tc.in)-len(tc.want))) {
			t.Errorf("RepairTail(%.20q…) left %.20q… (removed %d), want %.20q…", tc.in, got, removed, tc.want)
		}
	}
}

// TestOutWithOthersFiles: a directory that holds no run but files a run
// would write (the user's own report.md) is refused, --force or not, and
// the files stay as they were.
func TestOutWithOthersFiles(t *testing.T) {
	for _, force := range []bool{false, true} {
		dir := t.TempDir()
		mine := filepath.Join(dir, "report.md")
		os.WriteFile(mine, []byte("my notes"), 0o644)
		_, err := Run(context.Background(), opts(t, dir, func(o *Options) { o.Force = force }))
		var ue *workload.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "report.md") {
			t.Errorf("force=%v: %v, want a usage error naming report.md", force, err)
		}
		if b, _ := os.ReadFile(mine); string(b) != "my notes" {
			t.Errorf("force=%v: the user's report.md became %q", force, b)
		}
	}
}

// TestResumeRefusesOtherInput: --resume with a plan that measures other
// data (another input file, another server) than the run it would finish
// is refused, and the file is left as it was.
func TestResumeRefusesOtherInput(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), opts(t, dir, func(o *Options) { o.Subjects = []string{"a", "lim"} })); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, ResultsFile))
	_, err := Run(context.Background(), opts(t, dir, func(o *Options) {
		o.Resume = true
		o.Workloads = workload.Set{fake{dsn: "postgres://eve@127.0.0.1:6/other"}}
	}))
	var ue *workload.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "measured fake with dsn postgres://bob:xxxxx@127.0.0.1:5/db") {
		t.Fatalf("resume on other data: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, ResultsFile)); !bytes.Equal(before, after) {
		t.Error("the refused resume changed the results file")
	}
}
