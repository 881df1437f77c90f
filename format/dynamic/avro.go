package dynamic

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
	"github.com/klauspost/compress/zstd"
	"github.com/serbench/serbench/format"
)

const hambaLib = "github.com/hamba/avro/v2"

// Avro is an Avro object container file of record batches with an Avro
// schema derived from the Arrow schema. Datums are encoded by a hand-written
// schema-driven encoder and framed into blocks by hamba/avro's OCF encoder
// (Encoder.Write of pre-encoded datums); the decoder reads the container and
// decodes datums itself. Container codec: null (avro-ocf), or the blocks
// compressed with zstandard (avro-ocf-zstd) or deflate (avro-ocf-deflate);
// the decoder reads any of the three.
type Avro struct {
	schema     *arrow.Schema
	o          Options
	avroSchema string
	codec      avroCodec
}

// avroCodec is an OCF block codec the Avro format writes: its name in the
// format's name ("" for null), the container's codec and level.
type avroCodec struct {
	suffix string
	name   ocf.CodecName
	opts   []ocf.EncoderFunc
	// detail names the codec and its level in the descriptor.
	detail string
}

// Block codecs of the self-compressing Avro formats. The zstandard level is
// klauspost/compress's SpeedDefault (about zstd's level 3, what hamba/avro
// uses when given none), deflate's is compress/flate's default, 6; both
// stated so that the descriptor says what was measured.
var (
	avroNull = avroCodec{name: ocf.Null, detail: "codec null"}
	avroZstd = avroCodec{suffix: "zstd", name: ocf.ZStandard, detail: "blocks compressed with codec zstandard (klauspost/compress, level SpeedDefault ≈ zstd level 3)",
		opts: []ocf.EncoderFunc{ocf.WithZStandardEncoderOptions(zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))}}
	avroDeflate = avroCodec{suffix: "deflate", name: ocf.Deflate, detail: "blocks compressed with codec deflate (compress/flate, level 6)",
		opts: []ocf.EncoderFunc{ocf.WithCompressionLevel(6)}}
)

// NewAvro returns Avro OCF for schema, codec null.
func NewAvro(schema *arrow.Schema, o Options) (Format, error) { return newAvro(schema, o, avroNull) }

// NewAvroZstd returns Avro OCF for schema with its blocks compressed by
// the container's zstandard codec ("avro-ocf-zstd").
func NewAvroZstd(schema *arrow.Schema, o Options) (Format, error) {
	return newAvro(schema, o, avroZstd)
}

// NewAvroDeflate returns Avro OCF for schema with its blocks compressed by
// the container's deflate codec ("avro-ocf-deflate").
func NewAvroDeflate(schema *arrow.Schema, o Options) (Format, error) {
	return newAvro(schema, o, avroDeflate)
}

func newAvro(schema *arrow.Schema, o Options, c avroCodec) (Format, error) {
	f := &Avro{schema: schema, o: o, codec: c}
	if err := checkSchema(f.name(), schema, false); err != nil {
		return nil, err
	}
	js, err := AvroSchema(schema)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.name(), err)
	}
	if _, err := avro.ParseWithCache(js, "", &avro.SchemaCache{}); err != nil {
		return nil, fmt.Errorf("%s: derived schema rejected: %w", f.name(), err)
	}
	f.avroSchema = js
	return f, nil
}

// name is the format's name: avro-ocf, avro-ocf-zstd, avro-ocf-deflate.
func (f *Avro) name() string {
	if f.codec.suffix == "" {
		return "avro-ocf"
	}
	return "avro-ocf-" + f.codec.suffix
}

// Descriptor implements format.Format.
func (f *Avro) Descriptor() format.Descriptor {
	d := descriptor(f.name(), hambaLib+"/ocf + hand-written datum codec", format.ModuleVersion(hambaLib, "v2.31.0"),
		fmt.Sprintf("object container file, %s, %d rows per block; nullable fields as [\"null\", T] unions; "+
			"uint8..32 as int/long, uint64 as fixed(8) big-endian; timestamps as long with timestamp-millis/micros/nanos "+
			"(local-* without zone; seconds as plain long); decimal128 as bytes/decimal; names sanitized to Avro identifiers; "+
			"a flat schema of fixed-width, bool, string and binary columns is read straight into Arrow buffers", f.codec.detail, f.o.batchRows()),
		format.LabelBinary, format.LabelRow, format.LabelContainer, format.LabelHandwritten)
	d.Compresses = f.codec.name != ocf.Null
	return d
}

// AvroSchema derives the Avro schema (JSON) of the Arrow schema s.
func AvroSchema(s *arrow.Schema) (string, error) {
	g := &avroGen{}
	rec, err := g.record("row", s.Fields())
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(rec)
	return string(b), err
}

type avroGen struct{ n int }

func (g *avroGen) record(name string, fields []arrow.Field) (map[string]any, error) {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	safe := uniqueNames(names)
	fs := make([]any, len(fields))
	for i, f := range fields {
		t, err := g.typ(f.Type, f.Name)
		if err != nil {
			return nil, err
		}
		if f.Nullable && f.Type.ID() != arrow.NULL {
			t = []any{"null", t}
		}
		m := map[string]any{"name": safe[i], "type": t}
		if safe[i] != f.Name {
			m["arrow_name"] = f.Name
		}
		fs[i] = m
	}
	return map[string]any{"type": "record", "name": name, "fields": fs}, nil
}

func (g *avroGen) typ(dt arrow.DataType, path string) (any, error) {
	switch t := dt.(type) {
	case *arrow.NullType:
		return "null", nil
	case *arrow.BooleanType:
		return "boolean", nil
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Uint8Type, *arrow.Uint16Type:
		return "int", nil
	case *arrow.Int64Type, *arrow.Uint32Type:
		return "long", nil
	case *arrow.Uint64Type:
		g.n++
		return map[string]any{"type": "fixed", "name": fmt.Sprintf("uint64_%d", g.n), "size": 8}, nil
	case *arrow.Float32Type:
		return "float", nil
	case *arrow.Float64Type:
		return "double", nil
	case *arrow.StringType, *arrow.LargeStringType:
		return "string", nil
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		return "bytes", nil
	case *arrow.Date32Type:
		return map[string]any{"type": "int", "logicalType": "date"}, nil
	case *arrow.Time32Type:
		if t.Unit == arrow.Millisecond {
			return map[string]any{"type": "int", "logicalType": "time-millis"}, nil
		}
		return map[string]any{"type": "int", "arrow_unit": t.Unit.String()}, nil
	case *arrow.Time64Type:
		if t.Unit == arrow.Microsecond {
			return map[string]any{"type": "long", "logicalType": "time-micros"}, nil
		}
		return map[string]any{"type": "long", "arrow_unit": t.Unit.String()}, nil
	case *arrow.FixedSizeBinaryType:
		g.n++
		return map[string]any{"type": "fixed", "name": fmt.Sprintf("fixed%d_%d", t.ByteWidth, g.n), "size": t.ByteWidth}, nil
	case *arrow.Decimal128Type:
		if t.Scale < 0 || t.Scale > t.Precision {
			return map[string]any{"type": "bytes", "arrow_type": t.String()}, nil
		}
		return map[string]any{"type": "bytes", "logicalType": "decimal", "precision": t.Precision, "scale": t.Scale}, nil
	case *arrow.TimestampType:
		prefix := "timestamp-"
		if t.TimeZone == "" {
			prefix = "local-timestamp-"
		}
		switch t.Unit {
		case arrow.Millisecond:
			return map[string]any{"type": "long", "logicalType": prefix + "millis"}, nil
		case arrow.Microsecond:
			return map[string]any{"type": "long", "logicalType": prefix + "micros"}, nil
		case arrow.Nanosecond:
			return map[string]any{"type": "long", "logicalType": prefix + "nanos"}, nil
		}
		return map[string]any{"type": "long", "arrow_unit": "s"}, nil
	case *arrow.StructType:
		g.n++
		return g.record(fmt.Sprintf("%s_%d", sanitize(path), g.n), t.Fields())
	case arrow.ListLikeType:
		ef := t.ElemField()
		it, err := g.typ(ef.Type, path+"_item")
		if err != nil {
			return nil, err
		}
		if ef.Nullable && ef.Type.ID() != arrow.NULL {
			it = []any{"null", it}
		}
		return map[string]any{"type": "array", "items": it}, nil
	}
	return nil, cannotHold("column %s: Arrow type %s has no Avro mapping", path, dt)
}

type avroSink struct{ buf []byte }

func (s *avroSink) long(v int64) { s.buf = binary.AppendVarint(s.buf, v) } // zigzag varint
func (s *avroSink) null(nullable bool) {
	if nullable {
		s.long(0)
	}
}
func (s *avroSink) present(nullable bool) {
	if nullable {
		s.long(1)
	}
}
func (s *avroSink) boolean(v bool) {
	if v {
		s.buf = append(s.buf, 1)
	} else {
		s.buf = append(s.buf, 0)
	}
}
func (s *avroSink) i64(v int64) { s.long(v) }
func (s *avroSink) u64(v uint64) error {
	s.buf = binary.BigEndian.AppendUint64(s.buf, v)
	return nil
}
func (s *avroSink) f32(v float32) error {
	s.buf = binary.LittleEndian.AppendUint32(s.buf, math.Float32bits(v))
	return nil
}
func (s *avroSink) f64(v float64) error {
	s.buf = binary.LittleEndian.AppendUint64(s.buf, math.Float64bits(v))
	return nil
}
func (s *avroSink) str(v string) error {
	s.long(int64(len(v)))
	s.buf = append(s.buf, v...)
	return nil
}
func (s *avroSink) bin(v []byte) {
	s.long(int64(len(v)))
	s.buf = append(s.buf, v...)
}
func (s *avroSink) date(d int32) error                        { s.long(int64(d)); return nil }
func (s *avroSink) timestamp(v int64, _ arrow.TimeUnit) error { s.long(v); return nil }
func (s *avroSink) fixed(v []byte)                            { s.buf = append(s.buf, v...) }
func (s *avroSink) dec(v decimal128.Num, _ int32) error {
	s.bin(twosComplement(v.BigInt()))
	return nil
}
func (s *avroSink) beginRecord(int) {}
func (s *avroSink) key(int, string) {}
func (s *avroSink) endRecord()      {}
func (s *avroSink) beginList(n int) {
	if n > 0 {
		s.long(int64(n))
	}
}
func (s *avroSink) endList(int) { s.long(0) }

// avroEncoder hands each row's datum to hamba's OCF encoder.
type avroEncoder struct {
	name   string
	schema *arrow.Schema
	enc    *ocf.Encoder
	s      *avroSink
	rows   int64
}

func (e *avroEncoder) Encode(v *arrow.RecordBatch) error {
	rec := *v
	if !rec.Schema().Equal(e.schema) {
		return fmt.Errorf("%s: batch schema %s differs from the format's %s", e.name, rec.Schema(), e.schema)
	}
	e.s.buf = e.s.buf[:0]
	err := writeRows(rec, e.s, e.rows, func(int) error {
		_, err := e.enc.Write(e.s.buf)
		e.s.buf = e.s.buf[:0]
		return err
	})
	e.rows += rec.NumRows()
	if err != nil {
		return fmt.Errorf("%s: %w", e.name, err)
	}
	return nil
}

func (e *avroEncoder) Close() error {
	if err := e.enc.Close(); err != nil {
		return fmt.Errorf("%s: close: %w", e.name, err)
	}
	return nil
}

// NewEncoder implements format.Format.
func (f *Avro) NewEncoder(w io.Writer) (format.Encoder[arrow.RecordBatch], error) {
	opts := append([]ocf.EncoderFunc{ocf.WithCodec(f.codec.name), ocf.WithBlockLength(f.o.batchRows()),
		ocf.WithEncoderSchemaCache(&avro.SchemaCache{})}, f.codec.opts...)
	enc, err := ocf.NewEncoder(f.avroSchema, w, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: new encoder: %w", f.name(), err)
	}
	return &avroEncoder{name: f.name(), schema: f.schema, enc: enc, s: &avroSink{}}, nil
}

// avroSource decodes datums from a block.
type avroSource struct {
	b  []byte
	i  int
	st stack // records: fields left; lists: items left in the block
}

var errShort = fmt.Errorf("datum cut short: %w", io.ErrUnexpectedEOF)

func (s *avroSource) long() (int64, error) {
	v, n := binary.Varint(s.b[s.i:])
	if n <= 0 {
		if n == 0 {
			return 0, errShort
		}
		return 0, errors.New("varint overflows int64")
	}
	s.i += n
	return v, nil
}

func (s *avroSource) take(n int) ([]byte, error) {
	if n < 0 || n > len(s.b)-s.i {
		return nil, errShort
	}
	b := s.b[s.i : s.i+n]
	s.i += n
	return b, nil
}

func (s *avroSource) isNull(nullable bool) (bool, error) {
	if !nullable {
		return false, nil
	}
	idx, err := s.long()
	switch {
	case err != nil:
		return false, err
	case idx == 0:
		return true, nil
	case idx == 1:
		return false, nil
	}
	return false, fmt.Errorf("union index %d of a [null, T] union", idx)
}
func (s *avroSource) boolean() (bool, error) {
	b, err := s.take(1)
	if err != nil {
		return false, err
	}
	if b[0] > 1 {
		return false, fmt.Errorf("boolean byte %d", b[0])
	}
	return b[0] == 1, nil
}
func (s *avroSource) i64() (int64, error) { return s.long() }
func (s *avroSource) u64() (uint64, error) {
	b, err := s.take(8)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(b), nil
}
func (s *avroSource) f32() (float32, error) {
	b, err := s.take(4)
	if err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
}
func (s *avroSource) f64() (float64, error) {
	b, err := s.take(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}
func (s *avroSource) str() ([]byte, error) {
	n, err := s.long()
	if err != nil {
		return nil, err
	}
	if n > math.MaxInt32 {
		return nil, errShort
	}
	return s.take(int(n))
}
func (s *avroSource) bin() ([]byte, error) { return s.str() }
func (s *avroSource) date() (int32, error) {
	v, err := s.long()
	if err == nil {
		err = intRange(v, 32)
	}
	return int32(v), err
}
func (s *avroSource) timestamp(arrow.TimeUnit) (int64, error) { return s.long() }
func (s *avroSource) fixed(n int) ([]byte, error)             { return s.take(n) }
func (s *avroSource) dec(prec, _ int32) (decimal128.Num, error) {
	b, err := s.str()
	if err != nil {
		return decimal128.Num{}, err
	}
	v := fromTwosComplement(b)
	if v.BitLen() > 127 {
		return decimal128.Num{}, fmt.Errorf("decimal of %d bits", v.BitLen())
	}
	n := decimal128.FromBigInt(v)
	if !n.FitsInPrecision(prec) {
		return n, fmt.Errorf("decimal %s exceeds precision %d", v, prec)
	}
	return n, nil
}

// twosComplement returns v as a minimal big-endian two's-complement byte
// string (Avro's decimal encoding).
func twosComplement(v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -v - 1, inverted.
	m := new(big.Int).Neg(v)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	if len(b) == 0 || b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}

// fromTwosComplement parses a big-endian two's-complement byte string.
func fromTwosComplement(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}
func (s *avroSource) beginRecord(n int) error {
	s.st.push(n)
	return nil
}
func (s *avroSource) nextKey(names []string) (int, error) {
	top := len(s.st) - 1
	left := s.st[top]
	if left == 0 {
		s.st = s.st[:top]
		return -1, nil
	}
	s.st[top]--
	return len(names) - left, nil
}
func (s *avroSource) beginList() error {
	s.st.push(0)
	return nil
}
func (s *avroSource) more() (bool, error) {
	top := len(s.st) - 1
	if s.st[top] == 0 {
		n, err := s.long()
		if err != nil {
			return false, err
		}
		if n < 0 {
			n = -n
			if _, err := s.long(); err != nil { // block size in bytes
				return false, err
			}
		}
		if n == 0 {
			s.st = s.st[:top]
			return false, nil
		}
		// Items take at least a byte each, except Avro nulls: allow a
		// block of up to 1<<20 items beyond the bytes left.
		if n > math.MaxInt32 || (n > int64(len(s.b)-s.i) && n > 1<<20) {
			return false, fmt.Errorf("array block of %d items (corrupt count?)", n)
		}
		s.st[top] = int(n)
	}
	s.st[top]--
	return true, nil
}

// ocfReader reads the blocks of an object container file, decompressing
// them when the container's codec is deflate or zstandard.
type ocfReader struct {
	r     *bufio.Reader
	sync  [16]byte
	block []byte
	count int64
	// codec is the container's codec (null when empty); raw holds a
	// compressed block, flate and zstd are the codecs' decoders, made on
	// the first block.
	codec ocf.CodecName
	raw   []byte
	flate io.ReadCloser
	zstd  *zstd.Decoder
	// maxBlock caps a decompressed block (0: maxValueBytes).
	maxBlock int
}

const ocfMagic = "Obj\x01"

func readLong(r io.ByteReader) (int64, error) { return binary.ReadVarint(r) }

func readBytes(r *bufio.Reader, max int64) ([]byte, error) {
	n, err := readLong(r)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > max {
		return nil, fmt.Errorf("length %d out of range (corrupt?)", n)
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return b, err
}

// header reads the magic, metadata and sync marker and checks the codec.
func (o *ocfReader) header() (map[string][]byte, error) {
	var magic [4]byte
	if _, err := io.ReadFull(o.r, magic[:]); err != nil {
		return nil, format.Unexpected("avro-ocf: header", err)
	}
	if string(magic[:]) != ocfMagic {
		return nil, fmt.Errorf("avro-ocf: not an object container file (magic %q)", magic[:])
	}
	meta := map[string][]byte{}
	for {
		n, err := readLong(o.r)
		if err != nil {
			return nil, format.Unexpected("avro-ocf: header metadata", err)
		}
		if n == 0 {
			break
		}
		if n < 0 {
			n = -n
			if _, err := readLong(o.r); err != nil {
				return nil, format.Unexpected("avro-ocf: header metadata", err)
			}
		}
		if n > 1<<16 {
			return nil, fmt.Errorf("avro-ocf: %d metadata entries (corrupt?)", n)
		}
		for ; n > 0; n-- {
			k, err := readBytes(o.r, 1<<20)
			if err != nil {
				return nil, format.Unexpected("avro-ocf: header metadata", err)
			}
			v, err := readBytes(o.r, 64<<20)
			if err != nil {
				return nil, format.Unexpected("avro-ocf: header metadata", err)
			}
			meta[string(k)] = v
		}
	}
	if _, err := io.ReadFull(o.r, o.sync[:]); err != nil {
		return nil, format.Unexpected("avro-ocf: header sync marker", err)
	}
	switch c := ocf.CodecName(meta["avro.codec"]); c {
	case "", ocf.Null:
	case ocf.Deflate, ocf.ZStandard:
		o.codec = c
	default:
		return nil, fmt.Errorf("avro-ocf: container codec %q not supported by this reader (null, deflate and zstandard only)", c)
	}
	return meta, nil
}

// next reads the next block; io.EOF at a clean end.
func (o *ocfReader) next() error {
	if _, err := o.r.Peek(1); err != nil {
		if o.zstd != nil {
			o.zstd.Close()
			o.zstd = nil
		}
		return err
	}
	count, err := readLong(o.r)
	if err != nil {
		return format.Unexpected("avro-ocf: block count", err)
	}
	size, err := readLong(o.r)
	if err != nil {
		return format.Unexpected("avro-ocf: block size", err)
	}
	if count < 0 || size < 0 || size > maxValueBytes {
		return fmt.Errorf("avro-ocf: block of %d rows, %d bytes (corrupt?)", count, size)
	}
	// The block grows with the bytes read, so a corrupt size cannot
	// allocate much more than the input holds.
	dst := &o.block
	if o.codec != "" {
		dst = &o.raw
	}
	if *dst, err = readGrowing(o.r, (*dst)[:0], size); err != nil {
		return format.Unexpected("avro-ocf: block", err)
	}
	if o.codec != "" {
		if err := o.decompress(); err != nil {
			return fmt.Errorf("avro-ocf: %s block: %w", o.codec, err)
		}
	}
	var sync [16]byte
	if _, err := io.ReadFull(o.r, sync[:]); err != nil {
		return format.Unexpected("avro-ocf: block sync marker", err)
	}
	if sync != o.sync {
		return errors.New("avro-ocf: block sync marker differs from the header's (corrupt?)")
	}
	o.count = count
	return nil
}

// readGrowing reads exactly n bytes from r, appending them to buf, which
// grows with the bytes read (doubling from 1 MiB): a corrupt n cannot
// allocate much more than r holds.
func readGrowing(r io.Reader, buf []byte, n int64) ([]byte, error) {
	want := int64(len(buf)) + n
	for int64(len(buf)) < want {
		k := int(min(want, int64(max(2*cap(buf), 1<<20))))
		if cap(buf) < k {
			buf = append(make([]byte, 0, k), buf...)
		}
		m := len(buf)
		buf = buf[:k]
		if _, err := io.ReadFull(r, buf[m:]); err != nil {
			return buf[:m], err
		}
	}
	return buf, nil
}

// zstdMaxRatio bounds what a zstd frame of n bytes can hold: a block
// takes at least 4 bytes (an RLE block: a 3-byte header and the byte)
// and holds at most 128 KiB, so a frame declaring more than 32768 times
// its size is corrupt — and must not make the decoder allocate it.
const zstdMaxRatio = 128 << 10 / 4

// decompress decompresses o.raw into o.block, at most o.maxBlock bytes.
func (o *ocfReader) decompress() error {
	limit := o.maxBlock
	if limit <= 0 {
		limit = maxValueBytes
	}
	switch o.codec {
	case ocf.Deflate:
		// Raw DEFLATE (RFC 1951), read as it inflates: o.block grows
		// with the output, never from a declared size.
		if o.flate == nil {
			o.flate = flate.NewReader(bytes.NewReader(o.raw))
		} else if err := o.flate.(flate.Resetter).Reset(bytes.NewReader(o.raw), nil); err != nil {
			return err
		}
		b := o.block[:0]
		for {
			if len(b) == cap(b) {
				if len(b) > limit {
					o.block = b[:0]
					return fmt.Errorf("inflates to more than %d bytes (corrupt?)", limit)
				}
				// Double, up to one byte past the limit.
				b = append(b, make([]byte, min(max(len(b), 64<<10), limit+1-len(b)))...)[:len(b)]
			}
			n, err := o.flate.Read(b[len(b):cap(b)])
			b = b[:len(b)+n]
			if err == io.EOF {
				break
			}
			if err != nil {
				o.block = b[:0]
				return err
			}
		}
		o.block = b
		return nil
	case ocf.ZStandard:
		var h zstd.Header
		if err := h.Decode(o.raw); err != nil {
			return err
		}
		if h.HasFCS && (h.FrameContentSize > uint64(limit) || h.FrameContentSize > zstdMaxRatio*uint64(len(o.raw))) {
			return fmt.Errorf("frame of %d bytes declares %d bytes of content (corrupt?)", len(o.raw), h.FrameContentSize)
		}
		if o.zstd == nil {
			d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(limit)))
			if err != nil {
				return err
			}
			o.zstd = d
		}
		b, err := o.zstd.DecodeAll(o.raw, o.block[:0])
		if err != nil {
			return err
		}
		o.block = b
		return nil
	}
	return fmt.Errorf("codec %q not supported", o.codec)
}

// NewDecoder implements format.Format.
func (f *Avro) NewDecoder(r io.Reader) (format.Decoder[arrow.RecordBatch], error) {
	or := &ocfReader{r: bufio.NewReaderSize(r, 64<<10)}
	meta, err := or.header()
	if err != nil {
		return nil, err
	}
	ws, err := avro.ParseWithCache(string(meta["avro.schema"]), "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("%s: file schema: %w", f.name(), err)
	}
	want, _ := avro.ParseWithCache(f.avroSchema, "", &avro.SchemaCache{})
	if ws.Fingerprint() != want.Fingerprint() {
		return nil, fmt.Errorf("%s: file schema %s differs from the format's %s", f.name(), ws, want)
	}
	if d := newAvroFlat(f.name(), f.schema, f.o, or); d != nil {
		return d, nil
	}
	return f.newRowDecoder(or), nil
}

// newRowDecoder returns the general decoder of the blocks of or, for any
// schema.
func (f *Avro) newRowDecoder(or *ocfReader) format.Decoder[arrow.RecordBatch] {
	d := newRowDecoder(f.name(), f.schema, f.o)
	src := &avroSource{}
	rr := newRowReader(f.schema, d.b)
	d.readRow = func() error {
		for or.count == 0 {
			if src.i != len(src.b) {
				return fmt.Errorf("%d bytes after the block's last datum", len(src.b)-src.i)
			}
			if err := or.next(); err != nil {
				return err
			}
			src.b, src.i = or.block, 0
		}
		or.count--
		src.st = src.st[:0]
		return rr.read(src)
	}
	return d
}
