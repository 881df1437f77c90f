package cli

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/serbench/serbench/pgserver"
	"github.com/serbench/serbench/results"
)

// crashTestEnv enables TestKilledRunsResume, which takes about a minute
// (.ci/run sets it).
const crashTestEnv = "SERBENCH_CRASH_TEST"

// TestKilledRunsResume kills real serbench processes with SIGKILL at
// random moments — while planning, measuring, forking, writing results or
// the report — and resumes each time with --resume (which may be killed
// in turn). The run that finally completes must hold every case of an
// uninterrupted run exactly once in a readable results file, and no
// temporary directory may be left behind. SERBENCH_CRASH_SEED repeats a
// failed sequence.
func TestKilledRunsResume(t *testing.T) {
	if os.Getenv(crashTestEnv) != "1" {
		t.Skipf("set %s=1 to kill and resume runs at random points (about a minute)", crashTestEnv)
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SERBENCH_CRASH_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("SERBENCH_CRASH_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 27))
	for _, w := range []struct {
		name  string
		args  []string
		kills int
	}{
		{"features", []string{"features", "--count", "2", "--benchtime", "1ms", "--forks", "2"}, 10},
		{"records", []string{"records", "--count", "2", "--benchtime", "1ms",
			"--filter", "subject=(jsonl|msgpack-msgp|jsonl-bare)/codec=(none|zstd|gzip)/"}, 10},
	} {
		t.Run(w.name, func(t *testing.T) {
			tmp := t.TempDir() // the runs' TMPDIR: whatever they leave shows here
			args := append([]string{"run", "--scale", "quick", "--progress", "none"}, w.args...)
			ref := filepath.Join(t.TempDir(), "ref")
			start := time.Now()
			if code, out := serbench(t, tmp, append(args, "--out", ref)...); code != 0 {
				t.Fatalf("uninterrupted run: exit %d: %s", code, out)
			}
			full := time.Since(start)
			want := caseNames(t, filepath.Join(ref, "results.jsonl"))

			// Episodes: a fresh directory, killed and resumed until a
			// resume completes; then the next, until enough kills.
			check := func(dir string) {
				t.Helper()
				got := caseNames(t, filepath.Join(dir, "results.jsonl"))
				if !slices.Equal(got, want) {
					t.Errorf("%s: the resumed run's cases differ from an uninterrupted run's:\n%s", dir, diffNames(got, want))
				}
				for _, f := range []string{"report.html", "report.md", "bench.txt"} {
					if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
						t.Errorf("no %s after the run completed: %v", f, err)
					}
				}
			}
			kills, episodes := 0, 0
			for kills < w.kills {
				episodes++
				dir := filepath.Join(t.TempDir(), "run")
				resume := append(append([]string{}, args...), "--out", dir, "--resume")
				for {
					at := time.Duration(rng.Int64N(int64(full)))
					code, out := killAt(t, tmp, at, resume...)
					if code == 0 {
						t.Logf("episode %d: completed (no kill within %v)", episodes, at.Round(time.Millisecond))
						break
					}
					if code != -1 {
						t.Fatalf("episode %d: a resumed run exited %d: %s", episodes, code, out)
					}
					kills++
					t.Logf("episode %d: killed at %v", episodes, at.Round(time.Millisecond))
					if kills >= w.kills {
						if code, out := serbench(t, tmp, resume...); code != 0 {
							t.Fatalf("final --resume: exit %d: %s", code, out)
						}
						break
					}
				}
				check(dir)
			}
			left, _ := os.ReadDir(tmp)
			for _, e := range left {
				t.Errorf("left behind in TMPDIR: %s", e.Name())
			}
		})
	}
}

// serbench runs this test binary as serbench with TMPDIR set, and returns
// its exit status and output.
func serbench(t *testing.T, tmp string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	}
	t.Fatal(err)
	return 0, ""
}

// killAt starts serbench, SIGKILLs it after d unless it ended before, and
// waits until every process it started is gone. The exit status is -1
// when it was killed.
func killAt(t *testing.T, tmp string, d time.Duration, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // to find its forks after it
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(d, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
	err := cmd.Wait()
	timer.Stop()
	// Its forks die with it (a parent-death signal): wait for them, so
	// that the next run starts with no process of this one alive.
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(-cmd.Process.Pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("processes of a killed run still alive after 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL:
		return -1, out.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	}
	t.Fatal(err)
	return 0, ""
}

// caseNames reads a results file and returns its case names, sorted,
// each as often as it was recorded.
func caseNames(t *testing.T, path string) []string {
	t.Helper()
	run, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Warnings) > 0 {
		t.Errorf("%s: %v", path, run.Warnings)
	}
	var names []string
	for _, c := range run.Cases {
		names = append(names, c.Workload+" "+c.FullName()+" "+c.Status)
	}
	slices.Sort(names)
	return names
}

// diffNames lists what one sorted list has and the other lacks, and
// duplicates.
func diffNames(got, want []string) string {
	count := map[string]int{}
	for _, n := range got {
		count[n]++
	}
	for _, n := range want {
		count[n]--
	}
	var b strings.Builder
	for n, c := range count {
		switch {
		case c > 0:
			fmt.Fprintf(&b, "  %d extra: %s\n", c, n)
		case c < 0:
			fmt.Fprintf(&b, "  missing: %s\n", n)
		}
	}
	return b.String()
}

// TestFullDiskThenResume fills a real 128 KiB tmpfs with a run's output:
// the run fails (exit 1) with the last line of its results cut short.
// Once there is room again, --resume must drop the cut line, finish the
// run and leave a file every case is in exactly once. It needs root (to
// mount the tmpfs) and is skipped otherwise.
func TestFullDiskThenResume(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	dir := filepath.Join(mnt, "run")
	tmp := t.TempDir()
	args := []string{"run", "features", "--scale", "quick", "--count", "2", "--benchtime", "1ms", "--forks", "1", "--progress", "none", "--out", dir}
	code, out := serbench(t, tmp, args...)
	if code != ExitFailure || !strings.Contains(out, "no space left on device") {
		t.Fatalf("a run on a full disk: exit %d, want %d with ENOSPC: %s", code, ExitFailure, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasSuffix(b, []byte("\n")) {
		t.Fatalf("the full disk stopped the run after %d bytes of results, at a line's end: the test wants a cut line", len(b))
	}
	if out, err := exec.Command("mount", "-o", "remount,size=64m", mnt).CombinedOutput(); err != nil {
		t.Fatalf("grow the tmpfs: %v: %s", err, out)
	}
	if code, out := serbench(t, tmp, append(args, "--resume")...); code != 0 {
		t.Fatalf("--resume with room again: exit %d: %s", code, out)
	}
	ref := filepath.Join(t.TempDir(), "ref")
	if code, out := serbench(t, tmp, append(args[:len(args)-1], ref)...); code != 0 {
		t.Fatalf("uninterrupted run: exit %d: %s", code, out)
	}
	got, want := caseNames(t, filepath.Join(dir, "results.jsonl")), caseNames(t, filepath.Join(ref, "results.jsonl"))
	if !slices.Equal(got, want) {
		t.Errorf("after the full disk and --resume:\n%s", diffNames(got, want))
	}
}

// TestTwoRunsOneOut starts two real serbench processes on one --out at the
// same moment: one measures, the other is refused with exit 2 before
// writing anything, and the file holds one run with every case once.
func TestTwoRunsOneOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	tmp := t.TempDir()
	args := []string{"run", "features", "--scale", "quick", "--count", "1", "--benchtime", "1ms", "--forks", "1",
		"--progress", "none", "--filter", "n=100/", "--out", dir}
	type res struct {
		code int
		out  string
	}
	ch := make(chan res, 2)
	for range 2 {
		go func() {
			code, out := serbench(t, tmp, args...)
			ch <- res{code, out}
		}()
	}
	a, b := <-ch, <-ch
	codes := []int{a.code, b.code}
	slices.Sort(codes)
	if !slices.Equal(codes, []int{ExitOK, ExitUsage}) {
		t.Fatalf("exits %v, want one 0 and one 2:\n%s\n%s", []int{a.code, b.code}, a.out, b.out)
	}
	refused := a.out
	if a.code == ExitOK {
		refused = b.out
	}
	if !strings.Contains(refused, "another serbench run is writing") && !strings.Contains(refused, "already holds a run") {
		t.Errorf("the refused run says: %s", refused)
	}
	names := caseNames(t, filepath.Join(dir, "results.jsonl"))
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			t.Errorf("%s recorded twice", names[i])
		}
	}
	if len(names) == 0 {
		t.Error("no case recorded")
	}
}

// TestSignalPastGrace: a run that does not stop within the grace period
// after SIGTERM (here 1 ms: anything in progress counts as stuck) exits
// with status 130 at once, saying so; what it finished is readable, and
// --resume finishes the run with every case once.
func TestSignalPastGrace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	tmp := t.TempDir()
	args := []string{"run", "features", "--scale", "quick", "--count", "2", "--benchtime", "20ms", "--forks", "1",
		"--progress", "none", "--filter", "n=(100|1000)/", "--out", dir}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "SERBENCH_STOP_GRACE=1ms")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(dir, "results.jsonl"))
		if bytes.Count(b, []byte(`"kind":"case"`)) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no case finished within 60s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t0 := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
		t.Fatalf("exit %v, want %d: %s", err, ExitInterrupted, out.String())
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("took %v to exit after SIGTERM", d)
	}
	if !strings.Contains(out.String(), "--resume finishes the run") {
		t.Errorf("output: %s", out.String())
	}
	if _, err := results.ReadFile(filepath.Join(dir, "results.jsonl")); err != nil {
		t.Fatalf("the stopped run's file: %v", err)
	}
	if code, out := serbench(t, tmp, append(args, "--resume")...); code != 0 {
		t.Fatalf("--resume: exit %d: %s", code, out)
	}
	names := caseNames(t, filepath.Join(dir, "results.jsonl"))
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			t.Errorf("%s twice", names[i])
		}
	}
}

// TestInterruptedPgscanNotFailed sends SIGINT to real pgscan runs of the
// replay cases (whose recording connects through a proxy to the throwaway
// server, which the interrupt stops) at several moments: no case may be
// recorded FAILED because of the interrupt, and --resume then measures
// every case, each once.
func TestInterruptedPgscanNotFailed(t *testing.T) {
	if _, err := pgserver.FindBinaries(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	// The server runs as an unprivileged user when the test runs as
	// root: its TMPDIR must be traversable (t.TempDir's are 0700).
	tmp, err := os.MkdirTemp("", "pgscan-interrupt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "pgscan", "--scale", "quick", "--count", "2", "--benchtime", "5ms", "--progress", "none",
		"--filter", "source=replay", "--out", dir, "--resume"}
	for _, at := range []time.Duration{1500 * time.Millisecond, 2500 * time.Millisecond, 3500 * time.Millisecond} {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(at, func() { _ = cmd.Process.Signal(os.Interrupt) })
		err := cmd.Wait()
		timer.Stop()
		var ee *exec.ExitError
		if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted) {
			t.Fatalf("SIGINT at %v: %v: %s", at, err, out.String())
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "results.jsonl")); bytes.Contains(b, []byte(`"status":"failed"`)) {
			t.Fatalf("SIGINT at %v left a FAILED case: %s", at, out.String())
		}
	}
	if code, out := serbench(t, tmp, args...); code != 0 {
		t.Fatalf("--resume: exit %d: %s", code, out)
	}
	names := caseNames(t, filepath.Join(dir, "results.jsonl"))
	if len(names) == 0 {
		t.Fatal("no case")
	}
	for i, n := range names {
		if !strings.HasSuffix(n, " ok") && !strings.HasSuffix(n, " skipped") {
			t.Errorf("%s", n)
		}
		if i > 0 && n == names[i-1] {
			t.Errorf("%s twice", n)
		}
	}
}
