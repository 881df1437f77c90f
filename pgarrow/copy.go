package pgarrow

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// copySignature starts every binary COPY stream.
const copySignature = "PGCOPY\n\xff\r\n\x00"

// copySource parses a binary COPY stream incrementally, pulling one
// CopyData message at a time from the connection, so no goroutine and no
// more than one message (or one row spanning messages) is buffered.
type copySource struct {
	ctx   context.Context
	pg    *pgconn.PgConn
	w     *cancelWatch
	ncols int
	vals  [][]byte

	buf     []byte // unparsed bytes: the current message or carry
	carry   []byte // owned buffer for rows spanning messages
	header  bool   // header parsed
	trailer bool   // trailer (-1) seen
	ended   bool   // ReadyForQuery received
	err     error  // protocol or server error
}

// startCopy sends the COPY command and reads up to CopyOutResponse, so that
// errors in the statement are reported by Copy itself.
func startCopy(ctx context.Context, pg *pgconn.PgConn, sql string, ncols int) (*copySource, error) {
	if pg.IsBusy() {
		return nil, errors.New("pgarrow: connection busy")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pgarrow: %w", err)
	}
	s := &copySource{ctx: ctx, pg: pg, ncols: ncols, vals: make([][]byte, ncols)}
	pg.Frontend().SendQuery(&pgproto3.Query{String: sql})
	if err := pg.Frontend().Flush(); err != nil {
		return nil, fmt.Errorf("pgarrow: send COPY: %w", err)
	}
	s.w = watchCancel(ctx, pg, true)
	for {
		msg, err := s.receive()
		if err != nil {
			s.w.stop()
			return nil, wrapQueryErr(ctx, err)
		}
		switch m := msg.(type) {
		case *pgproto3.CopyOutResponse:
			if m.OverallFormat != 1 {
				s.abort()
				return nil, errors.New("pgarrow: server sent text COPY, want binary")
			}
			return s, nil
		case *pgproto3.ErrorResponse:
			s.err = pgconn.ErrorResponseToPgError(m)
		case *pgproto3.ReadyForQuery:
			s.w.stop()
			if s.err == nil {
				s.err = errors.New("COPY ended before it started")
			}
			return nil, wrapQueryErr(ctx, s.err)
		}
	}
}

func (s *copySource) receive() (pgproto3.BackendMessage, error) {
	msg, err := s.pg.ReceiveMessage(context.Background())
	if err != nil {
		s.ended = true
		return nil, err
	}
	return msg, nil
}

// next parses the next tuple, receiving messages as needed.
func (s *copySource) next() ([][]byte, bool) {
	for {
		if s.err != nil || s.trailer {
			return nil, false
		}
		if !s.header {
			if n, err := s.parseHeader(); err != nil {
				s.err = err
				return nil, false
			} else if n > 0 {
				s.buf = s.buf[n:]
				s.header = true
				continue
			}
		} else if n, err := s.parseTuple(); err != nil {
			s.err = err
			return nil, false
		} else if n > 0 {
			s.buf = s.buf[n:]
			if !s.trailer {
				return s.vals, true
			}
			continue
		}
		// Need more bytes: keep the partial tuple and read a message.
		if len(s.buf) > 0 && (len(s.carry) == 0 || &s.buf[0] != &s.carry[0]) {
			s.carry = append(s.carry[:0], s.buf...)
			s.buf = s.carry
		} else if len(s.buf) > 0 {
			s.carry = s.carry[:len(s.buf)]
		}
		if !s.fill() {
			return nil, false
		}
	}
}

// fill receives messages until a CopyData arrives and appends its payload
// to the unparsed bytes. It returns false at the end of the stream or on
// error.
func (s *copySource) fill() bool {
	for !s.ended {
		msg, err := s.receive()
		if err != nil {
			s.err = err
			return false
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			if len(s.buf) == 0 {
				s.buf = m.Data // parse in place; valid until the next receive
				s.carry = s.carry[:0]
			} else {
				s.carry = append(s.carry, m.Data...)
				s.buf = s.carry
			}
			return true
		case *pgproto3.ErrorResponse:
			s.err = pgconn.ErrorResponseToPgError(m)
		case *pgproto3.ReadyForQuery:
			s.ended = true
			if s.err == nil && !s.trailer {
				s.err = errors.New("binary COPY stream ended without trailer")
			}
			return false
		}
	}
	return false
}

// parseHeader parses the signature, flags and header extension; n == 0
// means more bytes are needed.
func (s *copySource) parseHeader() (int, error) {
	b := s.buf
	if len(b) < len(copySignature)+8 {
		return 0, nil
	}
	if !bytes.Equal(b[:len(copySignature)], []byte(copySignature)) {
		return 0, errors.New("invalid binary COPY signature")
	}
	flags := be.Uint32(b[len(copySignature):])
	if flags&(1<<16) != 0 {
		return 0, errors.New("binary COPY with OIDs not supported")
	}
	if flags>>17 != 0 {
		return 0, fmt.Errorf("binary COPY has unknown critical flags %#x", flags)
	}
	ext := int(be.Uint32(b[len(copySignature)+4:]))
	n := len(copySignature) + 8 + ext
	if ext < 0 || len(b) < n {
		return 0, nil
	}
	return n, nil
}

// parseTuple parses one tuple into s.vals or the trailer; n == 0 means more
// bytes are needed.
func (s *copySource) parseTuple() (int, error) {
	b := s.buf
	if len(b) < 2 {
		return 0, nil
	}
	nf := int16(be.Uint16(b))
	if nf == -1 {
		s.trailer = true
		return 2, nil
	}
	if int(nf) != s.ncols {
		return 0, fmt.Errorf("binary COPY tuple has %d fields, want %d", nf, s.ncols)
	}
	p := 2
	for i := 0; i < s.ncols; i++ {
		if len(b) < p+4 {
			return 0, nil
		}
		l := int32(be.Uint32(b[p:]))
		p += 4
		if l < 0 {
			s.vals[i] = nil
			continue
		}
		if len(b)-p < int(l) {
			return 0, nil
		}
		s.vals[i] = b[p : p+int(l) : p+int(l)]
		p += int(l)
	}
	return p, nil
}

// finish reads to ReadyForQuery and returns the COPY's error, if any.
func (s *copySource) finish() error {
	for !s.ended {
		msg, err := s.receive()
		if err != nil {
			if s.err == nil {
				s.err = err
			}
			break
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			s.err = pgconn.ErrorResponseToPgError(m)
		case *pgproto3.ReadyForQuery:
			s.ended = true
		}
	}
	s.w.stop()
	if s.err != nil {
		return s.err
	}
	return nil
}

// abort stops the COPY and discards the rest of it: outside a transaction
// block it is cancelled on the server first; inside one (where a cancel
// would abort the transaction) it is read to the end.
func (s *copySource) abort() {
	if !s.ended && cancelOK(s.pg) {
		sendCancel(s.pg)
	}
	_ = s.finish()
}
