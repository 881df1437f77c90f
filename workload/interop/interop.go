// Package interop builds the interop matrix — who reads whose files — across
// Go and the runners' languages (issues 24 and 25, item 4). For every file
// format that Go and the runners share (JSON Lines, MessagePack, CBOR, Avro
// OCF, Parquet, Arrow IPC), each writer (Go's schema-driven format from
// format/dynamic, and each runner subject of that format: java:jackson-json,
// python:orjson, …) writes the dataset to a file once, and every reader of
// that format in every language reads every file. Each read's digest (§7 of
// docs/runner-protocol.md) is compared with the Go side's digest of the
// dataset: a cell is ok when they agree, else ✗ with a one-line reason (the
// reader's error, or the columns that differ and, from their types, the
// likely cause: a timestamp unit, a logical type, a map's keys…).
//
// The runners take part through the optional protocol ops export and import
// (§10 of the protocol): all export cases of a runner run in one invocation,
// then all its import cases in a second one, so a runtime's start-up (the
// JVM's) is paid twice per runner, not once per cell.
//
// Protobuf is in the matrix only where the caller brings its Go side
// (Options.Extra, Protobuf): the runners' protobuf subjects are bound to
// classes generated from the nested workload's .proto files, so a
// protobuf file is only defined for the nested datasets, whose workload
// writes and reads it with the Go messages of the same files. For a
// user's file there is no message type both sides were built from.
//
// Matrix.Cases turns the cells into results.Case values (op=interop) that
// are recorded and rendered like any other result.
package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/serbench/serbench/digest"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/workload/userdata"
)

// Format is one file format of the matrix.
type Format struct {
	// Name is the matrix's name for the file format ("jsonl").
	Name string
	// Ext is the files' extension, without the dot.
	Ext string
	// Subjects are the runner subject formats (hello's subjects[].format)
	// whose export writes, and import reads, this file.
	Subjects []string
	// Go is the Go side's writer and reader of the file; nil when Go has
	// none.
	Go *GoFormat
	// Framing says what the file is, for reports.
	Framing string
}

// Formats returns the matrix's file formats, in report order. The framing
// of each is defined by §10 of the runner protocol.
func Formats() []Format {
	return []Format{
		{Name: "jsonl", Ext: "jsonl", Subjects: []string{"json"}, Go: goDynamic("jsonl", dynamic.NewJSONL),
			Framing: "JSON Lines: one object per row and line; timestamps RFC 3339 UTC text, dates YYYY-MM-DD, decimals text, binary base64"},
		{Name: "msgpack", Ext: "msgpack", Subjects: []string{"msgpack"}, Go: goDynamic("msgpack", dynamic.NewMsgpack),
			Framing: "MessagePack maps back to back, one per row"},
		{Name: "cbor", Ext: "cbor", Subjects: []string{"cbor"}, Go: goDynamic("cbor", dynamic.NewCBOR),
			Framing: "a CBOR sequence (RFC 8742) of maps, one per row"},
		{Name: "avro-ocf", Ext: "avro", Subjects: []string{"avro"}, Go: goUserdata("avro-ocf", dynamic.NewAvro, userdata.KindAvro, "format/dynamic's decoder accepts only a writer schema with its own fingerprint: its record names and nullability"),
			Framing: "an Avro object container file (codec null), the writer's schema in its header"},
		{Name: "parquet", Ext: "parquet", Subjects: []string{"parquet"}, Go: goUserdata("parquet", dynamic.NewParquet, userdata.KindParquet, "format/dynamic's decoder accepts only its own Arrow layout: not large_string or large_list"),
			Framing: "a Parquet file"},
		{Name: "arrow-ipc", Ext: "arrow", Subjects: []string{"arrow-ipc-stream", "arrow-ipc", "arrow-ipc-file", "arrow"}, Go: goArrowFile(),
			Framing: "the Arrow IPC file format (ARROW1 magic, footer)"},
	}
}

// Protobuf is the protobuf file format of the matrix, with g as its Go
// side: a dataset's rows as length-delimited messages of the generated
// type the dataset binds to (§10.3). Only a workload that has those
// messages can bring g; it passes the format in Options.Extra.
func Protobuf(g *GoFormat) Format {
	return Format{Name: "protobuf", Ext: "binpb", Subjects: []string{"protobuf"}, Go: g,
		Framing: "length-delimited messages (a uvarint size before each) of the dataset's message type generated from the same .proto file in every language"}
}

// FormatOf returns the matrix format a runner subject's format belongs to.
func FormatOf(subjectFormat string) (*Format, bool) {
	fs := Formats()
	for i := range fs {
		if slices.Contains(fs[i].Subjects, subjectFormat) {
			return &fs[i], true
		}
	}
	return nil, false
}

// Dataset is the data every writer writes.
type Dataset struct {
	// Name names the dataset (a directory name: letters, digits, '-', '_', '.').
	Name   string
	Schema *arrow.Schema
	// Batches hold the rows; they must have Schema.
	Batches []arrow.RecordBatch
}

// Rows is the dataset's row count.
func (d *Dataset) Rows() int64 {
	var n int64
	for _, b := range d.Batches {
		n += b.NumRows()
	}
	return n
}

// Party is one writer or reader: Go's format, or a runner's subject.
type Party struct {
	// Name is "go:<format>" or "<language>:<subject>".
	Name     string
	Language string
	// Subject is the runner's subject name ("" for Go).
	Subject string
	ready   *runner.Ready
}

// Status of a cell.
const (
	OK     = "ok"
	Failed = "✗"
	// CannotHold is a cell whose writer or reader cannot represent the
	// data in the format (a nested column in CSV, a year beyond 9999 in
	// text): the library's limit, said by it, not a failure to
	// interoperate.
	CannotHold = "–"
)

// Cell is one writer's file read by one reader.
type Cell struct {
	Format string
	Writer string
	Reader string
	// Status is OK, Failed or CannotHold.
	Status string
	// Reason says in one line why a cell is Failed or CannotHold.
	Reason string
	// Note says what an OK cell's reader saw that is not exactly the
	// dataset but what the format requires (names made Avro names).
	Note string
	// Bytes is the size of the writer's file (0 when none was written).
	Bytes int64
	// ReadNs is how long the reader took to read the file once (its own
	// clock; 0 when it did not say).
	ReadNs int64
	// WriterLanguage and ReaderLanguage are the parties' languages.
	WriterLanguage, ReaderLanguage string
}

// Matrix is the outcome of Run.
type Matrix struct {
	Dataset string
	Rows    int64
	// Cells in format order, then writer, then reader.
	Cells []Cell
	// Parties by format name, writers and readers alike.
	Parties map[string][]Party
	// Elapsed is the wall time of Run.
	Elapsed time.Duration
	// Invocations is the number of runner processes started.
	Invocations int
	// Notes says per format how Go reads other writers' files, when not
	// as it reads its own.
	Notes map[string]string
}

// Options configure Run.
type Options struct {
	// Formats restricts the matrix to these format names (nil: all).
	Formats []string
	// Extra are formats of this dataset only, after Formats' (Protobuf
	// for the nested datasets).
	Extra []Format
	// Log hears progress; nil: silent.
	Log func(format string, args ...any)
}

// Run builds the matrix of ds in dir (created if needed; the files stay
// there): Go writes each format's file, each runner exports its subjects'
// files in one invocation, then every reader reads every file of its
// format — Go in process, each runner in one import invocation. An error
// means the matrix could not be built at all (dir unusable, the dataset
// not digestible); everything else is a cell's reason.
func Run(ctx context.Context, ds Dataset, ready []runner.Ready, dir string, opt Options) (*Matrix, error) {
	t0 := time.Now()
	logf := opt.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	want, err := digest.Batches(ds.Schema, ds.Batches...)
	if err != nil {
		return nil, fmt.Errorf("interop: the dataset's digest: %w", err)
	}
	files := filepath.Join(dir, "files")
	if err := os.MkdirAll(files, 0o755); err != nil {
		return nil, fmt.Errorf("interop: %w", err)
	}
	m := &Matrix{Dataset: ds.Name, Rows: want.Rows, Parties: map[string][]Party{}, Notes: map[string]string{}}
	p := &plan{ds: ds, want: want, dir: dir, files: files, m: m, logf: logf,
		written: map[string]*written{}, reads: map[[2]string]*read{}}
	p.formats, m.Parties = parties(ready, opt)
	for _, f := range p.formats {
		if f.Go != nil && f.Go.Reader != "" {
			m.Notes[f.Name] = f.Go.Reader
		}
	}
	// 1. Go writes.
	for _, f := range p.formats {
		if f.Go != nil {
			p.goWrite(f)
		}
	}
	// 2. Each runner exports, in one invocation.
	for k := range ready {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.runnerExport(ctx, &ready[k])
	}
	// 3. Go reads every file of its formats.
	for _, f := range p.formats {
		if f.Go != nil {
			p.goReadAll(f)
		}
	}
	// 4. Each runner imports every other party's files, in one invocation.
	for k := range ready {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.runnerImport(ctx, &ready[k])
	}
	p.cells()
	m.Elapsed = time.Since(t0)
	return m, nil
}

// parties returns the matrix's formats (opt.Formats, nil: all, then
// opt.Extra) and, by format name, its writers and readers: Go's format and
// every runner subject of that format.
func parties(ready []runner.Ready, opt Options) ([]*Format, map[string][]Party) {
	var formats []*Format
	out := map[string][]Party{}
	fs := append(Formats(), opt.Extra...)
	for i := range fs {
		f := &fs[i]
		if i < len(fs)-len(opt.Extra) && opt.Formats != nil && !slices.Contains(opt.Formats, f.Name) {
			continue
		}
		formats = append(formats, f)
		var ps []Party
		if f.Go != nil {
			ps = append(ps, Party{Name: "go:" + f.Go.Name, Language: "go"})
		}
		for k := range ready {
			rd := &ready[k]
			for _, s := range rd.Hello.Subjects {
				// A parallel reader (label threads) reads its base
				// subject's files: it is that subject here. A subject
				// without the file ops (§10) writes and reads no file.
				if !slices.Contains(f.Subjects, s.Format) || s.Labels["threads"] != "" ||
					!slices.Contains(s.Ops, runner.OpExport) || !slices.Contains(s.Ops, runner.OpImport) {
					continue
				}
				ps = append(ps, Party{Name: rd.Hello.Language + ":" + s.Name, Language: rd.Hello.Language, Subject: s.Name, ready: rd})
			}
		}
		out[f.Name] = ps
	}
	return formats, out
}

// Plan lists the cells Run would decide with these runners and options'
// formats, in Run's order, without writing or reading anything: their
// Format, Writer, Reader and languages are set, their Status empty.
func Plan(ready []runner.Ready, opt Options) []Cell {
	fs, ps := parties(ready, opt)
	var out []Cell
	for _, f := range fs {
		for _, w := range ps[f.Name] {
			for _, r := range ps[f.Name] {
				out = append(out, Cell{Format: f.Name, Writer: w.Name, Reader: r.Name, WriterLanguage: w.Language, ReaderLanguage: r.Language})
			}
		}
	}
	return out
}

// written is one writer's file.
type written struct {
	path   string // absolute, under dir/files
	bytes  int64
	err    string // why there is no file (or it does not read back)
	hold   bool   // err is the writer's "cannot hold"
	ns     int64
	digest *digest.Result // the writer's own read-back, when it made one
}

// read is one reader's outcome on one file.
type read struct {
	err    string
	hold   bool // err is the reader's "cannot hold"
	ns     int64
	digest *digest.Result
}

type plan struct {
	ds      Dataset
	want    digest.Result
	dir     string
	files   string
	m       *Matrix
	logf    func(string, ...any)
	formats []*Format
	// written by format/writer; reads by {format/writer, reader}.
	written map[string]*written
	reads   map[[2]string]*read
}

func key(f *Format, party string) string { return f.Name + "/" + party }

// fileName is the file of writer w in format f: "jsonl.java-jackson-json.jsonl".
func fileName(f *Format, w string) string {
	return f.Name + "." + strings.NewReplacer(":", "-", "/", "-").Replace(w) + "." + f.Ext
}

// cells fills the matrix from what was written and read.
func (p *plan) cells() {
	for _, f := range p.formats {
		ps := p.m.Parties[f.Name]
		for _, w := range ps {
			wr := p.written[key(f, w.Name)]
			for _, r := range ps {
				c := Cell{Format: f.Name, Writer: w.Name, Reader: r.Name, WriterLanguage: w.Language, ReaderLanguage: r.Language}
				switch {
				case wr == nil:
					c.Status, c.Reason = Failed, "writer "+w.Name+" wrote no file"
				case wr.err != "" && wr.path == "":
					c.Status, c.Reason = Failed, "writer "+w.Name+": "+wr.err
					if wr.hold {
						c.Status = CannotHold
					}
				default:
					c.Bytes = wr.bytes
					var rd *read
					if w.Name == r.Name {
						rd = &read{err: wr.err, hold: wr.hold, ns: wr.ns, digest: wr.digest}
					} else {
						rd = p.reads[[2]string{key(f, w.Name), r.Name}]
					}
					switch {
					case rd == nil:
						c.Status, c.Reason = Failed, "reader "+r.Name+" did not read the file"
					case rd.err != "" && rd.hold:
						c.Status, c.Reason = CannotHold, rd.err
					case rd.err != "":
						c.Status, c.Reason = Failed, explain(rd.err)
					case rd.digest == nil:
						c.Status, c.Reason = Failed, "the reader reported no digest"
					default:
						c.ReadNs = rd.ns
						if why, note := compare(f.Name, p.ds.Schema, p.want, *rd.digest); why != "" {
							c.Status, c.Reason = Failed, why+readerLimit(r.Name, why)
						} else {
							c.Status, c.Note = OK, note
						}
					}
				}
				p.m.Cells = append(p.m.Cells, c)
			}
		}
	}
}

// link makes dst name the same file as src (a hard link, else a copy).
func link(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// readerLimit names what a reader's library is known not to carry, when
// the columns that differ are of that kind: Python's datetime holds
// microseconds, so a Python reader turning nanosecond timestamps into
// datetimes loses their last three digits, and fastavro does not know
// Avro 1.12's timestamp-nanos.
func readerLimit(reader, why string) string {
	switch {
	case !strings.Contains(why, "timestamp[ns]"):
		return ""
	case strings.HasPrefix(reader, "python:fastavro"):
		return "; fastavro has no timestamp-nanos logical type (fastavro/fastavro#883, open): it reads the column as plain integers (the library's limit)"
	case strings.HasPrefix(reader, "python:"):
		return "; " + reader + " reads timestamps as Python datetimes, which hold microseconds: a nanosecond timestamp's last three digits are lost (the library's limit)"
	}
	return ""
}
