package runner

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuilder is a strings.Builder safe for the heartbeat's goroutine.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestHeartbeat: lines come while the step runs, none after stop, and
// stop may be called twice.
func TestHeartbeat(t *testing.T) {
	var out lockedBuilder
	stop := Heartbeat(&out, "building the JVM runner", 10*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(out.String(), "\n") < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	stop()
	got := out.String()
	if n := strings.Count(got, "\n"); n < 2 {
		t.Fatalf("%d lines in 5 s: %q", n, got)
	}
	for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
		if !strings.HasPrefix(l, "serbench: building the JVM runner, ") || !strings.HasSuffix(l, " so far") {
			t.Errorf("line %q", l)
		}
	}
	time.Sleep(30 * time.Millisecond)
	if out.String() != got {
		t.Error("a line after stop")
	}
}
