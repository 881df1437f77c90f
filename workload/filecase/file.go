package filecase

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/filebench"
)

// A File is the file of one format × codec (× variant) pair, shared by the
// pair's cases: the write case writes it, the read and floor cases read it.
// Cases run one at a time, so the mutex only guards against misuse. The
// workload's pair embeds it and sets the exported fields before the cases
// run.
type File struct {
	// Workload names the workload in errors.
	Workload string
	// Path is the file.
	Path string
	// Codec is the pair's outer codec (the decompress floor's) and Opts
	// the pipeline's options (the floors read with them).
	Codec codec.Codec
	Opts  filebench.Options
	// Records is the records (rows) of the full file: every case's
	// MetricRecords.
	Records int64
	// Want is the record count a complete write reports
	// (filebench.WriteStats.Records), or -1 when a write counts something
	// else (record batches): then every write that succeeds is complete.
	Want int
	// Write writes the full file at Path (the write op; Prepare calls it
	// outside timing). Read reads it back verifying every record (the read
	// op).
	Write func() (filebench.WriteStats, error)
	Read  func() (filebench.ReadStats, error)
	// ReadColumns, when set, reads some columns of the file back,
	// verifying them (the OpReadColumns op).
	ReadColumns func() (filebench.ReadStats, error)
	// Twin, when set, is a file removed with this one (the pipeline twin
	// of a bare-loop pair).
	Twin *File

	mu       sync.Mutex
	verified bool  // the file at Path was written completely
	fileB    int64 // its size when written
	encodedB int64 // the format's output size before compression
}

// Files tracks a plan's files so that at most one pair's file is on disk
// at a time and Close removes any left behind.
type Files struct {
	// Dir holds the files; OwnsDir says the plan created it (Close removes
	// it).
	Dir     string
	OwnsDir bool

	mu      sync.Mutex
	current *File
	all     []*File
}

// Add makes f one of the files Close removes.
func (s *Files) Add(f *File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, f)
}

// Activate makes f the current file, deleting the previous one.
func (s *Files) Activate(f *File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current != nil && s.current != f {
		s.current.Remove()
	}
	s.current = f
}

// Close removes every file added, and the directory when the plan owns it.
func (s *Files) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, f := range s.all {
		if err := f.Remove(); err != nil {
			errs = append(errs, err)
		}
	}
	if s.OwnsDir {
		if err := os.RemoveAll(s.Dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Remove deletes the file (a missing file is not an error) and its twin's;
// it must be written again before it is read.
func (f *File) Remove() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.verified = false
	err := f.Delete()
	if f.Twin != nil {
		err = errors.Join(err, f.Twin.Remove())
	}
	return err
}

// Delete deletes the file at Path and nothing else (a missing file is not
// an error).
func (f *File) Delete() error {
	if err := os.Remove(f.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: remove %s: %w", f.Workload, f.Path, err)
	}
	return nil
}

// complete reports whether a write wrote every record.
func (f *File) complete(ws filebench.WriteStats) bool { return f.Want < 0 || ws.Records == f.Want }

// Prepare writes the file outside timing (for a read or floor case whose
// write case did not run, e.g. in a filtered run). The timed reads verify
// every record of it.
func (f *File) Prepare() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.verified = false
	ws, err := f.Write()
	if err != nil {
		return err
	}
	if !f.complete(ws) {
		return fmt.Errorf("%w: wrote %d records, want %d", filebench.ErrRecordCount, ws.Records, f.Want)
	}
	f.fileB, f.encodedB = ws.FileBytes, ws.EncodedBytes
	f.verified = true
	return nil
}

// SetSizes records the sizes of the latest write and whether it wrote every
// record.
func (f *File) SetSizes(ws filebench.WriteStats, complete bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fileB, f.encodedB, f.verified = ws.FileBytes, ws.EncodedBytes, complete
}

// EncodedBytes is the format's output size before compression of the
// latest write.
func (f *File) EncodedBytes() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.encodedB
}

// Ensure makes sure a verified file is on disk, writing it if needed.
func (f *File) Ensure() error {
	f.mu.Lock()
	ok := f.verified
	f.mu.Unlock()
	if ok {
		if _, err := os.Stat(f.Path); err == nil {
			return nil
		}
	}
	return f.Prepare()
}

// Check is the Verify of the read and floor cases: the verified file is
// still there with the size it was written with. Corruption that keeps the
// size is caught by the read itself, which verifies every record.
func (f *File) Check() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.verified {
		return errors.New("the file was not written")
	}
	fi, err := os.Stat(f.Path)
	if err != nil {
		return fmt.Errorf("file written by the write case: %w", err)
	}
	if fi.Size() != f.fileB {
		return fmt.Errorf("file %s is %d bytes, was written as %d (truncated or replaced between write and read)", f.Path, fi.Size(), f.fileB)
	}
	return nil
}

// Metrics sets the pair's fixed per-case metrics in m.
func (f *File) Metrics(m map[string]float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m[MetricFile] = float64(f.fileB)
	if f.encodedB > 0 {
		m[MetricEncoded] = float64(f.encodedB)
	}
	m[MetricRecords] = float64(f.Records)
}

// BytesPerOp is what MB/s counts: the format's encoded stream (before
// compression), or the file for read-bytes.
func (f *File) BytesPerOp(op string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if op == OpReadBytes || f.encodedB == 0 {
		return f.fileB
	}
	return f.encodedB
}

// WriteRun is the Run of the pair's write case: each op deletes the previous
// file outside timing and writes the file; the case reports the largest
// peak heap growth and, once written, the file's metrics into fixed (the
// case's Metrics).
func (f *File) WriteRun(fixed map[string]float64) func(b *bench.B) error {
	return func(b *bench.B) error {
		b.SetBytes(f.BytesPerOp(OpWrite))
		var peak uint64
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			if err := os.Remove(f.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove previous file: %w", err)
			}
			b.StartTimer()
			st, err := f.Write()
			if err != nil {
				return err
			}
			// Some formats are not byte-for-byte deterministic (Avro
			// OCF's random sync marker); later cases check the last
			// write's sizes.
			f.SetSizes(st, f.complete(st))
			peak = max(peak, st.Heap.PeakDelta())
		}
		b.ReportMetric(float64(peak), MetricPeakHeap)
		// The encoded size is known once a write has run (the first
		// run may be the first sample).
		b.SetBytes(f.BytesPerOp(OpWrite))
		f.Metrics(fixed)
		return nil
	}
}

// ReadRun is the Run of the pair's read case (op OpRead: Read, verifying
// every record; OpReadColumns: ReadColumns, verifying those columns) or
// one of its floors (OpReadBytes: the file's bytes into a buffer;
// OpDecompress: read and decompress, no decoding), each checked
// against the sizes the write recorded. The case reports the largest peak
// heap growth.
func (f *File) ReadRun(op string) func(b *bench.B) error {
	return func(b *bench.B) error {
		b.SetBytes(f.BytesPerOp(op))
		var peak uint64
		for i := 0; i < b.N; i++ {
			var (
				st  filebench.ReadStats
				err error
			)
			switch op {
			case OpRead:
				st, err = f.Read()
			case OpReadColumns:
				if f.ReadColumns == nil {
					return fmt.Errorf("%s: no column read for %s", f.Workload, f.Path)
				}
				st, err = f.ReadColumns()
			case OpReadBytes:
				st, err = filebench.ReadFile(context.Background(), f.Path, f.Opts)
				if err == nil && st.FileBytes != f.fileB {
					err = fmt.Errorf("read %d bytes, the file was written as %d", st.FileBytes, f.fileB)
				}
			case OpDecompress:
				st, err = filebench.Decompress(context.Background(), f.Path, f.Codec, f.Opts)
				if err == nil && st.DecodedBytes != f.encodedB {
					err = fmt.Errorf("decompressed %d bytes, the encoder wrote %d", st.DecodedBytes, f.encodedB)
				}
			default:
				err = fmt.Errorf("%s: unknown read op %q", f.Workload, op)
			}
			if err != nil {
				return err
			}
			peak = max(peak, st.Heap.PeakDelta())
		}
		b.ReportMetric(float64(peak), MetricPeakHeap)
		return nil
	}
}
