package userdata

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// catch turns a library panic on corrupt input into an error.
func catch(what string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%s: corrupt input: %v", what, p)
	}
}

// parquetSource reads Parquet through pqarrow.
type parquetSource struct {
	r     *Reader
	pf    *file.Reader
	rr    pqarrow.RecordReader
	batch int
}

func newParquetSource(r *Reader) (src *parquetSource, err error) {
	defer catch("userdata: "+r.path, &err)
	f, size, err := r.openRandom("Parquet", "PAR1", "PARE")
	if err != nil {
		return nil, err
	}
	if err := checkParquet(f, size, r.path); err != nil {
		return nil, err
	}
	props := parquet.NewReaderProperties(r.opts.Allocator)
	props.MaxCompressedPageSize = min(parquet.DefaultMaxCompressedPageSize, size)
	pf, err := file.NewParquetReader(f, file.WithReadProps(props))
	if err != nil {
		return nil, fmt.Errorf("userdata: %s: not a readable Parquet file (truncated?): %w", r.path, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(r.opts.batchSize())}, r.opts.Allocator)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("userdata: %s: Parquet schema: %w", r.path, err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("userdata: %s: Parquet record reader: %w", r.path, err)
	}
	return &parquetSource{r: r, pf: pf, rr: rr}, nil
}

func (s *parquetSource) schema() *arrow.Schema { return s.rr.Schema() }

func (s *parquetSource) next() (rec arrow.RecordBatch, err error) {
	defer catch("userdata: "+s.r.path, &err)
	if s.rr.Next() {
		rec := s.rr.RecordBatch()
		rec.Retain()
		s.batch++
		return rec, nil
	}
	if err := s.rr.Err(); err != nil && err != io.EOF {
		return nil, fmt.Errorf("userdata: %s: Parquet batch %d (after row %d): %w", s.r.path, s.batch, s.r.rows, err)
	}
	return nil, nil
}

func (s *parquetSource) close() error {
	s.rr.Release()
	return s.pf.Close()
}

// arrowSource reads the Arrow IPC file or stream format.
type arrowSource struct {
	r    *Reader
	sch  *arrow.Schema
	fr   *ipc.FileReader
	i    int
	sr   *ipc.Reader
	done func() error
}

const arrowMagic = "ARROW1"

func newArrowSource(r *Reader) (src *arrowSource, err error) {
	defer catch("userdata: "+r.path, &err)
	if r.kind == KindArrowFile {
		f, size, err := r.openRandom("Arrow IPC", arrowMagic, "\xff\xff\xff\xff")
		if err != nil {
			return nil, err
		}
		head := make([]byte, 6)
		if _, err := f.ReadAt(head, 0); err == nil && string(head) == arrowMagic {
			if err := checkArrowFile(f, size, r.path); err != nil {
				return nil, err
			}
			// arrow-go checks the footer's blocks against the file's size
			// (no other bound on the bodies: they are in the file).
			fr, err := ipc.NewFileReader(f, ipc.WithAllocator(r.opts.Allocator),
				ipc.WithMetadataSizeLimit(maxIPCMetadata), ipc.WithBodySizeLimit(math.MaxInt64))
			if err != nil {
				return nil, fmt.Errorf("userdata: %s: not a readable Arrow IPC file (truncated?): %w", r.path, err)
			}
			return &arrowSource{r: r, sch: fr.Schema(), fr: fr, done: fr.Close}, nil
		}
		// Not the file format: try the stream format (some tools write
		// streams with .arrow).
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("userdata: %s: %w", r.path, err)
		}
		return newArrowStream(r, bufio.NewReaderSize(f, 256<<10), size, func() error { return nil })
	}
	size := int64(-1)
	if r.comp == "none" || r.comp == "" {
		fi, err := os.Stat(r.path)
		if err != nil {
			return nil, fmt.Errorf("userdata: %w", err)
		}
		size = fi.Size()
	}
	in, closeIn, err := openStream(r.path, r.comp)
	if err != nil {
		return nil, err
	}
	return newArrowStream(r, in, size, closeIn)
}

// newArrowStream reads the Arrow IPC stream in, of size bytes (-1 when
// unknown: a compressed input).
func newArrowStream(r *Reader, in io.Reader, size int64, closeIn func() error) (*arrowSource, error) {
	sr, err := ipc.NewReaderFromMessageReader(newIPCMessages(in, r.path, size, r.opts.Allocator), ipc.WithAllocator(r.opts.Allocator))
	if err != nil {
		closeIn()
		return nil, fmt.Errorf("userdata: %s: not a readable Arrow IPC stream or file: %w", r.path, err)
	}
	return &arrowSource{r: r, sch: sr.Schema(), sr: sr, done: func() error { sr.Release(); return closeIn() }}, nil
}

func (s *arrowSource) schema() *arrow.Schema { return s.sch }

func (s *arrowSource) next() (rec arrow.RecordBatch, err error) {
	defer catch("userdata: "+s.r.path, &err)
	if s.fr != nil {
		if s.i >= s.fr.NumRecords() {
			return nil, nil
		}
		rec, err := s.fr.RecordBatchAt(s.i)
		if err != nil {
			return nil, fmt.Errorf("userdata: %s: Arrow batch %d: %w", s.r.path, s.i, err)
		}
		s.i++
		return rec, nil
	}
	if s.sr.Next() {
		rec := s.sr.RecordBatch()
		rec.Retain()
		s.i++
		return rec, nil
	}
	if err := s.sr.Err(); err != nil {
		return nil, fmt.Errorf("userdata: %s: Arrow stream batch %d: %w", s.r.path, s.i, err)
	}
	return nil, nil
}

func (s *arrowSource) close() error { return s.done() }

// sample keeps the rows of rec that Options.keep selects (counting rows
// across batches) and releases rec.
func (r *Reader) sample(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	defer rec.Release()
	ib := array.NewInt64Builder(r.opts.Allocator)
	defer ib.Release()
	n := rec.NumRows()
	for i := int64(0); i < n; i++ {
		if r.opts.keep(r.seen + i) {
			ib.Append(i)
		}
	}
	r.seen += n
	idx := ib.NewInt64Array()
	defer idx.Release()
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	ctx := compute.WithAllocator(context.Background(), r.opts.Allocator)
	for i := range cols {
		c, err := compute.TakeArray(ctx, rec.Column(i), idx)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", rec.Schema().Field(i).Name, err)
		}
		cols[i] = c
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(idx.Len())), nil
}

// decodedSchema returns s with top-level dictionary columns replaced by
// their value type (unless Options.KeepDictionaries), recording them.
func (r *Reader) decodedSchema(s *arrow.Schema) *arrow.Schema {
	fields := s.Fields()
	for i, f := range fields {
		if dt, ok := f.Type.(*arrow.DictionaryType); ok && !r.opts.KeepDictionaries {
			r.undict = append(r.undict, i)
			fields[i].Type = dt.ValueType
			r.notes = append(r.notes, fmt.Sprintf("column %s: dictionary-encoded %s decoded to %s", f.Name, dt, dt.ValueType))
			continue
		}
		if nt, ok := entriesType(f.Type); ok {
			r.unmap = append(r.unmap, i)
			fields[i].Type = nt
			r.notes = append(r.notes, fmt.Sprintf("column %s: its maps read as lists of key/value entries (as a JSON object is), which every format and language holds", f.Name))
		}
	}
	if len(r.undict) == 0 && len(r.unmap) == 0 {
		return s
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md)
}

// decodeDictionaries replaces rec's dictionary columns by dense arrays and
// releases rec.
func (r *Reader) decodeDictionaries(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	defer rec.Release()
	cols := make([]arrow.Array, rec.NumCols())
	copy(cols, rec.Columns())
	var made []arrow.Array
	defer func() {
		for _, c := range made {
			c.Release()
		}
	}()
	ctx := compute.WithAllocator(context.Background(), r.opts.Allocator)
	for _, i := range r.undict {
		d, ok := cols[i].(*array.Dictionary)
		if !ok {
			return nil, fmt.Errorf("column %s: %T is not a dictionary array", r.sch.Field(i).Name, cols[i])
		}
		dense, err := compute.TakeArray(ctx, d.Dictionary(), d.Indices())
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", r.sch.Field(i).Name, err)
		}
		made = append(made, dense)
		cols[i] = dense
	}
	return batchOf(r.sch, cols, rec.NumRows()), nil
}

// batchOf is a batch of cols under s's names, nullability and metadata,
// each field typed as its column is: between the rewrites of Next (the
// dictionaries decoded, the maps as entries) a batch is partly s's.
func batchOf(s *arrow.Schema, cols []arrow.Array, rows int64) arrow.RecordBatch {
	fields := s.Fields()
	same := true
	for i, c := range cols {
		if !arrow.TypeEqual(fields[i].Type, c.DataType()) {
			fields[i].Type, same = c.DataType(), false
		}
	}
	if same {
		return array.NewRecordBatch(s, cols, rows)
	}
	md := s.Metadata()
	return array.NewRecordBatch(arrow.NewSchema(fields, &md), cols, rows)
}
