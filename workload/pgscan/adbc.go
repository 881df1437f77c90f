package pgscan

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
)

// The peer runner serves both Python peers, ADBC and ConnectorX.
//
//go:embed peer_runner.py
var adbcRunnerScript []byte

// Drivers of the peer runner.
const (
	driverADBC       = "adbc"
	driverConnectorX = "connectorx"
)

// adbcInstall and connectorxInstall are how a user gets the peers:
// serbench installs both into the Python runner's environment on first
// use; without that runner, into python3's.
const (
	adbcInstall       = "run with --runners python (serbench installs the peers on first use), or pip install adbc-driver-postgresql pyarrow"
	connectorxInstall = "run with --runners python (serbench installs the peers on first use), or pip install connectorx pyarrow"
)

// adbcAvailable reports the driver versions when the interpreter py
// ("" for python3 on PATH) can import the ADBC PostgreSQL driver and
// pyarrow, or why not.
func adbcAvailable(ctx context.Context, py string) (string, error) {
	return pythonVersions(ctx, py, "adbc_driver_postgresql", "adbc-driver-postgresql", adbcInstall)
}

// connectorxAvailable reports the versions when py can import ConnectorX
// and pyarrow ("connectorx 0.4.6, pyarrow 21.0.0"), or why not.
func connectorxAvailable(ctx context.Context, py string) (string, error) {
	return pythonVersions(ctx, py, "connectorx", "connectorx", connectorxInstall)
}

// peerPython is the interpreter the Python peers run in: the Python
// runner's environment when the run has it (serbench installs both peers
// there on first use, see runners/python/pyproject.toml), else "" (python3
// on PATH, where a user may have installed them).
func peerPython(ready []runner.Ready) string {
	for _, r := range ready {
		if r.Runner.Name == "python" && len(r.Runner.Command) > 0 {
			return r.Runner.Command[0]
		}
	}
	return ""
}

// pythonVersions imports module and pyarrow in py ("" for python3 on
// PATH) and returns "<name> <version>, pyarrow <version>", or an error
// with the install hint.
func pythonVersions(ctx context.Context, py, module, name, install string) (string, error) {
	py, err := interpreter(py)
	if err != nil {
		return "", fmt.Errorf("not installed: python3 not found; install Python 3, then %s", install)
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, "-c",
		"import "+module+", pyarrow; print("+module+".__version__, pyarrow.__version__)").Output()
	if err != nil {
		return "", fmt.Errorf("not installed: %s cannot import %s and pyarrow; %s", py, module, install)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return "", fmt.Errorf("not installed: unexpected version output %q", out)
	}
	return name + " " + f[0] + ", pyarrow " + f[1], nil
}

// adbcRunner is a long-lived python3 process that runs the query through
// a Python peer (ADBC or ConnectorX) on command, so start-up and imports
// stay out of the timed region.
type adbcRunner struct {
	// backendPID is the server process serving the runner's connection.
	backendPID int
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	out        *bufio.Scanner
	script     string
	// secrets are the password of the connection string, as is and
	// percent-encoded, scrubbed from every error the runner reports.
	secrets []string
}

// adbcResult is one reply of the runner.
type adbcResult struct {
	Rows       int64   `json:"rows"`
	CPU        float64 `json:"cpu_s"`
	MaxRSSKB   int64   `json:"maxrss_kb"`
	SumID      int64   `json:"sum_id"`
	Active     int64   `json:"active"`
	SumNameLen int64   `json:"sum_name_len"`
	SumDays    int64   `json:"sum_days"`
	BadScore   int64   `json:"bad_score"`
	Nulls      int64   `json:"nulls"`
	Error      string  `json:"error"`
	Ready      bool    `json:"ready"`
	BackendPID int     `json:"backend_pid"`
}

// adbcStart is the runner's first line of input.
type adbcStart struct {
	// DSN is the connection URL (peerURL), password included: it
	// travels on the runner's stdin only.
	DSN string `json:"dsn"`
	SQL string `json:"sql"`
	// Python is the interpreter that runs the script ("" for python3 on
	// PATH); it is not sent.
	Python string `json:"-"`
	// Driver is driverADBC (the default when empty) or driverConnectorX.
	Driver string `json:"driver,omitempty"`
	// PartitionOn and Partitions split a ConnectorX read over Partitions
	// connections on ranges of the integer column PartitionOn.
	PartitionOn string `json:"partition_on,omitempty"`
	Partitions  int    `json:"partitions,omitempty"`
}

// adbcCommand returns the command that starts the runner script, and the
// start line to write to its stdin. The connection string travels on
// stdin only: never on the command line or in the environment, which
// other users of the machine can read (ps, /proc/<pid>/cmdline).
func adbcCommand(script string, s adbcStart) (*exec.Cmd, []byte, error) {
	start, err := json.Marshal(s)
	if err != nil {
		return nil, nil, fmt.Errorf("python peer: start line: %w", err)
	}
	py, err := interpreter(s.Python)
	if err != nil {
		return nil, nil, fmt.Errorf("python peer: %w", err)
	}
	return exec.Command(py, script), append(start, '\n'), nil
}

// interpreter is py, or python3 from PATH when py is "".
func interpreter(py string) (string, error) {
	if py != "" {
		return py, nil
	}
	return exec.LookPath("python3")
}

// startADBC starts the peer runner for s (ADBC or ConnectorX) and waits
// until it has connected.
func startADBC(ctx context.Context, tmp string, s adbcStart) (*adbcRunner, error) {
	script := filepath.Join(tmp, "peer_runner.py")
	if err := os.WriteFile(script, adbcRunnerScript, 0o644); err != nil {
		return nil, fmt.Errorf("python peer: %w", err)
	}
	dsn := s.DSN
	cmd, start, err := adbcCommand(script, s)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("python peer: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("python peer: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("python peer: start python3: %w", err)
	}
	r := &adbcRunner{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout), script: script, secrets: passwordForms(results.DSNPassword(dsn))}
	r.out.Buffer(make([]byte, 0, 4096), 1<<20)
	if _, err := stdin.Write(start); err != nil {
		r.close()
		return nil, fmt.Errorf("python peer: hand the connection string to the runner: %w", err)
	}
	res, err := r.reply(ctx)
	if err != nil {
		r.close()
		return nil, err
	}
	if !res.Ready {
		r.close()
		return nil, errors.New("python peer: runner did not start")
	}
	r.backendPID = res.BackendPID
	return r, nil
}

// redact hides the connection string's password in s, whatever form the
// driver quoted it in.
func (r *adbcRunner) redact(s string) string {
	for _, pw := range r.secrets {
		s = strings.ReplaceAll(s, pw, results.Redacted)
	}
	return results.Redact(s)
}

func (r *adbcRunner) reply(ctx context.Context) (adbcResult, error) {
	type line struct {
		b   []byte
		err error
	}
	ch := make(chan line, 1)
	go func() {
		if r.out.Scan() {
			ch <- line{b: append([]byte(nil), r.out.Bytes()...)}
			return
		}
		err := r.out.Err()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		ch <- line{err: fmt.Errorf("python peer: runner exited: %w", err)}
	}()
	select {
	case <-ctx.Done():
		r.close()
		return adbcResult{}, ctx.Err()
	case l := <-ch:
		if l.err != nil {
			return adbcResult{}, l.err
		}
		var res adbcResult
		if err := json.Unmarshal(l.b, &res); err != nil {
			return adbcResult{}, fmt.Errorf("python peer: bad reply %q: %w", r.redact(string(l.b)), err)
		}
		if res.Error != "" {
			return res, fmt.Errorf("python peer: %s", r.redact(res.Error))
		}
		return res, nil
	}
}

func (r *adbcRunner) run(ctx context.Context, check bool) (adbcResult, error) {
	cmd := "run\n"
	if check {
		cmd = "check\n"
	}
	if _, err := io.WriteString(r.stdin, cmd); err != nil {
		return adbcResult{}, fmt.Errorf("python peer: %w", err)
	}
	return r.reply(ctx)
}

func (r *adbcRunner) close() {
	_ = r.stdin.Close()
	done := make(chan struct{})
	go func() { _ = r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = r.cmd.Process.Kill()
		<-done
	}
}

// verify compares the runner's checksums with the generator's formulas:
// n rows, ids 1..n, half of them active, names "user_<id>", dates
// 2020-01-01 + id % 1000, every score id/2, no NULL.
func (res adbcResult) verify(n int64) error {
	var nameLen, days int64
	for id := int64(1); id <= n; id++ {
		nameLen += 5 + int64(len(strconv.FormatInt(id, 10)))
		days += epoch2020 + id%1000
	}
	switch {
	case res.Rows != n:
		return fmt.Errorf("read %d rows, want %d", res.Rows, n)
	case res.SumID != n*(n+1)/2:
		return fmt.Errorf("ids sum to %d, want %d", res.SumID, n*(n+1)/2)
	case res.Active != n/2:
		return fmt.Errorf("%d active rows, want %d", res.Active, n/2)
	case res.SumNameLen != nameLen:
		return fmt.Errorf("name lengths sum to %d, want %d", res.SumNameLen, nameLen)
	case res.SumDays != days:
		return fmt.Errorf("dates sum to %d days, want %d", res.SumDays, days)
	case res.BadScore != 0:
		return fmt.Errorf("%d scores differ from id/2", res.BadScore)
	case res.Nulls != 0:
		return fmt.Errorf("%d unexpected NULLs", res.Nulls)
	}
	return nil
}
