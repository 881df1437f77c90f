package nested

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/serbench/serbench/dataset/nested/nestedparquet"
	"github.com/serbench/serbench/format"
)

// parquetCodecs are the Parquet page codecs of the workload, by name.
func parquetCodec(name string) (compress.Codec, error) {
	switch name {
	case "none":
		return &pq.Uncompressed, nil
	case "snappy":
		return &pq.Snappy, nil
	case "zstd":
		return &pq.Zstd, nil
	case "gzip":
		return &pq.Gzip, nil
	case "lz4":
		return &pq.Lz4Raw, nil
	}
	return nil, fmt.Errorf("unknown parquet codec %q", name)
}

// parquetCodecNames lists them in report order.
func parquetCodecNames() []string { return []string{"none", "snappy", "zstd", "gzip", "lz4"} }

// pqSettings are the Parquet writer settings of a file.
type pqSettings struct {
	codec string
	// rowGroup is the most rows per row group.
	rowGroup int64
	// delta writes integer columns with DELTA_BINARY_PACKED and strings with
	// DELTA_LENGTH_BYTE_ARRAY.
	delta bool
}

// RowGroupRows is the default most rows per Parquet row group: 64 Ki rows,
// so a default-scale file has a few row groups to read in parallel.
const RowGroupRows = 64 << 10

func (s pqSettings) String() string {
	out := fmt.Sprintf("codec %s, ≤%d rows per row group", s.codec, s.rowGroup)
	out += ", dictionaries as the struct tags ask"
	if s.delta {
		out += ", delta encodings"
	}
	return out
}

// writeParquet writes recs to path with parquet-go.
func writeParquet[T any](path string, recs []T, s pqSettings) (int64, error) {
	c, err := parquetCodec(s.codec)
	if err != nil {
		return 0, err
	}
	out, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("create: %w", err)
	}
	defer out.Close()
	bw := bufio.NewWriterSize(out, 1<<20)
	opts := []pq.WriterOption{pq.Compression(c), pq.MaxRowsPerRowGroup(s.rowGroup)}
	if s.delta {
		opts = append(opts, pq.DefaultEncodingFor(pq.Int32, &pq.DeltaBinaryPacked),
			pq.DefaultEncodingFor(pq.Int64, &pq.DeltaBinaryPacked),
			pq.DefaultEncodingFor(pq.ByteArray, &pq.DeltaLengthByteArray))
	}
	w := pq.NewGenericWriter[T](bw, opts...)
	for i := 0; i < len(recs); i += 4096 {
		if _, err := w.Write(recs[i:min(i+4096, len(recs))]); err != nil {
			return 0, fmt.Errorf("parquet write: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("parquet close: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return 0, fmt.Errorf("flush: %w", err)
	}
	if err := out.Close(); err != nil {
		return 0, fmt.Errorf("close: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// columnChunk is a leaf column's compressed size over the whole file.
type columnChunk struct {
	path  string
	bytes int64
}

// pqColumns returns the file's leaf columns in schema order with their
// compressed sizes summed over the row groups.
func pqColumns(path string) ([]columnChunk, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := file.NewParquetReader(f)
	if err != nil {
		return nil, fmt.Errorf("parquet footer: %w", err)
	}
	md := r.MetaData()
	cols := make([]columnChunk, md.Schema.NumColumns())
	for i := range cols {
		cols[i].path = md.Schema.Column(i).ColumnPath().String()
	}
	for g := range md.NumRowGroups() {
		rg := md.RowGroup(g)
		for i := range cols {
			cc, err := rg.ColumnChunk(i)
			if err != nil {
				return nil, fmt.Errorf("row group %d column %d: %w", g, i, err)
			}
			cols[i].bytes += cc.TotalCompressedSize()
		}
	}
	return cols, nil
}

// pqArrowRead reads the leaf columns cols (indices in schema order; all
// when nil) of the Parquet file at path with arrow-go's pqarrow and
// assembles them into out, whose length must be the file's row count.
// With par, row groups are spread over GOMAXPROCS goroutines, each with its
// own reader.
func pqArrowRead[T any](path string, cols []int, leaves []string, out []T, par bool) (err error) {
	defer format.CatchPanic("pqarrow", &err)
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	open := func() (*pqarrow.FileReader, error) {
		pf, err := file.NewParquetReader(io.NewSectionReader(f, 0, fi.Size()), file.WithReadProps(parquet.NewReaderProperties(memory.DefaultAllocator)))
		if err != nil {
			return nil, fmt.Errorf("parquet footer: %w", err)
		}
		// PreAllocBinaryData sizes a string column's data buffer from the
		// chunk's uncompressed size instead of growing it by doubling
		// (a tenth of a one-string-column read).
		props := pqarrow.ArrowReadProperties{BatchSize: 64 << 10, PreAllocBinaryData: true}
		md := pf.MetaData()
		if md.NumRowGroups() > 0 {
			rg := md.RowGroup(0)
			for i := range md.Schema.NumColumns() {
				if md.Schema.Column(i).PhysicalType() != parquet.Types.ByteArray {
					continue
				}
				if cc, err := rg.ColumnChunk(i); err == nil && cc.HasDictionaryPage() {
					props.SetReadDict(i, true)
				}
			}
		}
		return pqarrow.NewFileReader(pf, props, memory.DefaultAllocator)
	}
	fr, err := open()
	if err != nil {
		return err
	}
	md := fr.ParquetReader().MetaData()
	if md.NumRows != int64(len(out)) {
		return fmt.Errorf("file has %d rows, want %d", md.NumRows, len(out))
	}
	if cols == nil {
		cols = make([]int, md.Schema.NumColumns())
		for i := range cols {
			cols[i] = i
		}
	}
	starts := make([]int, md.NumRowGroups()+1)
	for g := range md.NumRowGroups() {
		starts[g+1] = starts[g] + int(md.RowGroup(g).NumRows())
	}
	readGroup := func(fr *pqarrow.FileReader, asm *recordAssembler[T], g int) error {
		rr, err := fr.GetRecordReader(context.Background(), cols, []int{g})
		if err != nil {
			return fmt.Errorf("row group %d: %w", g, err)
		}
		defer rr.Release()
		at, end := starts[g], starts[g+1]
		for rr.Next() {
			rec := rr.RecordBatch()
			if err := asm.assemble(rec, out[at:end]); err != nil {
				return fmt.Errorf("row group %d: %w", g, err)
			}
			at += int(rec.NumRows())
		}
		if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("row group %d: %w", g, err)
		}
		if at != end {
			return fmt.Errorf("row group %d: read %d rows, want %d", g, at-starts[g], end-starts[g])
		}
		return nil
	}
	groups := md.NumRowGroups()
	if !par || groups < 2 {
		asm := newRecordAssembler[T](leaves)
		for g := range groups {
			if err := readGroup(fr, asm, g); err != nil {
				return err
			}
		}
		return nil
	}
	return parallelGroups(groups, func(next func() (int, bool)) (err error) {
		defer format.CatchPanic("pqarrow", &err)
		fr, err := open()
		if err != nil {
			return err
		}
		asm := newRecordAssembler[T](leaves)
		for g, ok := next(); ok; g, ok = next() {
			if err := readGroup(fr, asm, g); err != nil {
				return err
			}
		}
		return nil
	})
}

// parallelGroups runs work on min(GOMAXPROCS, groups) goroutines that take
// row groups from a shared counter, and returns the first error.
func parallelGroups(groups int, work func(next func() (int, bool)) error) error {
	var (
		mu   sync.Mutex
		g    int
		errs []error
		wg   sync.WaitGroup
	)
	next := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if g >= groups || len(errs) > 0 {
			return 0, false
		}
		g++
		return g - 1, true
	}
	for range min(runtime.GOMAXPROCS(0), groups) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := work(next); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// pqGoRead reads the Parquet file at path with parquet-go's GenericReader
// into out, only the leaves (all when nil) through a pruned schema; with
// par, row groups are spread over GOMAXPROCS goroutines.
func pqGoRead[T any](path string, leaves []string, out []T, par bool) (err error) {
	defer format.CatchPanic("parquet-go", &err)
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := pq.OpenFile(f, fi.Size(), pq.SkipBloomFilters(true))
	if err != nil {
		return fmt.Errorf("parquet open: %w", err)
	}
	if pf.NumRows() != int64(len(out)) {
		return fmt.Errorf("file has %d rows, want %d", pf.NumRows(), len(out))
	}
	var opts []pq.ReaderOption
	if leaves != nil {
		s, err := nestedparquet.Schema[T](leaves)
		if err != nil {
			return fmt.Errorf("sub-schema: %w", err)
		}
		opts = append(opts, s)
	}
	rgs := pf.RowGroups()
	starts := make([]int, len(rgs)+1)
	for g, rg := range rgs {
		starts[g+1] = starts[g] + int(rg.NumRows())
	}
	readGroup := func(g int) (err error) {
		defer format.CatchPanic("parquet-go", &err)
		r := pq.NewGenericRowGroupReader[T](rgs[g], opts...)
		defer r.Close()
		at, end := starts[g], starts[g+1]
		for at < end {
			n, err := r.Read(out[at:end])
			at += n
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("row group %d: %w", g, err)
			}
			if n == 0 {
				return fmt.Errorf("row group %d: no progress", g)
			}
		}
		if at != end {
			return fmt.Errorf("row group %d: read %d rows, want %d", g, at-starts[g], end-starts[g])
		}
		return nil
	}
	if !par || len(rgs) < 2 {
		for g := range rgs {
			if err := readGroup(g); err != nil {
				return err
			}
		}
		return nil
	}
	return parallelGroups(len(rgs), func(next func() (int, bool)) error {
		for g, ok := next(); ok; g, ok = next() {
			if err := readGroup(g); err != nil {
				return err
			}
		}
		return nil
	})
}
