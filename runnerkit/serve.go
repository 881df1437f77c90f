package runnerkit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/digest"
	"github.com/serbench/serbench/runner"
)

// Serve speaks the runner protocol (docs/runner-protocol.md, version
// runner.Protocol) for subjects, as the runner called name: args are the
// runner's arguments ("hello --protocol 1", "run --protocol 1 --work
// WORK"), the protocol's lines go to stdout and anything else to stderr.
// It returns the process's exit status (§5): 0 when every case was
// measured or refused with an error line, 1 when the work directory
// cannot be read, 2 for a protocol it does not speak or bad arguments.
func Serve(ctx context.Context, name string, args []string, stdout, stderr io.Writer, subjects ...Subject) int {
	s := &server{name: name, out: bufio.NewWriter(stdout), stderr: stderr, subjects: subjects, codecs: codec.Default()}
	defer s.out.Flush()
	if len(args) == 0 || (args[0] != "hello" && args[0] != "run") {
		fmt.Fprintf(stderr, "%s: usage: %s hello --protocol %d | run --protocol %d --work WORK\n", name, name, runner.Protocol, runner.Protocol)
		return 2
	}
	protocol, work := runner.Protocol, os.Getenv("SERBENCH_WORK")
	for i := 1; i+1 < len(args); i += 2 {
		switch args[i] {
		case "--protocol":
			if _, err := fmt.Sscan(args[i+1], &protocol); err != nil {
				protocol = -1
			}
		case "--work":
			work = args[i+1]
		}
	}
	s.hello()
	if protocol != runner.Protocol {
		s.emit(map[string]any{"type": "error", "phase": "setup", "message": fmt.Sprintf("protocol %d requested, this runner speaks %d", protocol, runner.Protocol)})
		return 2
	}
	if args[0] == "hello" {
		s.emit(map[string]any{"type": "end", "cases": 0, "failed": 0})
		return 0
	}
	if err := s.run(ctx, work); err != nil {
		s.emit(map[string]any{"type": "error", "phase": "setup", "message": err.Error()})
		return 1
	}
	return 0
}

// server is one invocation of the protocol.
type server struct {
	name     string
	out      *bufio.Writer
	stderr   io.Writer
	subjects []Subject
	codecs   *codec.Registry
	data     map[string]arrow.RecordBatch
	// encoded keeps each verified case's encoded bytes, for the copy
	// limit rows that name it.
	encoded map[string][]byte
	failed  int
}

// emit writes one protocol line and flushes it: a crash must not lose
// lines already produced.
func (s *server) emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"type": "error", "phase": "setup", "message": err.Error()})
	}
	s.out.Write(append(b, '\n'))
	s.out.Flush()
}

func (s *server) hello() {
	var subs []map[string]any
	for _, sub := range s.subjects {
		d := describe(sub)
		subs = append(subs, map[string]any{"name": sub.Name(), "format": d.Format, "library": d.Library, "version": d.Version,
			"ops": []string{runner.OpEncode, runner.OpDecode}, "codecs": s.codecs.Names(),
			"codec_library": "serbench's Go codecs (github.com/klauspost/compress and others)", "labels": d.Labels})
	}
	s.emit(map[string]any{"type": "hello", "protocol": runner.Protocol, "runner": s.name, "language": "go",
		"runtime": "go", "runtime_version": runtime.Version(), "vm_flags": []string{"GOMAXPROCS=" + fmt.Sprint(runtime.GOMAXPROCS(0))},
		"os": runtime.GOOS, "arch": runtime.GOARCH, "alloc": "process", "subjects": subs})
}

// run measures every case of the work directory, group by group.
func (s *server) run(ctx context.Context, work string) error {
	if work == "" {
		return errors.New("no work directory (--work or SERBENCH_WORK)")
	}
	var settings runner.Settings
	b, err := os.ReadFile(filepath.Join(work, "run.json"))
	if err != nil {
		return fmt.Errorf("run.json: %w", err)
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		return fmt.Errorf("run.json: %w", err)
	}
	cases, err := readCases(filepath.Join(work, "cases.jsonl"))
	if err != nil {
		return err
	}
	s.data, s.encoded = map[string]arrow.RecordBatch{}, map[string][]byte{}
	defer func() {
		for _, r := range s.data {
			r.Release()
		}
	}()
	for start := 0; start < len(cases); {
		end := start + 1
		for end < len(cases) && cases[start].Group != "" && cases[end].Group == cases[start].Group {
			end++
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		s.group(work, settings, cases[start:end])
		start = end
	}
	s.emit(map[string]any{"type": "end", "cases": len(cases), "failed": s.failed})
	return nil
}

// readCases reads cases.jsonl.
func readCases(path string) ([]runner.Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cases.jsonl: %w", err)
	}
	defer f.Close()
	var out []runner.Case
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var c runner.Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("cases.jsonl: %w", err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cases.jsonl: %w", err)
	}
	return out, nil
}

// member is one case of a group, set up and verified.
type member struct {
	c     runner.Case
	op    func() error
	bytes int
	iters int64
	// samples taken, and their total timed duration.
	taken int
	total time.Duration
}

// wants reports whether m takes another sample (§4.3).
func (m *member) wants(count int) bool {
	n := m.c.Count
	if n <= 0 {
		n = count
	}
	return m.taken < n && (m.taken < max(m.c.MinCount, 1) || m.c.BudgetNs <= 0 || m.total < time.Duration(m.c.BudgetNs))
}

// group sets up, verifies, calibrates and samples the cases of one group.
func (s *server) group(work string, settings runner.Settings, cases []runner.Case) {
	var ms []*member
	for _, c := range cases {
		m, err := s.setup(work, c)
		if err != nil {
			s.failed++
			if !errors.Is(err, errVerified) {
				s.emit(map[string]any{"type": "error", "case": c.ID, "phase": "setup", "message": err.Error()})
			}
			continue
		}
		ms = append(ms, m)
	}
	for i := 0; i < len(ms); i++ {
		if err := ms[i].calibrate(settings); err != nil {
			s.failed++
			s.emit(map[string]any{"type": "error", "case": ms[i].c.ID, "phase": "calibrate", "message": err.Error()})
			ms = slices.Delete(ms, i, i+1)
			i--
		}
	}
	last := -1
	for round := 0; ; round++ {
		var order []int
		for k := range ms {
			if i := (k + round) % len(ms); ms[i].wants(settings.Count) {
				order = append(order, i)
			}
		}
		if len(order) == 0 {
			return
		}
		if len(order) > 1 && order[0] == last {
			order = append(order[1:], order[0])
		}
		for pos, i := range order {
			m := ms[i]
			runtime.GC()
			if m.c.PerRound > 1 {
				if err := m.times(m.iters); err != nil {
					s.drop(m, err)
					continue
				}
			}
			for burst := 0; burst < max(m.c.PerRound, 1) && m.wants(settings.Count); burst++ {
				if err := s.sample(m, round, pos); err != nil {
					s.drop(m, err)
					break
				}
			}
			last = i
		}
		ms = slices.DeleteFunc(ms, func(m *member) bool { return m.op == nil })
		if len(ms) == 0 {
			return
		}
	}
}

// drop reports a member's failure while measuring and takes it out of
// its group.
func (s *server) drop(m *member, err error) {
	s.failed++
	s.emit(map[string]any{"type": "error", "case": m.c.ID, "phase": "sample", "message": err.Error()})
	m.op = nil
	m.c.Count = m.taken // wants no more
}

// sample times m.iters calls of m's op and writes its sample line.
func (s *server) sample(m *member, round, pos int) error {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	t0 := time.Now()
	err := m.times(m.iters)
	d := time.Since(t0)
	runtime.ReadMemStats(&after)
	if err != nil {
		return err
	}
	m.taken++
	m.total += d
	n := float64(m.iters)
	s.emit(map[string]any{"type": "sample", "case": m.c.ID, "round": round + 1, "order": pos, "iters": m.iters,
		"ns_per_op": max(float64(d.Nanoseconds())/n, 1e-3), "bytes_per_op": m.bytes,
		"alloc_bytes_per_op": float64(after.TotalAlloc-before.TotalAlloc) / n, "allocs_per_op": float64(after.Mallocs-before.Mallocs) / n})
	return nil
}

// times calls m's op n times.
func (m *member) times(n int64) error {
	for range n {
		if err := m.op(); err != nil {
			return err
		}
	}
	return nil
}

// calibrate finds m's iteration count by testing.B's rule (§4.3 step 2).
func (m *member) calibrate(settings runner.Settings) error {
	bt := time.Duration(settings.BenchtimeNs)
	maxIters := settings.MaxIters
	if maxIters <= 0 {
		maxIters = 1e9
	}
	n := int64(1)
	for {
		t0 := time.Now()
		if err := m.times(n); err != nil {
			return err
		}
		el := time.Since(t0)
		if el >= bt || n >= maxIters {
			break
		}
		next := int64(bt) * n / max(int64(el), 1)
		next += next / 5
		next = min(next, 100*n)
		next = max(next, n+1)
		next = min(next, maxIters)
		n = next
	}
	m.iters = n
	return nil
}

// setup prepares and verifies one case, writing its verify line.
func (s *server) setup(work string, c runner.Case) (*member, error) {
	if len(c.Params) > 0 {
		keys := make([]string, 0, len(c.Params))
		for k := range c.Params {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return nil, fmt.Errorf("unknown param %q (this runner takes none)", keys[0])
	}
	if c.Op == runner.OpCopy {
		src, ok := s.encoded[c.LimitOf]
		if !ok {
			return nil, fmt.Errorf("limit_of %s: no encoded bytes from that case (unknown or failed)", c.LimitOf)
		}
		dst := make([]byte, len(src))
		copy(dst, src)
		if !slices.Equal(dst, src) {
			return nil, errors.New("copy differs from its source")
		}
		s.emit(map[string]any{"type": "verify", "case": c.ID, "ok": true, "encoded_bytes": len(src), "digest": nil})
		return &member{c: c, bytes: len(src), op: func() error { copy(dst, src); return nil }}, nil
	}
	var sub Subject
	for _, x := range s.subjects {
		if x.Name() == c.Subject {
			sub = x
		}
	}
	if sub == nil {
		return nil, fmt.Errorf("unknown subject %q", c.Subject)
	}
	if c.Op != runner.OpEncode && c.Op != runner.OpDecode {
		return nil, fmt.Errorf("unknown op %q for subject %s (it supports encode, decode)", c.Op, c.Subject)
	}
	var cd codec.Codec
	if c.Codec != "" && c.Codec != "none" {
		var err error
		if cd, err = s.codecs.Parse(c.Codec); err != nil {
			return nil, fmt.Errorf("codec %q: %w", c.Codec, err)
		}
	}
	rec, err := s.dataset(work, c.Dataset)
	if err != nil {
		return nil, err
	}
	raw, err := sub.Encode(nil, rec)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	enc := raw
	if cd != nil {
		if enc, err = cd.Encode(nil, raw); err != nil {
			return nil, fmt.Errorf("compress: %w", err)
		}
	}
	// Verify: decompress, decode, digest what came back.
	back := enc
	if cd != nil {
		if back, err = cd.Decode(nil, enc); err != nil {
			return nil, fmt.Errorf("decompress: %w", err)
		}
	}
	got, err := sub.Decode(back)
	if err != nil {
		s.emit(map[string]any{"type": "verify", "case": c.ID, "ok": false, "reason": "decode: " + err.Error()})
		return nil, errVerified
	}
	d, err := digest.Batches(got.Schema(), got)
	got.Release()
	if err != nil {
		return nil, fmt.Errorf("digest: %w", err)
	}
	s.emit(map[string]any{"type": "verify", "case": c.ID, "ok": true, "encoded_bytes": len(enc), "digest": d})
	s.encoded[c.ID] = enc
	m := &member{c: c, bytes: len(enc)}
	var buf, cbuf, dbuf []byte
	switch c.Op {
	case runner.OpEncode:
		m.op = func() error {
			var err error
			if buf, err = sub.Encode(buf[:0], rec); err != nil {
				return err
			}
			if cd != nil {
				cbuf, err = cd.Encode(cbuf[:0], buf)
			}
			return err
		}
	default:
		m.op = func() error {
			src := enc
			if cd != nil {
				var err error
				if dbuf, err = cd.Decode(dbuf[:0], enc); err != nil {
					return err
				}
				src = dbuf
			}
			r, err := sub.Decode(src)
			if err != nil {
				return err
			}
			r.Release()
			return nil
		}
	}
	return m, nil
}

// errVerified is setup's error for a case whose verify line (ok: false)
// is already written: no error line follows it.
var errVerified = errors.New("verify failed")

// dataset is the rows of WORK/datasets/name/data.arrows as one record
// batch, read once.
func (s *server) dataset(work, name string) (arrow.RecordBatch, error) {
	if r, ok := s.data[name]; ok {
		return r, nil
	}
	f, err := os.Open(filepath.Join(work, "datasets", name, "data.arrows"))
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", name, err)
	}
	defer f.Close()
	rd, err := ipc.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", name, err)
	}
	defer rd.Release()
	var recs []arrow.RecordBatch
	for rd.Next() {
		r := rd.RecordBatch()
		r.Retain()
		recs = append(recs, r)
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("dataset %s: %w", name, err)
	}
	rec, err := concat(rd.Schema(), recs)
	for _, r := range recs {
		r.Release()
	}
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", name, err)
	}
	s.data[name] = rec
	return rec, nil
}

// concat joins record batches of one schema into one.
func concat(schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, schema.NumFields())
	rows := int64(0)
	for _, r := range recs {
		rows += r.NumRows()
	}
	for j := range cols {
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(j)
		}
		if len(parts) == 0 {
			b := array.NewBuilder(memory.DefaultAllocator, schema.Field(j).Type)
			cols[j] = b.NewArray()
			b.Release()
			continue
		}
		c, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		cols[j] = c
	}
	rec := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}
