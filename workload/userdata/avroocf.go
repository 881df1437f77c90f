package userdata

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"

	"github.com/golang/snappy"
	"github.com/hamba/avro/v2"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// ocfReader reads an Avro object container file: its header, then its
// blocks one at a time, each checked against what the file holds before
// anything is allocated for it (hamba/avro's OCF decoder allocates the size a
// block declares, 2^40 bytes for a corrupt one). Records are decoded with
// hamba/avro from the block's bytes in memory.
type ocfReader struct {
	r      *bufio.Reader
	path   string
	left   int64 // bytes left in an uncompressed file; -1 when unknown
	schema avro.Schema
	codec  string
	sync   [16]byte
	minRec int64 // the fewest bytes a record takes

	block   int   // blocks read
	records int64 // records left in the current block
	row     int64 // records decoded
	dec     *avro.Reader
	apis    map[int]avro.API // by size class (bits.Len of the block size)
	zstd    *zstd.Decoder
}

// maxAvroHeaderValue bounds one value of an Avro header (the schema).
const maxAvroHeaderValue = 64 << 20

// maxZeroSizeRecords bounds the records of a block when records may take
// no bytes at all (a record of nulls), which the block's size cannot bound.
const maxZeroSizeRecords = 1 << 24

func (o *ocfReader) bad(format string, args ...any) error {
	return fmt.Errorf("userdata: %s: %s: not a valid Avro file (or truncated)", o.path, fmt.Sprintf(format, args...))
}

func (o *ocfReader) readFull(p []byte) error {
	n, err := io.ReadFull(o.r, p)
	if o.left >= 0 {
		o.left -= int64(n)
	}
	return err
}

// long reads a zigzag varint.
func (o *ocfReader) long() (int64, error) {
	var u uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 70 {
			return 0, errors.New("a number longer than 10 bytes")
		}
		c, err := o.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		if o.left >= 0 {
			o.left--
		}
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	return int64(u>>1) ^ -int64(u&1), nil
}

// bytesOf reads n bytes, checked against the bytes left when known and read
// as they arrive otherwise.
func (o *ocfReader) bytesOf(n int64, what string) ([]byte, error) {
	if n < 0 {
		return nil, o.bad("%s declares %d bytes", what, n)
	}
	if o.left >= 0 && n > o.left {
		return nil, o.bad("%s declares %s bytes but the file holds %s more", what, thousands(n), thousands(o.left))
	}
	b, err := readUpTo(o.r, n, o.left >= 0)
	if o.left >= 0 {
		o.left -= int64(len(b))
	}
	if err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, o.bad("%s declares %s bytes but the input ends after %s", what, thousands(n), thousands(int64(len(b))))
		}
		return nil, fmt.Errorf("userdata: %s: %s: %w", o.path, what, err)
	}
	return b, nil
}

// newOCFReader reads the header of the container file in (size bytes; -1
// when unknown).
func newOCFReader(in io.Reader, path string, size int64) (*ocfReader, error) {
	o := &ocfReader{r: bufio.NewReaderSize(in, 256<<10), path: path, left: size, apis: map[int]avro.API{}}
	var magic [4]byte
	if err := o.readFull(magic[:]); err != nil || string(magic[:]) != "Obj\x01" {
		return nil, fmt.Errorf("userdata: %s: not an Avro object container file (no Obj\\x01 magic bytes at its start)", path)
	}
	meta := map[string][]byte{}
	for {
		n, err := o.long()
		if err != nil {
			return nil, o.bad("header: %v", err)
		}
		if n == 0 {
			break
		}
		if n < 0 { // a block of -n entries, then its size in bytes
			n = -n
			if _, err := o.long(); err != nil {
				return nil, o.bad("header: %v", err)
			}
		}
		if o.left >= 0 && n > o.left/2 {
			return nil, o.bad("the header declares %s entries but the file holds %s more bytes", thousands(n), thousands(o.left))
		}
		for range n {
			var kv [2][]byte
			for i, what := range [2]string{"a header key", "a header value"} {
				l, err := o.long()
				if err != nil {
					return nil, o.bad("header: %v", err)
				}
				if l > maxAvroHeaderValue {
					return nil, fmt.Errorf("userdata: %s: %s declares %s bytes, more than the limit of %s: not a valid Avro file",
						path, what, thousands(l), sizeText(maxAvroHeaderValue))
				}
				if kv[i], err = o.bytesOf(l, what); err != nil {
					return nil, err
				}
			}
			meta[string(kv[0])] = kv[1]
		}
	}
	if err := o.readFull(o.sync[:]); err != nil {
		return nil, o.bad("the header ends before its sync marker")
	}
	js, ok := meta["avro.schema"]
	if !ok {
		return nil, o.bad("the header has no avro.schema")
	}
	// A cache of its own: named types of one file must not meet another's.
	s, err := avro.ParseBytesWithCache(js, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("userdata: %s: Avro schema: %w", path, err)
	}
	o.schema = s
	o.codec = string(meta["avro.codec"])
	switch o.codec {
	case "", "null", "deflate", "snappy", "bzip2", "xz":
	case "zstandard":
		if o.zstd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxAvroBlock)); err != nil {
			return nil, fmt.Errorf("userdata: %s: %w", path, err)
		}
	default:
		return nil, fmt.Errorf("userdata: %s: Avro codec %q not supported (null, deflate, snappy, zstandard, bzip2, xz)", path, o.codec)
	}
	o.minRec = avroMinSize(s, map[string]bool{})
	return o, nil
}

func (o *ocfReader) close() {
	if o.zstd != nil {
		o.zstd.Close()
	}
}

// nextBlock reads the next block; it returns false at the end of the file.
func (o *ocfReader) nextBlock() (bool, error) {
	for {
		if _, err := o.r.Peek(1); err == io.EOF {
			return false, nil
		}
		o.block++
		count, err := o.long()
		if err != nil {
			return false, o.bad("block %d: %v", o.block, err)
		}
		size, err := o.long()
		if err != nil {
			return false, o.bad("block %d: %v", o.block, err)
		}
		if count < 0 {
			return false, o.bad("block %d declares %d records", o.block, count)
		}
		if o.left >= 0 && size >= 0 && size+16 > o.left {
			return false, o.bad("block %d declares %s bytes but the file holds %s more", o.block, thousands(size), thousands(o.left))
		}
		data, err := o.bytesOf(size, fmt.Sprintf("block %d", o.block))
		if err != nil {
			return false, err
		}
		var sync [16]byte
		if err := o.readFull(sync[:]); err != nil {
			return false, o.bad("block %d ends before its sync marker", o.block)
		}
		if sync != o.sync {
			return false, o.bad("block %d's sync marker differs from the header's", o.block)
		}
		if count == 0 {
			continue
		}
		data, err = o.decompress(data)
		if err != nil {
			return false, err
		}
		if o.minRec > 0 && count > int64(len(data))/o.minRec {
			return false, o.bad("block %d declares %s records in %s bytes, where each takes %d or more",
				o.block, thousands(count), thousands(int64(len(data))), o.minRec)
		}
		if o.minRec == 0 && count > maxZeroSizeRecords {
			return false, fmt.Errorf("userdata: %s: block %d declares %s records of a type that takes no bytes, more than the limit of %s",
				o.path, o.block, thousands(count), thousands(maxZeroSizeRecords))
		}
		class := bits.Len(uint(len(data)))
		api, ok := o.apis[class]
		if !ok {
			// Strings and bytes cannot be longer than the block: hamba
			// allocates the length it reads before it reads the bytes.
			api = avro.Config{MaxByteSliceSize: max(1<<class, 1<<10)}.Freeze()
			o.apis[class] = api
		}
		o.dec = avro.NewReader(nil, 0, avro.WithReaderConfig(api)).Reset(data)
		o.records = count
		return true, nil
	}
}

// decompress decodes a block's bytes with the file's codec, refusing more
// than maxAvroBlock bytes.
func (o *ocfReader) decompress(data []byte) ([]byte, error) {
	tooBig := func() error {
		return fmt.Errorf("userdata: %s: block %d decompresses to more than %s, the limit for one Avro block", o.path, o.block, sizeText(maxAvroBlock))
	}
	failed := func(err error) error {
		return fmt.Errorf("userdata: %s: block %d: %s: %w", o.path, o.block, o.codec, err)
	}
	readAll := func(r io.Reader) ([]byte, error) {
		b, err := io.ReadAll(io.LimitReader(r, maxAvroBlock+1))
		if err != nil {
			return nil, failed(err)
		}
		if len(b) > maxAvroBlock {
			return nil, tooBig()
		}
		return b, nil
	}
	switch o.codec {
	case "deflate":
		fr := flate.NewReader(bytes.NewReader(data))
		defer fr.Close()
		return readAll(fr)
	case "bzip2":
		return readAll(bzip2.NewReader(bytes.NewReader(data)))
	case "xz":
		xr, err := xz.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, failed(err)
		}
		return readAll(xr)
	case "snappy":
		if len(data) < 5 {
			return nil, o.bad("block %d: %d bytes, too few for snappy and its checksum", o.block, len(data))
		}
		n, err := snappy.DecodedLen(data[:len(data)-4])
		if err != nil {
			return nil, failed(err)
		}
		if n > maxAvroBlock {
			return nil, tooBig()
		}
		b, err := snappy.Decode(nil, data[:len(data)-4])
		if err != nil {
			return nil, failed(err)
		}
		if crc32.ChecksumIEEE(b) != binary.BigEndian.Uint32(data[len(data)-4:]) {
			return nil, o.bad("block %d: snappy checksum mismatch", o.block)
		}
		return b, nil
	case "zstandard":
		b, err := o.zstd.DecodeAll(data, nil)
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return nil, tooBig()
		}
		if err != nil {
			return nil, failed(err)
		}
		return b, nil
	}
	return data, nil
}

// next decodes the next record into v; it returns false at the end of the
// file.
func (o *ocfReader) next(v *map[string]any) (bool, error) {
	for o.records == 0 {
		ok, err := o.nextBlock()
		if !ok || err != nil {
			return false, err
		}
	}
	o.records--
	o.dec.ReadVal(o.schema, v)
	if err := o.dec.Error; err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("the record runs past the end of its block")
		}
		return false, fmt.Errorf("userdata: %s: Avro record %d (block %d): %w", o.path, o.row, o.block, err)
	}
	o.row++
	return true, nil
}

// avroMinSize returns the fewest bytes a value of s is encoded in
// (in-progress named types count as large: a recursion must end in a union
// branch).
func avroMinSize(s avro.Schema, inProgress map[string]bool) int64 {
	const large = 1 << 20
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	switch t := s.(type) {
	case *avro.RecordSchema:
		name := t.FullName()
		if inProgress[name] {
			return large
		}
		inProgress[name] = true
		defer delete(inProgress, name)
		var n int64
		for _, f := range t.Fields() {
			n = min(n+avroMinSize(f.Type(), inProgress), large)
		}
		return n
	case *avro.UnionSchema:
		n := int64(large)
		for _, b := range t.Types() {
			n = min(n, avroMinSize(b, inProgress))
		}
		return 1 + n
	case *avro.FixedSchema:
		return int64(t.Size())
	case *avro.NullSchema:
		return 0
	case *avro.PrimitiveSchema:
		switch t.Type() {
		case avro.Null:
			return 0
		case avro.Float:
			return 4
		case avro.Double:
			return 8
		}
		return 1
	}
	return 1 // enum, array, map: one byte at least
}
