package userdata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxParquetGroups bounds the nesting of groups in a Parquet schema: an
// Arrow list takes two Parquet groups, so MaxDepth levels of Arrow nesting
// take at most 2 × MaxDepth + 2 (the root and a map's key_value included).
const maxParquetGroups = 2*MaxDepth + 2

// checkParquet reads the footer of the Parquet file f (size bytes) and
// refuses what it declares beyond the file or the limits — a column chunk
// larger than the file, a group with more children than the schema lists,
// a schema deeper than maxParquetGroups or wider than MaxColumns — before
// arrow-go allocates for it.
func checkParquet(f io.ReaderAt, size int64, path string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("userdata: %s: %s: not a valid Parquet file (or truncated)", path, fmt.Sprintf(format, args...))
	}
	if size < 12 {
		return bad("%d bytes, fewer than a Parquet file's 12 bytes of magic and footer length", size)
	}
	var head, tail [8]byte
	if _, err := f.ReadAt(head[:4], 0); err != nil {
		return fmt.Errorf("userdata: %s: %w", path, err)
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return fmt.Errorf("userdata: %s: %w", path, err)
	}
	if string(tail[4:]) == "PARE" {
		return fmt.Errorf("userdata: %s: the Parquet footer is encrypted, which is not supported", path)
	}
	if string(head[:4]) != "PAR1" || string(tail[4:]) != "PAR1" {
		return bad("no PAR1 magic bytes at its start and end")
	}
	flen := int64(binary.LittleEndian.Uint32(tail[:4]))
	if flen > size-12 {
		return bad("the footer declares %s bytes but the file holds %s before it", thousands(flen), thousands(size-12))
	}
	footer := make([]byte, flen)
	if _, err := f.ReadAt(footer, size-8-flen); err != nil {
		return fmt.Errorf("userdata: %s: read the Parquet footer: %w", path, err)
	}
	dataEnd := size - 8 - flen // column chunks lie in [4, dataEnd)

	type element struct {
		name     string
		children int64
	}
	var (
		elems  []element
		chunks []chunkCheck
	)
	t := &thriftReader{b: footer}
	err := t.fields(0, func(id int16, typ byte) (bool, error) {
		switch {
		case id == 2 && typ == tList: // schema: list<SchemaElement>
			n, et, err := t.listHeader()
			if err != nil || (n > 0 && et != tStruct) {
				return true, errors.Join(err, errThrift)
			}
			elems = make([]element, 0, n)
			for range n {
				var e element
				err := t.fields(1, func(id int16, typ byte) (bool, error) {
					switch {
					case id == 4 && typ == tBinary:
						s, err := t.binary()
						e.name = string(s)
						return true, err
					case id == 5 && typ == tI32:
						v, err := t.varint()
						e.children = v
						return true, err
					}
					return false, nil
				})
				if err != nil {
					return true, err
				}
				elems = append(elems, e)
			}
			return true, nil
		case id == 4 && typ == tList: // row_groups: list<RowGroup>
			n, et, err := t.listHeader()
			if err != nil || (n > 0 && et != tStruct) {
				return true, errors.Join(err, errThrift)
			}
			for rg := range n {
				err := t.fields(1, func(id int16, typ byte) (bool, error) {
					switch {
					case id == 1 && typ == tList: // columns: list<ColumnChunk>
						n, et, err := t.listHeader()
						if err != nil || (n > 0 && et != tStruct) {
							return true, errors.Join(err, errThrift)
						}
						for col := range n {
							c := chunkCheck{rowGroup: rg, column: col}
							if err := t.fields(2, c.read(t)); err != nil {
								return true, err
							}
							chunks = append(chunks, c)
						}
						return true, nil
					case id == 3 && typ == tI64: // num_rows
						v, err := t.i64()
						if err == nil && v < 0 {
							err = fmt.Errorf("row group %d declares %d rows", rg, v)
						}
						return true, err
					}
					return false, nil
				})
				if err != nil {
					return true, err
				}
			}
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return bad("footer: %v", err)
	}
	if len(elems) == 0 {
		return bad("the footer holds no schema")
	}

	// The schema is a tree listed depth first: each group's children
	// follow it.
	idx, leaves := 0, 0
	var names []string
	var walk func(depth int) error
	walk = func(depth int) error {
		e := elems[idx]
		idx++
		if depth > 0 {
			names = append(names, e.name)
			defer func() { names = names[:len(names)-1] }()
		}
		if e.children < 0 || e.children > int64(len(elems)-idx) {
			follow := "elements follow"
			if len(elems)-idx == 1 {
				follow = "element follows"
			}
			return bad("schema element %q declares %s children but %s %s it",
				shorten(e.name, 60), thousands(e.children), thousands(int64(len(elems)-idx)), follow)
		}
		if e.children == 0 {
			if depth > 0 {
				leaves++
			}
			if leaves > MaxColumns {
				return fmt.Errorf("userdata: %s: the Parquet schema has more than %s leaf columns, the limit", path, thousands(MaxColumns))
			}
			return nil
		}
		if depth >= maxParquetGroups {
			return fmt.Errorf("userdata: %s: the Parquet schema nests groups deeper than %d at %s, the limit (%d levels of nesting once read as Arrow; a list takes two groups)",
				path, maxParquetGroups, shorten(strings.Join(names, "."), 80), MaxDepth)
		}
		for range e.children {
			if err := walk(depth + 1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(0); err != nil {
		return err
	}

	for _, c := range chunks {
		if !c.hasMeta || c.filePath {
			continue
		}
		start := c.dataOffset
		if c.dictOffset > 0 && c.dictOffset < start {
			start = c.dictOffset
		}
		name := c.name
		if name == "" {
			name = fmt.Sprint(c.column)
		}
		if start < 4 || start > dataEnd {
			return bad("row group %d, column %s: the column chunk starts at offset %s, outside the file's data (bytes 4 to %s)",
				c.rowGroup, shorten(name, 60), thousands(start), thousands(dataEnd))
		}
		if c.compressed < 0 || c.compressed > dataEnd-start {
			return bad("row group %d, column %s: the column chunk declares %s bytes but the file holds %s more",
				c.rowGroup, shorten(name, 60), thousands(c.compressed), thousands(dataEnd-start))
		}
		if c.values < 0 {
			return bad("row group %d, column %s: the column chunk declares %d values", c.rowGroup, shorten(name, 60), c.values)
		}
	}
	return nil
}

// chunkCheck is what checkParquet reads of a column chunk.
type chunkCheck struct {
	rowGroup, column                   int
	name                               string
	hasMeta, filePath                  bool
	dataOffset, dictOffset, compressed int64
	values                             int64
}

// read returns the field walker of a ColumnChunk struct.
func (c *chunkCheck) read(t *thriftReader) func(int16, byte) (bool, error) {
	return func(id int16, typ byte) (bool, error) {
		switch {
		case id == 1 && typ == tBinary: // file_path
			_, err := t.binary()
			c.filePath = true
			return true, err
		case id == 3 && typ == tStruct: // meta_data: ColumnMetaData
			c.hasMeta = true
			return true, t.fields(3, func(id int16, typ byte) (bool, error) {
				switch {
				case id == 3 && typ == tList: // path_in_schema
					n, et, err := t.listHeader()
					if err != nil || (n > 0 && et != tBinary) {
						return true, errors.Join(err, errThrift)
					}
					var parts [][]byte
					for range n {
						s, err := t.binary()
						if err != nil {
							return true, err
						}
						if len(parts) < 64 {
							parts = append(parts, s)
						}
					}
					c.name = string(bytes.Join(parts, []byte(".")))
					return true, nil
				case id == 5 && typ == tI64:
					v, err := t.i64()
					c.values = v
					return true, err
				case id == 7 && typ == tI64:
					v, err := t.i64()
					c.compressed = v
					return true, err
				case id == 9 && typ == tI64:
					v, err := t.i64()
					c.dataOffset = v
					return true, err
				case id == 11 && typ == tI64:
					v, err := t.i64()
					c.dictOffset = v
					return true, err
				}
				return false, nil
			})
		}
		return false, nil
	}
}
