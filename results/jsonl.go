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
// one line per case, each handed to the operating system in one write as
// soon as it is complete, so that a run interrupted or killed keeps every
// finished case. Lines are not fsynced: after a power cut the file may end
// early or in a cut line, which readers drop and RepairTail removes.
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

// Append opens an existing results file for appending (to resume a run)
// and returns a Writer on it.
func Append(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
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
	e.Schema = SchemaVersion
	return w.writeLine(e)
}

// WriteDescriptor writes one descriptor line.
func (w *Writer) WriteDescriptor(d Descriptor) error {
	d.Kind = KindDescriptor
	if err := d.validate(); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return w.writeLine(d)
}

// WriteSection writes one declared report section: v is a value whose
// JSON has "workload" and "title" (a table.Section). Its kind is set
// here; the results package keeps its content as it is, for the report to
// read.
func (w *Writer) WriteSection(workload string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("results: encode section: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("results: section is no JSON object: %w", err)
	}
	m["kind"], _ = json.Marshal(KindSection)
	m["workload"], _ = json.Marshal(workload)
	return w.writeLine(m)
}

// WriteEnd writes the end line.
func (w *Writer) WriteEnd(e End) error {
	e.Kind = KindEnd
	return w.writeLine(e)
}

// WriteProbe writes one probe line.
func (w *Writer) WriteProbe(p Probe) error {
	p.Kind = KindProbe
	return w.writeLine(p)
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
//
// A last line cut short (a run killed while writing it: no newline, and
// not JSON) is dropped with a warning in Run.Warnings; every complete line
// before it is kept. Files of a newer schema than this build knows are
// refused, and so are lines that parse but cannot be true — a schema that
// is no version, a sample whose ns/op is not positive or longer than any
// sample takes, negative B/op or counts — with the file and line, as
// malformed lines are.
func Read(r io.Reader, name string) (*Run, error) {
	run := &Run{File: name}
	br := bufio.NewReaderSize(r, 64<<10)
	line := 0
	sawEnv := false
	for {
		b, rerr := br.ReadBytes('\n')
		if rerr != nil && rerr != io.EOF {
			return nil, fmt.Errorf("%s:%d: %w", name, line+1, rerr)
		}
		complete := rerr == nil
		if len(b) == 0 && !complete {
			break
		}
		line++
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			if !complete {
				break
			}
			continue
		}
		if err := readLine(run, b, &sawEnv); err != nil {
			if !complete && sawEnv && !json.Valid(b) {
				// The writer ends every line with a newline and syncs it:
				// an unterminated line that is not JSON was cut. One that
				// is JSON was not cut short: it is wrong, as it would be
				// with its newline.
				run.Warnings = append(run.Warnings, fmt.Sprintf("%s:%d: last line cut short (the run was killed while writing it); dropped", name, line))
				break
			}
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if !complete {
			break
		}
	}
	if !sawEnv {
		return nil, fmt.Errorf("%s: %w: no environment line", name, ErrNotResults)
	}
	return run, nil
}

// readLine parses one non-empty line into run.
func readLine(run *Run, b []byte, sawEnv *bool) error {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return fmt.Errorf("%w: %v", ErrNotResults, err)
	}
	switch head.Kind {
	case KindEnv, KindDescriptor, KindSection, KindCase, KindEnd, KindProbe:
	default:
		return fmt.Errorf("%w: unknown kind %q (want %s, %s, %s, %s, %s or %s)", ErrNotResults, head.Kind, KindEnv, KindDescriptor, KindSection, KindCase, KindProbe, KindEnd)
	}
	if head.Kind != KindEnv && !*sawEnv {
		return fmt.Errorf("%w: a %s line before the environment line", ErrNotResults, head.Kind)
	}
	switch head.Kind {
	case KindEnv:
		if *sawEnv {
			return errors.New("second environment line")
		}
		// A file written before versions were recorded has no schema
		// field and is read as version 1; a field that is there must be a
		// version. Unmarshal leaves an int alone for both a missing field
		// and null: the raw value tells them apart.
		var raw struct {
			Schema json.RawMessage `json:"schema"`
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			return fmt.Errorf("bad environment line: %v", err)
		}
		if err := json.Unmarshal(b, &run.Env); err != nil {
			return fmt.Errorf("bad environment line: %v", err)
		}
		switch {
		case raw.Schema == nil:
			run.Env.Schema = 1
		case string(bytes.TrimSpace(raw.Schema)) == "null":
			return errors.New("bad environment line: schema is null (a file before versions were recorded has no schema field; versions start at 1)")
		case run.Env.Schema < 1:
			return fmt.Errorf("bad environment line: schema %d is not a version (versions start at 1)", run.Env.Schema)
		case run.Env.Schema > SchemaVersion:
			return fmt.Errorf("results schema %d is newer than this serbench reads (%d): use a newer serbench", run.Env.Schema, SchemaVersion)
		}
		if err := run.Env.validate(); err != nil {
			return fmt.Errorf("bad environment line: %w", err)
		}
		*sawEnv = true
	case KindDescriptor:
		var d Descriptor
		if err := json.Unmarshal(b, &d); err != nil {
			return fmt.Errorf("bad descriptor line: %v", err)
		}
		if err := d.validate(); err != nil {
			return err
		}
		run.Descriptors = append(run.Descriptors, d)
	case KindSection:
		var s struct {
			Workload string `json:"workload"`
			Title    string `json:"title"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("bad section line: %v", err)
		}
		if s.Workload == "" || s.Title == "" {
			return errors.New("bad section line: no workload or title")
		}
		run.Sections = append(run.Sections, Section{Workload: s.Workload, Title: s.Title, JSON: append(json.RawMessage(nil), b...)})
	case KindCase:
		var c Case
		if err := json.Unmarshal(b, &c); err != nil {
			return fmt.Errorf("bad case line: %v", err)
		}
		if err := c.validateShape(); err != nil {
			return err
		}
		if err := c.validateValues(); err != nil {
			return fmt.Errorf("bad case line: %w", err)
		}
		if run.Env.Schema < 2 {
			migrateV1(&c)
		}
		if c.Status == StatusOK {
			c.Summarize()
		}
		run.Cases = append(run.Cases, c)
	case KindProbe:
		var p Probe
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("bad probe line: %v", err)
		}
		if err := p.validate(); err != nil {
			return fmt.Errorf("bad probe line: %w", err)
		}
		run.Probes = append(run.Probes, p)
	case KindEnd:
		var e End
		if err := json.Unmarshal(b, &e); err != nil {
			return fmt.Errorf("bad end line: %v", err)
		}
		if err := e.validate(); err != nil {
			return fmt.Errorf("bad end line: %w", err)
		}
		run.End = &e
	}
	return nil
}

// migrateV1 reads a schema-1 case in today's terms: the subject was
// labelled "format" (records) or "method" (pgscan), and a limit row was
// marked by the note "limit row".
func migrateV1(c *Case) {
	if !c.Labels.Has("subject") {
		for i, l := range c.Labels {
			if l.Key == "format" || l.Key == "method" {
				c.Labels[i].Key = "subject"
				break
			}
		}
	}
	if c.Role == "" {
		c.Role = RoleSubject
		for _, n := range c.Notes {
			if n == "limit row" {
				c.Role = RoleLimit
			}
		}
	}
}
