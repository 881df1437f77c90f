package callgrind

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// ErrMissing says Valgrind is not installed and could not be.
var ErrMissing = errors.New("instruction counts need Valgrind (Debian/Ubuntu: apt-get install valgrind)")

// Find returns the valgrind executable. When none is on the PATH and the
// process may install Debian packages (root, with apt-get), it installs
// the valgrind package first, saying so on log; otherwise, or when the
// install fails, the error wraps ErrMissing.
func Find(ctx context.Context, log io.Writer) (string, error) {
	if p, err := exec.LookPath("valgrind"); err == nil {
		return p, nil
	}
	apt, err := exec.LookPath("apt-get")
	if err != nil || os.Geteuid() != 0 {
		return "", fmt.Errorf("%w: no valgrind on the PATH", ErrMissing)
	}
	if log != nil {
		fmt.Fprintln(log, "serbench: installing Valgrind for instruction counts (apt-get install valgrind), once")
	}
	for _, args := range [][]string{{"update", "-qq"}, {"install", "-y", "-qq", "valgrind"}} {
		cmd := exec.CommandContext(ctx, apt, args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			last := strings.TrimSpace(out.String())
			if i := strings.LastIndexByte(last, '\n'); i >= 0 {
				last = last[i+1:]
			}
			return "", fmt.Errorf("%w: apt-get %s failed: %v %s", ErrMissing, args[0], err, last)
		}
	}
	p, err := exec.LookPath("valgrind")
	if err != nil {
		return "", fmt.Errorf("%w: apt-get installed no valgrind on the PATH", ErrMissing)
	}
	return p, nil
}
