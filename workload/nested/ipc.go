package nested

import (
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/serbench/serbench/format"
)

// ipcBatchRows is the rows per record batch of a dataset's Arrow IPC files:
// an eighth of the records (at least ParBatch, at most RowGroupRows), so
// every scale's file has several batches to read in parallel.
func ipcBatchRows(n int) int {
	return min(RowGroupRows, max(ParBatch, (n+7)/8))
}

// ipcRead reads the Arrow IPC file at path (batches of batchRows rows) into
// out, whose length must be the file's row count, and assembles only the
// leaves (all when nil) into the Go structs, finding the queried fields of
// each full batch by name.
//
// arrow-go v18.8.0's IPC readers have no field selection: a batch is always
// loaded whole, every buffer decompressed when the file compresses them. So
// the file is memory-mapped and opened with ipc.NewMappedFileReader, which
// slices uncompressed body buffers out of the mapping instead of copying
// them: for an uncompressed file a column the query does not read costs its
// metadata only (its pages are never touched), which is the columns tier.
// A compressed file decompresses every buffer of every batch whatever the
// query (the decode+project tier, with the projection done by assembling
// only the queried fields). With par, batches are decoded and assembled on
// GOMAXPROCS goroutines (RecordBatchAt is safe for concurrent use).
func ipcRead[T any](path string, batchRows int, leaves []string, out []T, par bool) (err error) {
	defer format.CatchPanic("arrow-ipc", &err)
	data, unmap, err := mapFile(path)
	if err != nil {
		return err
	}
	defer unmap()
	fr, err := ipc.NewMappedFileReader(data, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return fmt.Errorf("arrow-ipc: open: %w", err)
	}
	defer fr.Close()
	batches := fr.NumRecords()
	if want := (len(out) + batchRows - 1) / batchRows; batches != want {
		return fmt.Errorf("arrow-ipc: %d record batches, want %d (%d rows of %d)", batches, want, len(out), batchRows)
	}
	readBatch := func(asm *recordAssembler[T], i int) (err error) {
		defer format.CatchPanic("arrow-ipc", &err)
		rec, err := fr.RecordBatchAt(i)
		if err != nil {
			return fmt.Errorf("arrow-ipc: batch %d: %w", i, err)
		}
		defer rec.Release()
		start := i * batchRows
		if want := min(batchRows, len(out)-start); int(rec.NumRows()) != want {
			return fmt.Errorf("arrow-ipc: batch %d has %d rows, want %d", i, rec.NumRows(), want)
		}
		if err := asm.assemble(rec, out[start:]); err != nil {
			return fmt.Errorf("arrow-ipc: batch %d: %w", i, err)
		}
		return nil
	}
	newAsm := func() *recordAssembler[T] {
		a := newRecordAssembler[T](leaves)
		a.p.byName = true
		return a
	}
	if !par || batches < 2 {
		asm := newAsm()
		for i := range batches {
			if err := readBatch(asm, i); err != nil {
				return err
			}
		}
		return nil
	}
	return parallelGroups(batches, func(next func() (int, bool)) error {
		asm := newAsm()
		for i, ok := next(); ok; i, ok = next() {
			if err := readBatch(asm, i); err != nil {
				return err
			}
		}
		return nil
	})
}

// readWhole is mapFile's fallback: the file's bytes read into memory.
func readWhole(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read: %w", err)
	}
	return b, func() {}, nil
}
