package format

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// LineReader reads newline-terminated lines and insists that the last line be
// terminated too, so a text stream cut inside its last line is reported as
// truncated instead of yielding a partial record.
type LineReader struct {
	r    *bufio.Reader
	long []byte
	line int
}

// NewLineReader returns a LineReader over r, using r directly when it is
// already a *bufio.Reader.
func NewLineReader(r io.Reader) *LineReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &LineReader{r: br}
}

// Line returns the 1-based number of the line last returned.
func (l *LineReader) Line() int { return l.line }

// Next returns the next line without its '\n'. The slice is valid until the
// next call. It returns io.EOF at the clean end of input and an error wrapping
// io.ErrUnexpectedEOF when the input ends without a final newline.
func (l *LineReader) Next() ([]byte, error) {
	b, err := l.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		l.long = append(l.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = l.r.ReadSlice('\n')
			l.long = append(l.long, b...)
		}
		b = l.long
	}
	if err == io.EOF {
		if len(b) == 0 {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("line %d: last line has no newline: %w", l.line+1, io.ErrUnexpectedEOF)
	}
	if err != nil {
		return nil, fmt.Errorf("line %d: %w", l.line+1, err)
	}
	l.line++
	return b[:len(b)-1], nil
}
