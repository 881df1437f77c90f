package data

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/serbench/serbench/workload/userdata"
)

// innerCompression says how an input of kind compresses its data inside
// the file, "" for a text input (whose only compression is comp, the
// codec around the file). The codec is read from the file where that is
// cheap (a Parquet footer, an Avro header) and the file is not compressed
// around; else the phrase says where the compression would be.
func innerCompression(path string, kind userdata.Kind, comp string) string {
	plain := comp == "none" || comp == ""
	switch kind {
	case userdata.KindParquet:
		if plain {
			if cs, ok := parquetCodecs(path); ok {
				if len(cs) == 1 && cs[0] == "uncompressed" {
					return "none (Parquet pages uncompressed)"
				}
				return strings.Join(cs, ", ") + " inside the file (Parquet pages)"
			}
		}
		return "inside the file (Parquet pages)"
	case userdata.KindAvro:
		if plain {
			if c, ok := avroCodec(path); ok {
				if c == "null" {
					return "none (Avro blocks uncompressed)"
				}
				return c + " inside the file (Avro blocks)"
			}
		}
		return "inside the file (Avro blocks)"
	case userdata.KindArrowFile, userdata.KindArrowStream:
		return "inside the file, if any (Arrow IPC buffers)"
	}
	return ""
}

// compressionText describes an input's compression: the codec around the
// file (outer), and how it compresses inside (inner, "" for none).
func compressionText(outer, inner string) string {
	switch {
	case inner == "":
		return outer
	case outer == "none" || outer == "":
		return inner
	default:
		return outer + " around the file; " + inner
	}
}

// parquetCodecs returns the codecs of the column chunks of a Parquet
// file's first row group, lower case and sorted.
func parquetCodecs(path string) ([]string, bool) {
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, false
	}
	defer r.Close()
	md := r.MetaData()
	if md.NumRowGroups() == 0 {
		return nil, false
	}
	rg := md.RowGroup(0)
	var out []string
	for c := 0; c < rg.NumColumns(); c++ {
		cc, err := rg.ColumnChunk(c)
		if err != nil {
			return nil, false
		}
		name := strings.ToLower(cc.Compression().String()) // "snappy", "uncompressed"
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, len(out) > 0
}

// avroCodec reads the avro.codec entry of an Avro object container file's
// header ("null" when absent, as the specification says), skipping the
// other entries (the schema may be large) unread.
func avroCodec(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	r := bufio.NewReader(f)
	magic := make([]byte, 4)
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != "Obj\x01" {
		return "", false
	}
	codec := "null"
	for {
		n, err := binary.ReadVarint(r)
		if err != nil {
			return "", false
		}
		if n == 0 {
			return codec, true
		}
		if n < 0 {
			// A negative count is followed by the block's size in bytes.
			if _, err := binary.ReadVarint(r); err != nil {
				return "", false
			}
			n = -n
		}
		for range n {
			key, err := avroBytes(r, 256)
			if err != nil {
				return "", false
			}
			if string(key) != "avro.codec" {
				if err := avroSkip(r); err != nil {
					return "", false
				}
				continue
			}
			v, err := avroBytes(r, 256)
			if err != nil {
				return "", false
			}
			codec = string(v)
		}
	}
}

var errAvroHeader = errors.New("bad Avro header")

// avroBytes reads an Avro bytes or string value of at most max bytes.
func avroBytes(r *bufio.Reader, max int64) ([]byte, error) {
	n, err := binary.ReadVarint(r)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > max {
		return nil, errAvroHeader
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return b, err
}

// avroSkip skips an Avro bytes value.
func avroSkip(r *bufio.Reader) error {
	n, err := binary.ReadVarint(r)
	if err != nil {
		return err
	}
	if n < 0 {
		return errAvroHeader
	}
	for n > 0 {
		k, err := r.Discard(int(min(n, 1<<20)))
		if err != nil {
			return err
		}
		n -= int64(k)
	}
	return nil
}
