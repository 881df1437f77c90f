package pgserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes the test binary, re-executed by TestOwnerKilled, act as
// the owner of a server started in the directory it names.
const helperEnv = "PGSERVER_TEST_OWNER_BASE"

// TestHelperOwner is not a test: run by TestOwnerKilled in a child process,
// it starts a server, starts a long query on it, prints
// "ready <postmaster pid> <backend pid> <dir>" and waits to be killed.
func TestHelperOwner(t *testing.T) {
	base := os.Getenv(helperEnv)
	if base == "" {
		t.Skip("helper process for TestOwnerKilled")
	}
	ctx := context.Background()
	s, err := Start(ctx, Options{BaseDir: base})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	conn, err := s.Connect(ctx)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	// A busy loop: unlike pg_sleep, it never checks for postmaster death.
	go func() { _, _ = conn.Exec(ctx, "DO $$ BEGIN LOOP END LOOP; END $$") }()
	time.Sleep(200 * time.Millisecond) // let the loop start
	fmt.Printf("ready %d %d %s\n", s.PID(), backend, s.SocketDir())
	select {}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// TestOwnerKilled SIGKILLs a process owning a server whose backend is busy
// with a long query: the postmaster and the backend must go away on their
// own, and the next Start in the same base directory removes the data
// directory left behind, but not that of a live owner.
func TestOwnerKilled(t *testing.T) {
	skipWithoutBinaries(t)
	base := t.TempDir()
	for d := base; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()) && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil { // the server user must traverse it
			t.Fatal(err)
		}
	}
	// A live server in the same base must survive the clean-up.
	live, err := Start(context.Background(), Options{BaseDir: base})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Stop()

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOwner$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+base)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var postmaster, backend int
	var dir string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "error") {
			_ = cmd.Process.Kill()
			t.Fatalf("helper: %s", line)
		}
		if _, err := fmt.Sscanf(line, "ready %d %d %s", &postmaster, &backend, &dir); err == nil {
			break
		}
	}
	if postmaster == 0 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatal("helper did not start a server")
	}
	t.Cleanup(func() {
		// Whatever the outcome, leave nothing running.
		for _, pid := range []int{postmaster, backend} {
			if alive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	if !alive(postmaster) || !alive(backend) {
		t.Fatalf("postmaster %d or backend %d not running before the kill", postmaster, backend)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	deadline := time.Now().Add(20 * time.Second)
	for alive(postmaster) || alive(backend) {
		if time.Now().After(deadline) {
			t.Fatalf("20 s after its owner died: postmaster %d alive %v, backend %d alive %v", postmaster, alive(postmaster), backend, alive(backend))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the dead owner's directory %s: %v (expected until the next Start)", dir, err)
	}

	s, err := Start(context.Background(), Options{BaseDir: base})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead owner's directory %s survives the next Start: %v", dir, err)
	}
	// The live server was left alone.
	conn, err := live.Connect(context.Background())
	if err != nil {
		t.Fatalf("live server harmed by the clean-up: %v", err)
	}
	_ = conn.Close(context.Background())
	if _, err := os.Stat(live.SocketDir()); err != nil {
		t.Errorf("live server's directory: %v", err)
	}
}
