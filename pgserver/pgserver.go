// Package pgserver starts a throwaway local PostgreSQL server for tests and
// benchmarks.
//
// [Start] runs initdb into a fresh temporary directory, starts postgres with
// durability switched off (fsync, synchronous_commit and full_page_writes are
// all off — the data is disposable), listening on a free 127.0.0.1 TCP port
// and on a unix socket inside the temporary directory, and waits until the
// server accepts connections. [Server.Stop] shuts it down and removes the
// directory.
//
// The server is a superuser's door to the machine (COPY … TO PROGRAM runs
// commands as the server's OS user), so it lets in only its owner:
//
//   - TCP connections must authenticate with SCRAM-SHA-256 as the superuser,
//     with a random password made for this server alone ([Server.Password];
//     [Server.DSN] carries it). Other local users cannot guess it.
//   - The unix socket trusts its clients, but lives in the temporary
//     directory, mode 0700 and owned by the server's OS user: only that user
//     and root can reach it ([Server.SocketDSN]).
//
// PostgreSQL refuses to run as root. When the calling process is root, the
// server runs as an unprivileged system user: the Debian "postgres" user if it
// exists, otherwise "serbench-pg", created with useradd when missing. The
// switch is done with syscall.SysProcAttr.Credential, so the package needs no
// cgo. As any other user the server runs as that user.
//
// The postmaster is a direct child of the Go process, placed in its own
// process group (so a terminal's Ctrl-C reaches only the Go process, which
// decides how to shut down). Nothing of a server outlives a Go process that
// dies without calling Stop (a crash, SIGKILL, a test binary killed by its
// timeout):
//
//   - The postmaster is started with a parent-death signal of SIGQUIT, from an
//     OS thread locked for the server's lifetime (the kernel sends the
//     signal when the forking thread exits, not the process). SIGQUIT is
//     PostgreSQL's immediate shutdown: the postmaster SIGQUITs every backend
//     (SIGKILL after 5 s) and exits, so a backend busy with a long query
//     stops too — a SIGKILLed postmaster would leave it running.
//   - The temporary directory holds a lock file (flock) that the owning
//     process holds until Stop. Start removes every pgserver-* directory in
//     its base directory whose lock is free, i.e. whose owner died, after
//     killing any process still working in its data directory. Directories
//     of live owners, or without a lock file, are left alone.
//
// A CLI that wants Ctrl-C to stop the server passes a context from
// signal.NotifyContext to Start: when that context is done the server is
// stopped, exactly as if Stop had been called.
package pgserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// DefaultSuperuser is the name of the database superuser created by initdb
// when Options.Superuser is empty.
const DefaultSuperuser = "serbench"

// ErrBinariesNotFound is returned (wrapped) by Start when initdb, pg_ctl or
// postgres cannot be found.
var ErrBinariesNotFound = errors.New("pgserver: PostgreSQL server binaries not found")

// Options configures Start. The zero value is ready to use.
type Options struct {
	// BinDir is the directory holding initdb, pg_ctl and postgres. When
	// empty, the binaries are looked up in PATH, then in
	// /usr/lib/postgresql/<version>/bin, highest version first.
	BinDir string
	// Superuser is the database superuser created by initdb (default
	// DefaultSuperuser). Over TCP it authenticates with a random password
	// (SCRAM-SHA-256); over the server's private unix socket it needs none.
	Superuser string
	// BaseDir is where the temporary directory is created (default
	// os.TempDir()). When running as root, every directory on the path must
	// be traversable by the unprivileged server user.
	BaseDir string
	// StartTimeout bounds initdb plus server start (default 60s).
	StartTimeout time.Duration
	// Settings are extra server settings passed as -c name=value.
	Settings map[string]string
}

// Server is a running throwaway PostgreSQL server.
type Server struct {
	dir       string
	dataDir   string
	logPath   string
	binDir    string
	superuser string
	password  string
	port      int
	cred      *syscall.Credential

	cmd    *exec.Cmd
	exited chan struct{} // closed when the postmaster process has been reaped
	lock   *os.File      // flocked while this process owns dir

	stopOnce sync.Once
	stopErr  error
	stopCtx  func() bool // stops the context watcher
}

// FindBinaries returns the directory holding initdb, pg_ctl and postgres, or
// an error wrapping ErrBinariesNotFound that says how to install them. An
// empty binDir means: PATH, then /usr/lib/postgresql/*/bin (highest version).
func FindBinaries(binDir string) (string, error) {
	names := []string{"initdb", "pg_ctl", "postgres"}
	has := func(dir string) bool {
		for _, n := range names {
			st, err := os.Stat(filepath.Join(dir, n))
			if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
				return false
			}
		}
		return true
	}
	const howto = "install PostgreSQL (Debian/Ubuntu: apt-get install postgresql) or point Options.BinDir at the directory holding initdb, pg_ctl and postgres"
	if binDir != "" {
		if has(binDir) {
			return binDir, nil
		}
		return "", fmt.Errorf("%w in %s (need initdb, pg_ctl and postgres): %s", ErrBinariesNotFound, binDir, howto)
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && has(filepath.Dir(real)) {
			return filepath.Dir(real), nil
		}
		if has(filepath.Dir(p)) {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w in PATH or /usr/lib/postgresql/*/bin: %s", ErrBinariesNotFound, howto)
}

func versionOf(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

// Start creates, starts and waits for a new PostgreSQL server. ctx bounds the
// startup and also the lifetime of the server: when ctx is done the server is
// stopped (as by Stop). Pass context.Background() for a server that lives
// until Stop, or a signal.NotifyContext context to stop it on Ctrl-C.
func Start(ctx context.Context, opts Options) (*Server, error) {
	binDir, err := FindBinaries(opts.BinDir)
	if err != nil {
		return nil, err
	}
	s := &Server{binDir: binDir, superuser: opts.Superuser, exited: make(chan struct{})}
	if s.superuser == "" {
		s.superuser = DefaultSuperuser
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	startCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	if os.Geteuid() == 0 {
		cred, err := serverUser(startCtx)
		if err != nil {
			return nil, err
		}
		s.cred = cred
	}
	base := opts.BaseDir
	if base == "" {
		base = os.TempDir()
	}
	if s.cred != nil {
		if err := checkTraversable(base); err != nil {
			return nil, err
		}
	}
	RemoveStale(base)
	s.dir, err = os.MkdirTemp(base, dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("pgserver: create temp dir: %w", err)
	}
	if s.lock, err = lockDir(s.dir); err != nil {
		s.removeDir()
		return nil, err
	}
	if err := os.Chmod(s.dir, 0o700); err != nil {
		s.removeDir()
		return nil, fmt.Errorf("pgserver: chmod temp dir: %w", err)
	}
	if s.cred != nil {
		if err := os.Chown(s.dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			s.removeDir()
			return nil, fmt.Errorf("pgserver: chown temp dir to uid %d: %w", s.cred.Uid, err)
		}
	}
	s.dataDir = filepath.Join(s.dir, "data")
	s.logPath = filepath.Join(s.dir, "postgres.log")
	if s.password, err = newPassword(); err != nil {
		s.removeDir()
		return nil, err
	}
	pwfile, err := s.writeOwned("initdb.pw", s.password+"\n")
	if err != nil {
		s.removeDir()
		return nil, err
	}
	out, err := s.run(startCtx, "initdb", "-D", s.dataDir, "-U", s.superuser,
		"--auth-local=trust", "--auth-host=scram-sha-256", "--pwfile="+pwfile,
		"--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions")
	_ = os.Remove(pwfile)
	if err != nil {
		s.removeDir()
		return nil, fmt.Errorf("pgserver: initdb: %w\n%s", err, out)
	}

	// A free port can be taken by someone else between our probe and the
	// server's bind; retry a few times.
	for attempt := 0; ; attempt++ {
		err = s.startPostmaster(startCtx, opts.Settings)
		if err == nil {
			break
		}
		if attempt >= 3 || !strings.Contains(s.logTail(), "could not bind") || startCtx.Err() != nil {
			s.removeDir()
			return nil, err
		}
	}
	s.stopCtx = context.AfterFunc(ctx, func() { _ = s.Stop() })
	return s, nil
}

// newPassword returns a random password for the superuser: 128 bits, in
// hex so that it needs no escaping in a URL or a keyword/value DSN.
func newPassword() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("pgserver: random password: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// writeOwned writes a file only the server's OS user can read into the
// temporary directory, and returns its path.
func (s *Server) writeOwned(name, content string) (string, error) {
	path := filepath.Join(s.dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return "", fmt.Errorf("pgserver: write %s: %w", name, err)
	}
	if s.cred != nil {
		if err := os.Chown(path, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return "", fmt.Errorf("pgserver: chown %s: %w", name, err)
		}
	}
	return path, nil
}

// serverUser returns the credential of the unprivileged user that runs the
// server when the process is root, creating the user if needed.
func serverUser(ctx context.Context) (*syscall.Credential, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		u, err = user.Lookup("serbench-pg")
	}
	if err != nil {
		out, uerr := exec.CommandContext(ctx, "useradd", "--system", "--no-create-home",
			"--shell", "/usr/sbin/nologin", "serbench-pg").CombinedOutput()
		if uerr != nil {
			return nil, fmt.Errorf("pgserver: running as root and no postgres user: useradd serbench-pg: %w: %s", uerr, out)
		}
		if u, err = user.Lookup("serbench-pg"); err != nil {
			return nil, fmt.Errorf("pgserver: look up created user serbench-pg: %w", err)
		}
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("pgserver: uid of %s: %w", u.Username, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("pgserver: gid of %s: %w", u.Username, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

// checkTraversable reports an error if some directory on the way to dir is
// not traversable (o+x) by other users.
func checkTraversable(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	for d := abs; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("pgserver: base dir: %w", err)
		}
		if st.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("pgserver: %s is not traversable by the unprivileged server user (mode %v); set Options.BaseDir or TMPDIR elsewhere", d, st.Mode().Perm())
		}
		if d == "/" {
			return nil
		}
	}
}

func (s *Server) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(s.binDir, name), args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "LANG=C", "TZ=UTC"}
	cmd.Dir = s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: s.cred}
	setDeathSignal(cmd.SysProcAttr, syscall.SIGKILL)
	return cmd
}

// startLocked starts cmd from an OS thread that stays locked, and so alive,
// until cmd exits: the kernel delivers the parent-death signal when the
// thread that forked the child exits, and the Go runtime may end a thread
// whenever no goroutine is locked to it. exited is closed once cmd has been
// reaped, after storing cmd.Wait's error in *waitErr (if not nil).
func startLocked(cmd *exec.Cmd, exited chan<- struct{}, waitErr *error) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// No UnlockOSThread: the thread ends with this goroutine, after
		// the child is gone.
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		err := cmd.Wait()
		if waitErr != nil {
			*waitErr = err
		}
		close(exited)
	}()
	return <-started
}

func (s *Server) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := s.command(ctx, name, args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	// From a locked thread, like the postmaster: the parent-death signal
	// must not fire because the Go runtime retired the forking thread.
	exited := make(chan struct{})
	var waitErr error
	if err := startLocked(cmd, exited, &waitErr); err != nil {
		return buf.Bytes(), err
	}
	<-exited
	return buf.Bytes(), waitErr
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgserver: find free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) startPostmaster(ctx context.Context, settings map[string]string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	s.port = port
	args := []string{"-D", s.dataDir, "-p", strconv.Itoa(port), "-h", "127.0.0.1", "-k", s.dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "logging_collector=off", "-c", "max_connections=50", "-c", "timezone=UTC"}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-c", k+"="+settings[k])
	}
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("pgserver: open log: %w", err)
	}
	defer logf.Close()
	// Not CommandContext: the postmaster must outlive ctx's startup
	// deadline; its lifetime is managed by Stop.
	cmd := s.command(context.Background(), "postgres", args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Immediate shutdown if this process dies: the postmaster takes its
	// backends down with it.
	setDeathSignal(cmd.SysProcAttr, syscall.SIGQUIT)
	exited := make(chan struct{})
	if err := startLocked(cmd, exited, nil); err != nil {
		return fmt.Errorf("pgserver: start postgres: %w", err)
	}
	s.cmd = cmd
	s.exited = exited

	if err := s.waitReady(ctx); err != nil {
		s.killGroup()
		<-exited
		return fmt.Errorf("pgserver: server did not become ready: %w\n%s", err, s.logTail())
	}
	return nil
}

// waitReady polls postmaster.pid for the "ready" status (as pg_ctl -w does)
// and then makes a real connection.
func (s *Server) waitReady(ctx context.Context) error {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.exited:
			return errors.New("postgres exited during startup")
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		b, err := os.ReadFile(filepath.Join(s.dataDir, "postmaster.pid"))
		if err != nil {
			continue
		}
		lines := strings.Split(string(b), "\n")
		if len(lines) < 8 || strings.TrimSpace(lines[7]) != "ready" {
			continue
		}
		conn, err := pgx.Connect(ctx, s.DSN())
		if err != nil {
			continue
		}
		err = conn.Ping(ctx)
		_ = conn.Close(context.Background())
		if err == nil {
			return nil
		}
	}
}

func (s *Server) logTail() string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return ""
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// DSN returns a connection string for the superuser over TCP, with the
// server's password, e.g.
// "postgres://serbench:PASSWORD@127.0.0.1:port/postgres?sslmode=disable".
// It is a secret: hand it to other processes on stdin or in a file of
// mode 0600, never on a command line.
func (s *Server) DSN() string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/postgres?sslmode=disable", s.superuser, s.password, s.port)
}

// SocketDSN returns a connection string using the unix socket, which
// needs no password and only the server's OS user and root can reach.
func (s *Server) SocketDSN() string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=postgres sslmode=disable", s.dir, s.port, s.superuser)
}

// SocketPath returns the path of the server's unix socket.
func (s *Server) SocketPath() string {
	return filepath.Join(s.dir, ".s.PGSQL."+strconv.Itoa(s.port))
}

// Password returns the superuser's password for TCP connections, random
// for each server.
func (s *Server) Password() string { return s.password }

// Port returns the TCP port the server listens on (127.0.0.1 only).
func (s *Server) Port() int { return s.port }

// SocketDir returns the directory holding the server's unix socket.
func (s *Server) SocketDir() string { return s.dir }

// DataDir returns the server's data directory.
func (s *Server) DataDir() string { return s.dataDir }

// Superuser returns the name of the database superuser.
func (s *Server) Superuser() string { return s.superuser }

// PID returns the process id of the postmaster.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// RunsAs returns the uid the server runs as.
func (s *Server) RunsAs() int {
	if s.cred != nil {
		return int(s.cred.Uid)
	}
	return os.Geteuid()
}

// ConnConfig returns a pgx connection config for the server over TCP. Its
// context watcher sends a CancelRequest to the server when a query's context
// is done (instead of pgx's default of only closing the connection), so
// cancelled queries stop on the server too.
func (s *Server) ConnConfig() (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(s.DSN())
	if err != nil {
		return nil, fmt.Errorf("pgserver: parse DSN: %w", err)
	}
	cfg.BuildContextWatcherHandler = cancelHandler
	return cfg, nil
}

func cancelHandler(pc *pgconn.PgConn) ctxwatch.Handler {
	return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, CancelRequestDelay: 0, DeadlineDelay: 5 * time.Second}
}

// Connect opens a connection configured as by ConnConfig.
func (s *Server) Connect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := s.ConnConfig()
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgserver: connect: %w", err)
	}
	return conn, nil
}

// Stop shuts the server down (pg_ctl stop -m fast; if that fails or the
// server does not exit, the server's process group is killed) and removes
// the temporary directory. It is idempotent and safe for concurrent use.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		if s.stopCtx != nil {
			s.stopCtx()
		}
		var errs []error
		select {
		case <-s.exited:
		default:
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			out, err := s.run(ctx, "pg_ctl", "stop", "-D", s.dataDir, "-m", "fast", "-w", "-t", "20")
			cancel()
			select {
			case <-s.exited:
			case <-time.After(5 * time.Second):
				// pg_ctl failed or the server ignores it: kill the group.
				s.killGroup()
				select {
				case <-s.exited:
				case <-time.After(10 * time.Second):
					errs = append(errs, fmt.Errorf("pgserver: postmaster %d did not exit after SIGKILL (pg_ctl: %v: %s)", s.PID(), err, bytes.TrimSpace(out)))
				}
			}
		}
		// Backends of a postmaster that died exit on their own when they
		// notice; kill any that are still around.
		s.killGroup()
		if err := os.RemoveAll(s.dir); err != nil {
			errs = append(errs, fmt.Errorf("pgserver: remove %s: %w", s.dir, err))
		}
		if s.lock != nil {
			_ = s.lock.Close() // releases the flock
		}
		s.stopErr = errors.Join(errs...)
	})
	return s.stopErr
}

// killGroup SIGKILLs the postmaster's process group and every process
// still working in the data directory: PostgreSQL's children call setsid,
// so they are not in the postmaster's group, and once the postmaster is
// gone they are reparented, but their working directory stays the data
// directory.
func (s *Server) killGroup() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	for _, pid := range s.dataDirProcesses() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// dataDirProcesses returns the pids of the processes whose working
// directory is the data directory.
func (s *Server) dataDirProcesses() []int { return processesIn(s.dataDir) }

// processesIn returns the pids of the processes whose working directory is
// dir.
func processesIn(dir string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd"); err == nil && cwd == dir {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Kill simulates a server crash: it SIGKILLs the postmaster and all its
// backends at once and waits until they are gone. Stop still cleans up.
func (s *Server) Kill() error {
	s.killGroup()
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		return fmt.Errorf("pgserver: postmaster %d did not exit after SIGKILL", s.PID())
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(s.dataDirProcesses()) > 0 {
		if time.Now().After(deadline) {
			return errors.New("pgserver: server processes survive SIGKILL")
		}
		s.killGroup()
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

func (s *Server) removeDir() {
	_ = os.RemoveAll(s.dir)
	if s.lock != nil {
		_ = s.lock.Close()
	}
}

// dirPrefix starts the name of every temporary directory of this package.
const dirPrefix = "pgserver-"

// lockName is the lock file in a temporary directory, flocked by its owner.
const lockName = "owner.lock"

// lockDir creates dir's lock file and locks it for this process. The file
// is locked under a temporary name and then renamed, so that no other
// process can find it unlocked. The descriptor is close-on-exec: the lock
// dies with this process, not with the server.
func lockDir(dir string) (*os.File, error) {
	tmp := filepath.Join(dir, lockName+".new")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("pgserver: create lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("pgserver: lock %s: %w", tmp, err)
	}
	fmt.Fprintf(f, "%d\n", os.Getpid())
	if err := os.Rename(tmp, filepath.Join(dir, lockName)); err != nil {
		f.Close()
		return nil, fmt.Errorf("pgserver: rename lock file: %w", err)
	}
	return f, nil
}

// RemoveStale removes the temporary directories in base (os.TempDir when
// empty) left by dead owners: those whose lock file can be locked. Start
// calls it; a program that starts servers only sometimes calls it at its
// own start, so that a killed run's server directory does not wait for
// the next server. Processes still working in
// such a directory's data directory (a postmaster or backends that missed
// the parent-death signal) are killed first. Errors are ignored: this is
// housekeeping, and a directory that cannot be removed now may be later.
func RemoveStale(base string) {
	if base == "" {
		base = os.TempDir()
	}
	dirs, _ := filepath.Glob(filepath.Join(base, dirPrefix+"*"))
	for _, dir := range dirs {
		f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR, 0)
		if err != nil {
			continue // no lock file (yet, or another user's): not ours to judge
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			f.Close() // the owner is alive
			continue
		}
		data := filepath.Join(dir, "data")
		for attempt := 0; attempt < 100; attempt++ {
			pids := processesIn(data)
			if len(pids) == 0 {
				break
			}
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			time.Sleep(10 * time.Millisecond)
		}
		_ = os.RemoveAll(dir)
		f.Close()
	}
}

// clockTicks is the kernel's USER_HZ, the unit of the CPU times in
// /proc/<pid>/stat; it is 100 on every Linux architecture Go supports.
const clockTicks = 100

// procStat holds the fields of /proc/<pid>/stat this package uses.
type procStat struct {
	ppid                         int
	utime, stime, cutime, cstime uint64
}

func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, fmt.Errorf("pgserver: read stat of pid %d: %w", pid, err)
	}
	// The command name (field 2) is parenthesised and may contain spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("pgserver: malformed /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime is field 14 → f[11].
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("pgserver: short /proc/%d/stat", pid)
	}
	var st procStat
	st.ppid, _ = strconv.Atoi(f[1])
	vals := []*uint64{&st.utime, &st.stime, &st.cutime, &st.cstime}
	for k, p := range vals {
		v, err := strconv.ParseUint(f[11+k], 10, 64)
		if err != nil {
			return procStat{}, fmt.Errorf("pgserver: parse /proc/%d/stat: %w", pid, err)
		}
		*p = v
	}
	return st, nil
}

// ProcessCPUSeconds returns the user+system CPU seconds consumed so far by
// one process, e.g. a backend whose pid came from pg_backend_pid().
func ProcessCPUSeconds(pid int) (float64, error) {
	st, err := readProcStat(pid)
	if err != nil {
		return 0, err
	}
	return float64(st.utime+st.stime) / clockTicks, nil
}

// CPUSeconds returns the user+system CPU seconds consumed so far by the
// whole server: the postmaster, every live descendant (backends, background
// workers) and every descendant that has already exited and been reaped
// (counted through the kernel's cumulative children times). Differences of
// two calls measure the server CPU spent in between.
func (s *Server) CPUSeconds() (float64, error) {
	root := s.PID()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("pgserver: read /proc: %w", err)
	}
	stats := map[int]procStat{}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readProcStat(pid)
		if err != nil {
			continue // exited meanwhile
		}
		stats[pid] = st
		children[st.ppid] = append(children[st.ppid], pid)
	}
	if _, ok := stats[root]; !ok {
		return 0, fmt.Errorf("pgserver: postmaster pid %d not running", root)
	}
	var ticks uint64
	stack := []int{root}
	for len(stack) > 0 {
		pid := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		st := stats[pid]
		ticks += st.utime + st.stime + st.cutime + st.cstime
		stack = append(stack, children[pid]...)
	}
	return float64(ticks) / clockTicks, nil
}

// LogTail returns up to the last 4000 bytes of the server log.
func (s *Server) LogTail() string { return s.logTail() }
