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
)

//go:embed adbc_runner.py
var adbcRunnerScript []byte

// adbcInstall is how a user gets the peer.
const adbcInstall = "pip install adbc-driver-postgresql pyarrow"

// adbcAvailable reports the driver versions when python3 can import the
// ADBC PostgreSQL driver and pyarrow, or why not.
func adbcAvailable(ctx context.Context) (string, error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return "", fmt.Errorf("not installed: python3 not found; install Python 3, then %s", adbcInstall)
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, "-c",
		"import adbc_driver_postgresql, pyarrow; print(adbc_driver_postgresql.__version__, pyarrow.__version__)").Output()
	if err != nil {
		return "", fmt.Errorf("not installed: python3 cannot import adbc_driver_postgresql and pyarrow; %s", adbcInstall)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return "", fmt.Errorf("not installed: unexpected version output %q", out)
	}
	return "adbc-driver-postgresql " + f[0] + ", pyarrow " + f[1], nil
}

// adbcRunner is a long-lived python3 process that runs the query through
// ADBC on command, so start-up and imports stay out of the timed region.
type adbcRunner struct {
	// backendPID is the server process serving the runner's connection.
	backendPID int
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	out        *bufio.Scanner
	script     string
	// secret is the password of the connection string, scrubbed from
	// every error the runner reports.
	secret string
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
	DSN string `json:"dsn"`
	SQL string `json:"sql"`
}

// adbcCommand returns the command that starts the runner script, and the
// start line to write to its stdin. The connection string travels on
// stdin only: never on the command line or in the environment, which
// other users of the machine can read (ps, /proc/<pid>/cmdline).
func adbcCommand(script, dsn, sql string) (*exec.Cmd, []byte, error) {
	start, err := json.Marshal(adbcStart{DSN: dsn, SQL: sql})
	if err != nil {
		return nil, nil, fmt.Errorf("adbc: start line: %w", err)
	}
	return exec.Command("python3", script), append(start, '\n'), nil
}

func startADBC(ctx context.Context, tmp, dsn, sql string) (*adbcRunner, error) {
	script := filepath.Join(tmp, "adbc_runner.py")
	if err := os.WriteFile(script, adbcRunnerScript, 0o644); err != nil {
		return nil, fmt.Errorf("adbc: %w", err)
	}
	cmd, start, err := adbcCommand(script, dsn, sql)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("adbc: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("adbc: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("adbc: start python3: %w", err)
	}
	r := &adbcRunner{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout), script: script, secret: results.DSNPassword(dsn)}
	r.out.Buffer(make([]byte, 0, 4096), 1<<20)
	if _, err := stdin.Write(start); err != nil {
		r.close()
		return nil, fmt.Errorf("adbc: hand the connection string to the runner: %w", err)
	}
	res, err := r.reply(ctx)
	if err != nil {
		r.close()
		return nil, err
	}
	if !res.Ready {
		r.close()
		return nil, errors.New("adbc: runner did not start")
	}
	r.backendPID = res.BackendPID
	return r, nil
}

// redact hides the connection string's password in s, whatever form the
// driver quoted it in.
func (r *adbcRunner) redact(s string) string {
	if r.secret != "" {
		s = strings.ReplaceAll(s, r.secret, results.Redacted)
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
		ch <- line{err: fmt.Errorf("adbc: runner exited: %w", err)}
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
			return adbcResult{}, fmt.Errorf("adbc: bad reply %q: %w", r.redact(string(l.b)), err)
		}
		if res.Error != "" {
			return res, fmt.Errorf("adbc: %s", r.redact(res.Error))
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
		return adbcResult{}, fmt.Errorf("adbc: %w", err)
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
