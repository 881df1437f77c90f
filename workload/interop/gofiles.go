package interop

import (
	"errors"

	"bufio"
	"fmt"
	"github.com/serbench/serbench/results"
	"io"
	"os"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/serbench/serbench/digest"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/workload/userdata"
)

// GoFormat is the Go side's writer and reader of one file format.
type GoFormat struct {
	// Name is the Go format's name ("jsonl", "arrow-ipc-file").
	Name string
	// Write writes the batches (of schema) to w.
	Write func(schema *arrow.Schema, batches []arrow.RecordBatch, w io.Writer) error
	// Read reads the file f as batches of schema where the format is
	// schema-driven, and digests them.
	Read func(schema *arrow.Schema, f *os.File) (digest.Result, error)
	// Foreign, when set, reads the files of other writers instead of Read
	// (Reader says with what).
	Foreign func(schema *arrow.Schema, f *os.File) (digest.Result, error)
	// Reader says how Go reads other writers' files, for reports.
	Reader string
}

// goUserdata is goDynamic for writing and for reading Go's own file, and
// workload/userdata's reader of a user's file of that kind (what `serbench
// run data --input FILE` reads a user's Avro or Parquet file with) for
// every other writer's file: format/dynamic's Avro decoder accepts only a
// file whose writer schema has its own schema's fingerprint (its names,
// its nullability), and its Parquet decoder only its own Arrow layout
// (not large_string or large_list, as polars writes), because it reads what
// it wrote, straight into the dataset's schema.
func goUserdata(name string, c dynamic.Constructor, kind userdata.Kind, why string) *GoFormat {
	g := goDynamic(name, c)
	g.Reader = "Go reads its own file with format/dynamic's " + name + " decoder and other writers' files with workload/userdata's " +
		string(kind) + " reader (" + why + ")"
	g.Foreign = func(_ *arrow.Schema, f *os.File) (digest.Result, error) {
		r, err := userdata.Open(f.Name(), userdata.Options{Kind: kind})
		if err != nil {
			return digest.Result{}, err
		}
		defer r.Close()
		d, err := digest.New(r.Schema())
		if err != nil {
			return digest.Result{}, err
		}
		for r.Next() {
			if err := d.Write(r.RecordBatch()); err != nil {
				return digest.Result{}, err
			}
		}
		if err := r.Err(); err != nil {
			return digest.Result{}, err
		}
		return d.Sum()
	}
	return g
}

// goDynamic is a format/dynamic format as a GoFormat: written and read
// through the dataset's schema, as the data workload does with a user's
// file.
func goDynamic(name string, c dynamic.Constructor) *GoFormat {
	return &GoFormat{
		Name: name,
		Write: func(schema *arrow.Schema, batches []arrow.RecordBatch, w io.Writer) error {
			f, err := c(schema, dynamic.Options{})
			if err != nil {
				return err
			}
			e, err := f.NewEncoder(w)
			if err != nil {
				return err
			}
			for i := range batches {
				if err := e.Encode(&batches[i]); err != nil {
					return err
				}
			}
			return e.Close()
		},
		Read: func(schema *arrow.Schema, file *os.File) (digest.Result, error) {
			f, err := c(schema, dynamic.Options{})
			if err != nil {
				return digest.Result{}, err
			}
			var r io.Reader = bufio.NewReaderSize(file, 256<<10)
			if f.Descriptor().RandomAccess {
				st, err := file.Stat()
				if err != nil {
					return digest.Result{}, err
				}
				r = io.NewSectionReader(file, 0, st.Size())
			}
			dec, err := f.NewDecoder(r)
			if err != nil {
				return digest.Result{}, err
			}
			var d *digest.Digester
			for {
				var b arrow.RecordBatch
				err := dec.Decode(&b)
				if err == io.EOF {
					break
				}
				if err != nil {
					return digest.Result{}, err
				}
				if d == nil {
					if d, err = digest.New(b.Schema()); err != nil {
						return digest.Result{}, err
					}
				}
				if err := d.Write(b); err != nil {
					return digest.Result{}, err
				}
			}
			if d == nil {
				return digest.Batches(schema)
			}
			return d.Sum()
		},
	}
}

// goArrowFile is arrow-go's Arrow IPC file format (format/dynamic has the
// stream format only): the batches as they are, read back with the file's
// own schema.
func goArrowFile() *GoFormat {
	return &GoFormat{
		Name: "arrow-ipc-file",
		Write: func(schema *arrow.Schema, batches []arrow.RecordBatch, w io.Writer) error {
			fw, err := ipc.NewFileWriter(w, ipc.WithSchema(schema))
			if err != nil {
				return err
			}
			for _, b := range batches {
				if err := fw.Write(b); err != nil {
					return err
				}
			}
			return fw.Close()
		},
		Read: func(_ *arrow.Schema, f *os.File) (res digest.Result, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("arrow-go panicked: %v", r)
				}
			}()
			r, err := ipc.NewFileReader(f, ipc.WithAllocator(memory.NewGoAllocator()))
			if err != nil {
				return res, err
			}
			defer r.Close()
			d, err := digest.New(r.Schema())
			if err != nil {
				return res, err
			}
			for i := 0; i < r.NumRecords(); i++ {
				b, err := r.RecordBatch(i)
				if err != nil {
					return res, err
				}
				if err := d.Write(b); err != nil {
					return res, err
				}
			}
			return d.Sum()
		},
	}
}

// goWrite writes format f's Go file and reads it back (the diagonal cell).
func (p *plan) goWrite(f *Format) {
	name := "go:" + f.Go.Name
	path := p.files + "/" + fileName(f, name)
	w := &written{}
	p.written[key(f, name)] = w
	t0 := time.Now()
	err := func() error {
		out, err := os.Create(path)
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(out, 256<<10)
		if err := f.Go.Write(p.ds.Schema, p.ds.Batches, bw); err != nil {
			out.Close()
			return err
		}
		if err := bw.Flush(); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}()
	if err != nil {
		os.Remove(path)
		w.err, w.hold = "write failed: "+oneLine(err), errors.Is(err, results.ErrCannotHold)
		p.logf("interop: %s %s: %s", f.Name, name, w.err)
		return
	}
	w.path, w.bytes, w.ns = path, fileSize(path), time.Since(t0).Nanoseconds()
	r := p.goRead(f, path, f.Go.Read)
	if r.err != "" {
		w.err = "reading its own file back: " + r.err
		return
	}
	w.digest = r.digest
}

// goRead reads one file with format f's Go reader.
func (p *plan) goRead(f *Format, path string, readFn func(*arrow.Schema, *os.File) (digest.Result, error)) *read {
	t0 := time.Now()
	file, err := os.Open(path)
	if err != nil {
		return &read{err: oneLine(err)}
	}
	defer file.Close()
	res, err := readFn(p.ds.Schema, file)
	ns := time.Since(t0).Nanoseconds()
	if err != nil {
		return &read{err: "read failed: " + oneLine(err), hold: errors.Is(err, results.ErrCannotHold), ns: ns}
	}
	return &read{digest: &res, ns: ns}
}

// goReadAll reads every other writer's file of format f with Go's reader.
func (p *plan) goReadAll(f *Format) {
	reader := "go:" + f.Go.Name
	for _, w := range p.m.Parties[f.Name] {
		if w.Name == reader {
			continue
		}
		wr := p.written[key(f, w.Name)]
		if wr == nil || wr.path == "" {
			continue
		}
		rd := f.Go.Read
		if f.Go.Foreign != nil {
			rd = f.Go.Foreign
		}
		p.reads[[2]string{key(f, w.Name), reader}] = p.goRead(f, wr.path, rd)
	}
}

// oneLine is err's message on one line, cut to 400 bytes.
func oneLine(err error) string {
	if err == nil {
		return ""
	}
	s := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(err.Error())
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}
