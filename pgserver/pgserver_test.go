package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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

// TestOnlyItsOwnerGetsIn knocks on the server's doors the way another
// local user would: TCP without the password or with a wrong one, and
// (when the test runs as root) psql as the unprivileged user nobody over
// the unix socket and over TCP. COPY … TO PROGRAM would run commands as
// the server's OS user, so every knock must be refused; the owner's DSN
// gets in.
func TestOnlyItsOwnerGetsIn(t *testing.T) {
	skipWithoutBinaries(t)
	ctx := context.Background()
	s, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if len(s.Password()) < 32 {
		t.Fatalf("password %q: want 128 random bits", s.Password())
	}
	if !strings.Contains(s.DSN(), s.Password()) {
		t.Fatal("DSN lacks the password")
	}
	for _, tc := range []struct {
		name, dsn string
	}{
		{"tcp without password", fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", s.Superuser(), s.Port())},
		{"tcp wrong password", fmt.Sprintf("postgres://%s:wrong@127.0.0.1:%d/postgres?sslmode=disable", s.Superuser(), s.Port())},
		{"tcp as another role", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.Port())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PGPASSWORD", "")
			t.Setenv("PGPASSFILE", "/nonexistent")
			c, err := pgx.Connect(ctx, tc.dsn)
			if err == nil {
				c.Close(ctx)
				t.Fatal("connected")
			}
		})
	}
	for _, dsn := range []string{s.DSN(), s.SocketDSN()} {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("the owner's %s: %v", redacted(dsn, s.Password()), err)
		}
		c.Close(ctx)
	}

	if os.Geteuid() != 0 {
		t.Log("not root: cannot knock as another OS user")
		return
	}
	bin, _ := FindBinaries("")
	psql := filepath.Join(bin, "psql")
	if _, err := os.Stat(psql); err != nil {
		t.Skipf("no psql next to the server binaries: %v", err)
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no user nobody: %v", err)
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	// Any statement that runs means nobody got in (and could have run
	// COPY … TO PROGRAM).
	const sql = "SELECT 1"
	for _, host := range []string{s.SocketDir(), "127.0.0.1"} {
		cmd := exec.Command(psql, "-w", "-h", host, "-p", strconv.Itoa(s.Port()), "-U", s.Superuser(), "-d", "postgres", "-c", sql)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("nobody got in over %s: %s", host, out)
		}
		t.Logf("nobody over %s: %v: %s", host, err, strings.TrimSpace(string(out)))
	}
}

// results hides the password in a DSN for a test's message.
func redacted(dsn, password string) string { return strings.ReplaceAll(dsn, password, "xxxxx") }
