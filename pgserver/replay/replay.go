// Package replay captures what a PostgreSQL server sends on one connection
// and plays it back from an in-process fake server on loopback, so that a
// benchmark can measure a client's decoding alone, at memory speed, without
// a server competing for the CPU.
//
// A [Recorder] is a proxy in front of a real server: connect a client to
// it ([Recorder.ConnString], with sslmode=disable), run the statements to
// capture, close the client and take the [Transcript]. It passes the
// client's authentication through, so it listens on a unix socket in a
// directory of its own (mode 0700) that other users of the machine cannot
// reach, and records one connection only: a door to the server for this
// process alone. The transcript holds the
// server's answer to the startup and then one response per
// synchronisation point — a Sync of the extended query protocol or a
// simple Query — each ending with ReadyForQuery.
//
// A [Server] replays a transcript to every connection: it answers the
// startup with the recorded startup response and each Sync or Query with
// the next recorded response, cycling through them when Loop is set. It
// does not look at what the client sends beyond finding the message
// boundaries, so the client must send the same sequence of statements as
// when recording. Only servers that need no password (trust
// authentication, as pgserver's) can be recorded. CancelRequests are not
// supported: a replayed statement cannot be cancelled.
package replay

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Protocol codes of the special startup packets.
const (
	sslRequestCode    = 80877103
	gssEncRequestCode = 80877104
	cancelRequestCode = 80877102
)

// maxStartup bounds a startup packet.
const maxStartup = 1 << 16

// Transcript is what a server sent on one connection, split at each
// ReadyForQuery.
type Transcript struct {
	// Startup is the answer to the startup message, up to and including
	// the first ReadyForQuery.
	Startup []byte
	// Responses are the answers to each Sync or Query that followed, each
	// ending with ReadyForQuery.
	Responses [][]byte
}

// Size returns the number of bytes in all responses (not the startup).
func (t *Transcript) Size() int {
	n := 0
	for _, r := range t.Responses {
		n += len(r)
	}
	return n
}

// readStartup reads a startup-phase packet (length, then body) and returns
// the whole packet.
func readStartup(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(hdr[:]))
	if n < 8 || n > maxStartup {
		return nil, fmt.Errorf("replay: startup packet of %d bytes", n)
	}
	buf := make([]byte, n)
	copy(buf, hdr[:])
	if _, err := io.ReadFull(r, buf[4:]); err != nil {
		return nil, err
	}
	return buf, nil
}

// startupCode returns the protocol version or request code of a startup
// packet.
func startupCode(pkt []byte) uint32 { return binary.BigEndian.Uint32(pkt[4:8]) }

// readMessage reads one regular protocol message (type, length, body).
func readMessage(r io.Reader, buf []byte) (typ byte, msg []byte, err error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, buf, err
	}
	n := int(binary.BigEndian.Uint32(hdr[1:]))
	if n < 4 {
		return 0, buf, fmt.Errorf("replay: message %q with length %d", hdr[0], n)
	}
	buf = append(buf[:0], hdr[:]...)
	buf = append(buf, make([]byte, n-4)...)
	if _, err := io.ReadFull(r, buf[5:]); err != nil {
		return 0, buf, err
	}
	return hdr[0], buf, nil
}

// Recorder is a recording proxy in front of a PostgreSQL server.
type Recorder struct {
	ln       net.Listener
	dir      string // the private directory holding the socket
	upstream string
	mu       sync.Mutex
	t        *Transcript // of the last connection that ended
	err      error
	wg       sync.WaitGroup
}

// recorderPort is the port number in the name of the Recorder's socket
// (.s.PGSQL.<port>, as libpq and pgx look for it in the host directory).
const recorderPort = 5432

// Record starts a Recorder forwarding to the server at upstream: a unix
// socket's path (starting with "/") or a TCP "host:port". It listens on
// a unix socket in a new private directory under os.TempDir.
func Record(upstream string) (*Recorder, error) {
	dir, err := os.MkdirTemp("", "replay-")
	if err != nil {
		return nil, fmt.Errorf("replay: socket dir: %w", err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, fmt.Sprintf(".s.PGSQL.%d", recorderPort)))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("replay: listen: %w", err)
	}
	r := &Recorder{ln: ln, dir: dir, upstream: upstream}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// ConnString returns the keyword/value connection string clients use to
// reach the server through the Recorder as user on database.
func (r *Recorder) ConnString(user, database string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", r.dir, recorderPort, user, database)
}

// accept serves the first connection and then stops listening: a
// Recorder records one session.
func (r *Recorder) accept() {
	defer r.wg.Done()
	c, err := r.ln.Accept()
	if err != nil {
		return
	}
	_ = r.ln.Close()
	t, err := r.proxy(c)
	r.mu.Lock()
	defer r.mu.Unlock()
	if t != nil {
		r.t, r.err = t, nil
	}
	if err != nil && t == nil {
		r.err = err
	}
}

// proxy forwards one connection and records what the server sends. A
// CancelRequest connection is forwarded and yields no transcript.
func (r *Recorder) proxy(client net.Conn) (*Transcript, error) {
	defer client.Close()
	var startup []byte
	for {
		pkt, err := readStartup(client)
		if err != nil {
			return nil, fmt.Errorf("replay: read startup: %w", err)
		}
		code := startupCode(pkt)
		if code == sslRequestCode || code == gssEncRequestCode {
			if _, err := client.Write([]byte{'N'}); err != nil {
				return nil, fmt.Errorf("replay: refuse encryption: %w", err)
			}
			continue
		}
		startup = pkt
		break
	}
	network := "tcp"
	if strings.HasPrefix(r.upstream, "/") {
		network = "unix"
	}
	server, err := net.Dial(network, r.upstream)
	if err != nil {
		return nil, fmt.Errorf("replay: dial %s: %w", r.upstream, err)
	}
	defer server.Close()
	if _, err := server.Write(startup); err != nil {
		return nil, fmt.Errorf("replay: forward startup: %w", err)
	}
	if startupCode(startup) == cancelRequestCode {
		_, _ = io.Copy(io.Discard, server)
		return nil, nil
	}
	go func() {
		// Client to server, verbatim; closing either side ends both.
		_, _ = io.Copy(server, client)
		server.Close()
	}()
	t := &Transcript{}
	sr := bufio.NewReaderSize(server, 1<<16)
	var cur, buf []byte
	for {
		typ, msg, err := readMessage(sr, buf)
		buf = msg
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				return t, nil
			}
			return t, nil // the client went away mid-message: keep what was complete
		}
		if _, err := client.Write(msg); err != nil {
			return t, nil
		}
		cur = append(cur, msg...)
		if typ == 'Z' {
			if t.Startup == nil {
				t.Startup = cur
			} else {
				t.Responses = append(t.Responses, cur)
			}
			cur = nil
		}
	}
}

// Transcript returns the transcript of the last recorded connection that
// ended, or an error if none did.
func (r *Recorder) Transcript() (*Transcript, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.t == nil {
		if r.err != nil {
			return nil, r.err
		}
		return nil, errors.New("replay: no connection recorded yet (close the client first)")
	}
	return r.t, nil
}

// Close stops the Recorder, waits for its connection to end and removes
// its socket's directory.
func (r *Recorder) Close() error {
	err := r.ln.Close()
	if errors.Is(err, net.ErrClosed) {
		err = nil // closed after its one connection
	}
	r.wg.Wait()
	if rerr := os.RemoveAll(r.dir); err == nil {
		err = rerr
	}
	return err
}

// Server replays a Transcript to every connection.
type Server struct {
	ln    net.Listener
	t     *Transcript
	loop  bool
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// Serve starts a Server on a free 127.0.0.1 port. With loop set, the
// responses start over after the last one; otherwise the connection is
// closed when the client asks for more.
func Serve(t *Transcript, loop bool) (*Server, error) {
	if t == nil || t.Startup == nil {
		return nil, errors.New("replay: transcript has no startup")
	}
	if loop && len(t.Responses) == 0 {
		return nil, errors.New("replay: nothing to loop over")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("replay: listen: %w", err)
	}
	s := &Server{ln: ln, t: t, loop: loop, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr returns the address clients connect to.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Port returns the port clients connect to.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// DSN returns a connection string for the replay server (any user and
// database name would do; sslmode is disabled).
func (s *Server) DSN() string {
	return fmt.Sprintf("postgres://replay@127.0.0.1:%d/replay?sslmode=disable", s.Port())
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			_ = s.serve(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		}()
	}
}

// serve plays the transcript on one connection.
func (s *Server) serve(c net.Conn) error {
	br := bufio.NewReaderSize(c, 1<<16)
	for {
		pkt, err := readStartup(br)
		if err != nil {
			return err
		}
		switch startupCode(pkt) {
		case sslRequestCode, gssEncRequestCode:
			if _, err := c.Write([]byte{'N'}); err != nil {
				return err
			}
			continue
		case cancelRequestCode:
			return nil // cannot cancel a replay
		}
		break
	}
	if _, err := c.Write(s.t.Startup); err != nil {
		return err
	}
	next := 0
	var buf []byte
	for {
		typ, msg, err := readMessage(br, buf)
		buf = msg
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		switch typ {
		case 'X':
			return nil
		case 'S', 'Q':
			if next == len(s.t.Responses) {
				if !s.loop {
					return nil
				}
				next = 0
			}
			if _, err := c.Write(s.t.Responses[next]); err != nil {
				return err
			}
			next++
		}
	}
}

// Close stops the Server, closes its connections and waits for them.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// transcriptMagic starts a marshalled Transcript.
const transcriptMagic = "PGREPLAY1\n"

// MarshalBinary encodes t: a magic line, then the startup and each
// response as a 4-byte big-endian length and the bytes.
func (t *Transcript) MarshalBinary() ([]byte, error) {
	out := make([]byte, 0, len(transcriptMagic)+8+len(t.Startup)+t.Size()+4*len(t.Responses))
	out = append(out, transcriptMagic...)
	for _, b := range append([][]byte{t.Startup}, t.Responses...) {
		if uint64(len(b)) > 1<<32-1 {
			return nil, errors.New("replay: response over 4 GiB")
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
	}
	return out, nil
}

// UnmarshalBinary decodes what MarshalBinary encoded.
func (t *Transcript) UnmarshalBinary(data []byte) error {
	if len(data) < len(transcriptMagic) || string(data[:len(transcriptMagic)]) != transcriptMagic {
		return errors.New("replay: not a transcript")
	}
	p := data[len(transcriptMagic):]
	var parts [][]byte
	for len(p) > 0 {
		if len(p) < 4 {
			return errors.New("replay: truncated transcript")
		}
		n := binary.BigEndian.Uint32(p)
		p = p[4:]
		if uint64(n) > uint64(len(p)) {
			return errors.New("replay: truncated transcript")
		}
		parts = append(parts, p[:n:n])
		p = p[n:]
	}
	if len(parts) == 0 {
		return errors.New("replay: transcript has no startup")
	}
	t.Startup, t.Responses = parts[0], parts[1:]
	return nil
}
