package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Writer appends a run to a JSON Lines stream: the environment first, then
// one line per case, each flushed (and synced, for files) as soon as it is
// written so that an interrupted run keeps every finished case.
// It is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	w   *bufio.Writer
	f   *os.File
	err error
}

// Create creates (or truncates) path and returns a Writer on it.
func Create(path string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	return &Writer{w: bufio.NewWriter(f), f: f}, nil
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// WriteEnv writes the environment line.
func (w *Writer) WriteEnv(e Env) error {
	e.Kind = KindEnv
	return w.writeLine(e)
}

// WriteCase writes one case line and flushes it.
func (w *Writer) WriteCase(c Case) error {
	c.Kind = KindCase
	if err := c.validate(); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return w.writeLine(c)
}

func (w *Writer) writeLine(v any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("results: encode: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("results: write: %w", err)
		return w.err
	}
	if err := w.w.Flush(); err != nil {
		w.err = fmt.Errorf("results: write: %w", err)
		return w.err
	}
	return nil
}

// Close flushes and closes the underlying file, if the Writer owns one.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.w.Flush()
	if w.f != nil {
		if cerr := w.f.Close(); err == nil {
			err = cerr
		}
		w.f = nil
	}
	if err != nil {
		return fmt.Errorf("results: close: %w", err)
	}
	return nil
}

// ReadFile reads a results file. Errors name the file and line.
func ReadFile(path string) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}

// ErrNotResults is wrapped by errors for input that is not a serbench
// results file.
var ErrNotResults = errors.New("not a serbench results file")

// Read parses a results stream; name is used in error messages.
func Read(r io.Reader, name string) (*Run, error) {
	run := &Run{File: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	line := 0
	sawEnv := false
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var head struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return nil, fmt.Errorf("%s:%d: %w: %v", name, line, ErrNotResults, err)
		}
		switch head.Kind {
		case KindEnv:
			if sawEnv {
				return nil, fmt.Errorf("%s:%d: second environment line", name, line)
			}
			if err := json.Unmarshal(b, &run.Env); err != nil {
				return nil, fmt.Errorf("%s:%d: bad environment line: %v", name, line, err)
			}
			sawEnv = true
		case KindCase:
			if !sawEnv {
				return nil, fmt.Errorf("%s:%d: %w: a case before the environment line", name, line, ErrNotResults)
			}
			var c Case
			if err := json.Unmarshal(b, &c); err != nil {
				return nil, fmt.Errorf("%s:%d: bad case line: %v", name, line, err)
			}
			if err := c.validate(); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, line, err)
			}
			if c.Status == StatusOK {
				c.Summarize()
			}
			run.Cases = append(run.Cases, c)
		default:
			return nil, fmt.Errorf("%s:%d: %w: unknown kind %q (want %q or %q)", name, line, ErrNotResults, head.Kind, KindEnv, KindCase)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if !sawEnv {
		return nil, fmt.Errorf("%s: %w: no environment line", name, ErrNotResults)
	}
	return run, nil
}
