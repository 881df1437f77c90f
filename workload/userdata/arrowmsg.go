package userdata

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ipcMessages reads the messages of an Arrow IPC stream, checking what each
// declares before reading it: arrow-go's own stream reader allocates the
// metadata and body lengths a message declares (up to 2^63 bytes) before it
// reads them. Here the metadata is bounded by maxIPCMetadata, both are
// checked against the bytes left in the file when that is known, and read
// into buffers that grow as the bytes arrive otherwise (a compressed
// stream), so a corrupt length costs no more than the bytes really there.
type ipcMessages struct {
	r    io.Reader
	path string
	left int64 // bytes left in an uncompressed file; -1 when unknown
	n    int   // messages read
	mem  memory.Allocator
	msg  *ipc.Message
	refs atomic.Int64
}

func newIPCMessages(r io.Reader, path string, size int64, mem memory.Allocator) *ipcMessages {
	m := &ipcMessages{r: r, path: path, left: size, mem: mem}
	m.refs.Add(1)
	return m
}

func (m *ipcMessages) Retain() { m.refs.Add(1) }

func (m *ipcMessages) Release() {
	if m.refs.Add(-1) == 0 && m.msg != nil {
		m.msg.Release()
		m.msg = nil
	}
}

func (m *ipcMessages) read(p []byte) error {
	k, err := io.ReadFull(m.r, p)
	if m.left >= 0 {
		m.left -= int64(k)
	}
	return err
}

func (m *ipcMessages) bad(format string, args ...any) error {
	return fmt.Errorf("message %d %s: not a valid Arrow IPC stream (or truncated)", m.n, fmt.Sprintf(format, args...))
}

// Message returns the next message, or io.EOF at the end of the stream.
func (m *ipcMessages) Message() (*ipc.Message, error) {
	var word [4]byte
	if err := m.read(word[:]); err != nil {
		if err == io.EOF {
			return nil, io.EOF // a stream without an end-of-stream marker
		}
		return nil, m.bad("is cut short (%v)", err)
	}
	length := binary.LittleEndian.Uint32(word[:])
	switch length {
	case 0:
		return nil, io.EOF
	case 0xFFFFFFFF: // continuation marker, then the length
		if err := m.read(word[:]); err != nil {
			return nil, m.bad("is cut short (%v)", err)
		}
		length = binary.LittleEndian.Uint32(word[:])
		if length == 0 {
			return nil, io.EOF
		}
	}
	if length < 8 || length > maxIPCMetadata {
		return nil, fmt.Errorf("message %d declares %s bytes of metadata (the limit is %s): not a valid Arrow IPC stream",
			m.n, thousands(int64(length)), sizeText(maxIPCMetadata))
	}
	if m.left >= 0 && int64(length) > m.left {
		return nil, m.bad("declares %s bytes of metadata but the file holds %s more", thousands(int64(length)), thousands(m.left))
	}
	meta, err := readUpTo(m.r, int64(length), m.left >= 0)
	if m.left >= 0 {
		m.left -= int64(len(meta))
	}
	if err != nil {
		return nil, m.bad("declares %s bytes of metadata but the stream ends after %s", thousands(int64(length)), thousands(int64(len(meta))))
	}
	if err := verifyIPCMessage(meta); err != nil {
		var le *limitError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("message %d: %w", m.n, err)
		}
		return nil, m.bad("metadata: %v", err)
	}
	bodyLen, err := messageBodyLength(meta)
	if err != nil {
		return nil, m.bad("%v", err)
	}
	if m.left >= 0 && bodyLen > m.left {
		return nil, m.bad("declares a body of %s bytes but the file holds %s more", thousands(bodyLen), thousands(m.left))
	}
	body, got, err := readBuffer(m.r, bodyLen, m.mem, m.left >= 0)
	if m.left >= 0 {
		m.left -= got
	}
	if err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, m.bad("declares a body of %s bytes but the stream ends after %s", thousands(bodyLen), thousands(got))
		}
		return nil, m.bad("body: %v", err)
	}
	if m.msg != nil {
		m.msg.Release()
		m.msg = nil
	}
	m.msg = ipc.NewMessage(memory.NewBufferBytes(meta), body)
	body.Release()
	m.n++
	return m.msg, nil
}

// readBuffer reads n bytes from r into a buffer of mem that grows as the
// bytes arrive (doubling from 1 MiB), so that a corrupt length costs no more
// than the bytes really there, or of n bytes at once when n is known to be
// there (exact). It returns the bytes read and io.ErrUnexpectedEOF when r
// ends first.
func readBuffer(r io.Reader, n int64, mem memory.Allocator, exact bool) (*memory.Buffer, int64, error) {
	buf := memory.NewResizableBuffer(mem)
	var got int64
	size := min(n, 1<<20)
	if exact {
		size = n
	}
	for {
		buf.Resize(int(size))
		k, err := io.ReadFull(r, buf.Bytes()[got:size])
		got += int64(k)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			buf.Release()
			return nil, got, err
		}
		if got == n {
			return buf, got, nil
		}
		size = min(2*size, n)
	}
}

var errFlatbuffer = errors.New("malformed message metadata")

// messageBodyLength reads the bodyLength field of the Message at the root
// of meta.
func messageBodyLength(meta []byte) (int64, error) {
	at, err := messageBodyLengthPos(meta)
	if err != nil || at < 0 {
		return 0, err
	}
	n := int64(binary.LittleEndian.Uint64(meta[at:]))
	if n < 0 {
		return 0, fmt.Errorf("declares a body of %d bytes", n)
	}
	return n, nil
}

// messageBodyLengthPos returns where the bodyLength field (field 3, an
// int64) of the flatbuffers Message table at the root of meta lies, or -1
// when it is absent (no body), checking every offset.
func messageBodyLengthPos(meta []byte) (int64, error) {
	u32 := func(at int64) (int64, bool) {
		if at < 0 || at+4 > int64(len(meta)) {
			return 0, false
		}
		return int64(binary.LittleEndian.Uint32(meta[at:])), true
	}
	u16 := func(at int64) (int64, bool) {
		if at < 0 || at+2 > int64(len(meta)) {
			return 0, false
		}
		return int64(binary.LittleEndian.Uint16(meta[at:])), true
	}
	table, ok := u32(0)
	if !ok {
		return 0, errFlatbuffer
	}
	soff, ok := u32(table)
	if !ok {
		return 0, errFlatbuffer
	}
	vtable := table - int64(int32(uint32(soff)))
	vlen, ok := u16(vtable)
	if !ok {
		return 0, errFlatbuffer
	}
	const field = 4 + 2*3 // bodyLength's slot in the vtable
	if vlen < field+2 {
		return -1, nil
	}
	off, ok := u16(vtable + field)
	if !ok {
		return 0, errFlatbuffer
	}
	if off == 0 {
		return -1, nil
	}
	at := table + off
	if at+8 > int64(len(meta)) {
		return 0, errFlatbuffer
	}
	return at, nil
}

// checkArrowFile reads the footer of the Arrow IPC file f (size bytes) and
// checks it, its blocks and the metadata of the messages they point at,
// before arrow-go reads them.
func checkArrowFile(f io.ReaderAt, size int64, path string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("userdata: %s: %s: not a valid Arrow IPC file (or truncated)", path, fmt.Sprintf(format, args...))
	}
	const magic = len(arrowMagic)
	if size < 2*int64(magic)+4+2 {
		return bad("%d bytes, fewer than an Arrow file's magic bytes and footer length", size)
	}
	var tail [4 + magic]byte
	if _, err := f.ReadAt(tail[:], size-int64(len(tail))); err != nil {
		return fmt.Errorf("userdata: %s: %w", path, err)
	}
	if string(tail[4:]) != arrowMagic {
		return bad("no %s magic bytes at its end", arrowMagic)
	}
	flen := int64(int32(binary.LittleEndian.Uint32(tail[:4])))
	end := size - int64(len(tail)) // the footer ends here
	if flen <= 0 || flen > end-8 || flen > maxIPCMetadata {
		return bad("the footer declares %s bytes but the file holds %s before it", thousands(flen), thousands(end-8))
	}
	footer := make([]byte, flen)
	if _, err := f.ReadAt(footer, end-flen); err != nil {
		return fmt.Errorf("userdata: %s: read the footer: %w", path, err)
	}
	dicts, batches, err := verifyIPCFooter(footer)
	var le *limitError
	if errors.As(err, &le) {
		return fmt.Errorf("userdata: %s: %w", path, err)
	}
	if err != nil {
		return bad("footer: %v", err)
	}
	data := end - flen // blocks lie in [8, data)
	for i, b := range append(dicts, batches...) {
		what := fmt.Sprintf("dictionary %d", i)
		if i >= len(dicts) {
			what = fmt.Sprintf("record batch %d", i-len(dicts))
		}
		if b.offset < 8 || b.meta < 8 || b.body < 0 || b.offset > data || b.meta > data-b.offset || b.body > data-b.offset-b.meta {
			return bad("%s's block at offset %s declares %s bytes of metadata and %s of body but the file holds %s there",
				what, thousands(b.offset), thousands(b.meta), thousands(b.body), thousands(max(data-b.offset, 0)))
		}
		if b.meta > maxIPCMetadata {
			return bad("%s declares %s bytes of metadata (the limit is %s)", what, thousands(b.meta), sizeText(maxIPCMetadata))
		}
		meta := make([]byte, b.meta)
		if _, err := f.ReadAt(meta, b.offset); err != nil {
			return fmt.Errorf("userdata: %s: read %s: %w", path, what, err)
		}
		if binary.LittleEndian.Uint32(meta) == 0xFFFFFFFF {
			meta = meta[8:]
		} else {
			meta = meta[4:]
		}
		if err := verifyIPCMessage(meta); err != nil {
			return bad("%s: metadata: %v", what, err)
		}
	}
	return nil
}
