package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Runner says how to start one runner process.
type Runner struct {
	// Name is the runner's name as its hello says it ("jvm").
	Name string
	// Command starts the runner; the protocol's arguments follow it.
	Command []string
	// Env is added to the inherited environment.
	Env []string
	// Silence is how long a runner may write nothing before it is taken
	// to hang and stopped (default DefaultSilence).
	Silence time.Duration
	// keep keeps every output line in the invocation (Conform checks
	// each against the protocol's schema).
	keep bool
}

// DefaultSilence is how long a runner may be silent by default: longer
// than any one sample or verification of the workloads' cases.
const DefaultSilence = 3 * time.Minute

// stopGrace is how long a stopped runner gets between SIGTERM and
// SIGKILL (§5 of the protocol).
const stopGrace = 5 * time.Second

// stderrTail is how much of a runner's standard error is kept to explain
// a failure.
const stderrTail = 64 << 10

// Hello starts the runner with `hello` and returns what it announces.
func (r *Runner) Hello(ctx context.Context) (*Hello, error) {
	inv, err := r.invoke(ctx, "", []string{"hello", "--protocol", strconv.Itoa(Protocol)}, nil)
	if err != nil {
		return nil, err
	}
	if inv.hello == nil {
		return nil, fmt.Errorf("runner %s: %s", r.Name, inv.failure())
	}
	return inv.hello, nil
}

// invocation is what one run of a runner produced.
type invocation struct {
	hello *Hello
	// verify, samples and errors by case id, in the order written.
	verify  map[string]*line
	samples map[string][]*line
	errs    map[string]string
	// hold are the cases whose error line says cannot_hold.
	hold map[string]bool
	// fatal is the runner's own error line, or why the output was cut
	// (a garbled line, a hang); exit the process's exit error.
	fatal string
	end   bool
	// onSample, when set, is called with a case's id after each of its
	// sample lines.
	onSample func(id string)
	// lines are the output lines read, when the Runner keeps them.
	lines  [][]byte
	exit   error
	stderr string
}

// failure says in one line why a case got no result.
func (inv *invocation) failure() string {
	var why string
	switch {
	case inv.fatal != "":
		why = inv.fatal
	case inv.exit != nil && !inv.end:
		why = "runner crashed (" + inv.exit.Error() + ")"
	case !inv.end:
		why = "runner stopped without its end line"
	default:
		why = "runner reported nothing for this case"
	}
	if t := lastLine(inv.stderr); t != "" {
		why += "; its stderr ends: " + t
	}
	return why
}

// lastLine is the last non-empty line of s, cut to 300 bytes.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 300 {
		l = l[:300] + "…"
	}
	return l
}

// tail keeps the last n bytes written to it.
type tail struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.n {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.n:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// invoke runs the runner with args in work (the process's directory,
// when set) and reads its lines until it exits, hangs past Silence or
// writes something that is not the protocol. It returns an error only
// when the process cannot be started; everything else is in the
// invocation.
func (r *Runner) invoke(ctx context.Context, work string, args []string, onSample func(id string)) (*invocation, error) {
	if len(r.Command) == 0 {
		return nil, errors.New("runner: no command")
	}
	cmd := exec.Command(r.Command[0], append(r.Command[1:], args...)...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), r.Env...)
	cmd.Env = append(cmd.Env, "SERBENCH_PROTOCOL="+strconv.Itoa(Protocol), "TZ=UTC", "LC_ALL=C.UTF-8")
	if work != "" {
		abs, err := filepath.Abs(work)
		if err != nil {
			return nil, fmt.Errorf("runner %s: %w", r.Name, err)
		}
		cmd.Env = append(cmd.Env, "SERBENCH_WORK="+abs)
	}
	// Its own process group: a stop reaches the runner's children too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	errTail := &tail{n: stderrTail}
	cmd.Stderr = errTail
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("runner %s: %w", r.Name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("runner %s: start %s: %w", r.Name, r.Command[0], err)
	}
	inv := &invocation{verify: map[string]*line{}, samples: map[string][]*line{}, errs: map[string]string{}, hold: map[string]bool{}, onSample: onSample}
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(out, 64<<10)
		for {
			b, err := readLine(br)
			if len(b) > 0 {
				lines <- b
			}
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				readErr <- err
				close(lines)
				return
			}
		}
	}()
	silence := r.Silence
	if silence <= 0 {
		silence = DefaultSilence
	}
	stopped := false
	stop := func(why string) {
		if stopped {
			return
		}
		stopped = true
		if inv.fatal == "" && why != "" {
			inv.fatal = why
		}
		pgid := -cmd.Process.Pid
		_ = syscall.Kill(pgid, syscall.SIGTERM)
		go func() {
			time.Sleep(stopGrace)
			_ = syscall.Kill(pgid, syscall.SIGKILL)
		}()
	}
	timer := time.NewTimer(silence)
	defer timer.Stop()
	done := ctx.Done()
read:
	for {
		select {
		case b, ok := <-lines:
			if !ok {
				break read
			}
			timer.Reset(silence)
			if stopped || inv.end {
				continue // drain: output after end (or a stop) is ignored
			}
			if r.keep {
				inv.lines = append(inv.lines, slices.Clone(b))
			}
			if err := inv.take(b); err != nil {
				stop(fmt.Sprintf("runner %s wrote %v", r.Name, err))
			}
		case <-timer.C:
			stop(fmt.Sprintf("runner %s wrote nothing for %s and was stopped (a hang)", r.Name, silence))
			timer.Reset(silence)
		case <-done:
			done = nil
			stop("interrupted")
		}
	}
	if err := <-readErr; err != nil && inv.fatal == "" {
		inv.fatal = fmt.Sprintf("runner %s: reading its output: %v", r.Name, err)
	}
	inv.exit = cmd.Wait()
	inv.stderr = errTail.String()
	return inv, nil
}

// readLine reads one line of at most maxLine bytes without its newline.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		part, err := br.ReadSlice('\n')
		buf = append(buf, part...)
		if len(buf) > maxLine {
			return buf[:maxLine], fmt.Errorf("a line longer than %d bytes", maxLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}

// take files one output line.
func (inv *invocation) take(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	l, err := parseLine(b)
	if err != nil {
		return err
	}
	if inv.hello == nil && l.Type != "hello" {
		return fmt.Errorf("a %s line before its hello line", l.Type)
	}
	switch l.Type {
	case "hello":
		if inv.hello != nil {
			return errors.New("a second hello line")
		}
		var h Hello
		if err := json.Unmarshal(b, &h); err != nil {
			return fmt.Errorf("a bad hello line: %v", err)
		}
		if h.Protocol != Protocol {
			return fmt.Errorf("hello with protocol %d: serbench speaks protocol %d (rebuild the runner from this serbench's sources, or use a serbench that speaks %d)", h.Protocol, Protocol, h.Protocol)
		}
		inv.hello = &h
	case "verify":
		if inv.verify[l.Case] != nil {
			return fmt.Errorf("a second verify line for case %q", l.Case)
		}
		inv.verify[l.Case] = l
	case "sample":
		if inv.verify[l.Case] == nil || !*inv.verify[l.Case].OK {
			return fmt.Errorf("a sample of case %q before it verified ok", l.Case)
		}
		inv.samples[l.Case] = append(inv.samples[l.Case], l)
		if inv.onSample != nil {
			inv.onSample(l.Case)
		}
	case "error":
		if l.Case == "" {
			inv.fatal = "runner error: " + l.Message
			return nil
		}
		inv.errs[l.Case] = fmt.Sprintf("%s (%s)", l.Message, l.Phase)
		inv.hold[l.Case] = l.CannotHold
	case "end":
		inv.end = true
	}
	return nil
}
