package pgserver

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// skipWithoutBinaries skips the test when the PostgreSQL binaries are
// missing, except in CI (CI=true), where that is a failure.
func skipWithoutBinaries(t *testing.T) {
	t.Helper()
	if _, err := FindBinaries(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
}

func TestStartStop(t *testing.T) {
	skipWithoutBinaries(t)
	ctx := context.Background()
	s, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()

	conn, err := s.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var user, fsync, listen string
	var port int
	if err := conn.QueryRow(ctx, "SELECT current_user, current_setting('fsync'), current_setting('listen_addresses'), current_setting('port')::int").Scan(&user, &fsync, &listen, &port); err != nil {
		t.Fatal(err)
	}
	_ = conn.Close(ctx)
	if user != DefaultSuperuser || fsync != "off" || listen != "127.0.0.1" || port != s.Port() {
		t.Errorf("got user=%q fsync=%q listen=%q port=%d", user, fsync, listen, port)
	}

	// The unix socket works too.
	if _, err := os.Stat(s.SocketDir() + "/.s.PGSQL." + strconv.Itoa(s.Port())); err != nil {
		t.Errorf("unix socket: %v", err)
	}

	cpu, err := s.CPUSeconds()
	if err != nil || cpu < 0 {
		t.Errorf("CPUSeconds = %v, %v", cpu, err)
	}

	pid, dir := s.PID(), s.SocketDir()
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("postmaster %d still running after Stop", pid)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp dir %s not removed: %v", dir, err)
	}
}

func TestRunsUnprivileged(t *testing.T) {
	skipWithoutBinaries(t)
	ctx := context.Background()
	s, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	st, err := os.ReadFile("/proc/" + strconv.Itoa(s.PID()) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var uid string
	for _, line := range strings.Split(string(st), "\n") {
		if strings.HasPrefix(line, "Uid:") {
			uid = strings.Fields(line)[1]
		}
	}
	want := strconv.Itoa(os.Geteuid())
	if os.Geteuid() == 0 {
		if uid == "0" {
			t.Fatalf("postmaster runs as root")
		}
		want = strconv.Itoa(s.RunsAs())
	}
	if uid != want {
		t.Errorf("postmaster uid %s, want %s", uid, want)
	}
	// The temp dir is private to the server user.
	fi, err := os.Stat(s.SocketDir())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 || int(fi.Sys().(*syscall.Stat_t).Uid) != s.RunsAs() {
		t.Errorf("temp dir mode %v uid %d", fi.Mode().Perm(), fi.Sys().(*syscall.Stat_t).Uid)
	}
}

func TestMissingBinaries(t *testing.T) {
	empty := t.TempDir()
	_, err := Start(context.Background(), Options{BinDir: empty})
	if !errors.Is(err, ErrBinariesNotFound) {
		t.Fatalf("err = %v, want ErrBinariesNotFound", err)
	}
	for _, want := range []string{"not found", empty, "apt-get install postgresql"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestContextStopsServer(t *testing.T) {
	skipWithoutBinaries(t)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pid, dir := s.PID(), s.SocketDir()
	cancel()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := os.Stat(dir)
		if errors.Is(err, os.ErrNotExist) && syscall.Kill(pid, 0) != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not stopped after its context was cancelled")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("Stop after context stop: %v", err)
	}
}

func TestKilledPostmasterStop(t *testing.T) {
	skipWithoutBinaries(t)
	s, err := Start(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := s.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if pids := s.dataDirProcesses(); len(pids) > 0 {
		t.Errorf("server processes %v survive Kill", pids)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("Stop after kill: %v", err)
	}
	// No process of the group survives.
	out, _ := exec.Command("pgrep", "-g", strconv.Itoa(s.PID())).Output()
	if len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("processes left in group %d: %s", s.PID(), out)
	}
}

func TestProcessCPUSeconds(t *testing.T) {
	if _, err := ProcessCPUSeconds(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if _, err := ProcessCPUSeconds(-1); err == nil {
		t.Fatal("want error for pid -1")
	}
}
