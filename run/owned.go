package run

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/serbench/serbench/workload"
)

// A run owns two directories while it measures: its output directory and a
// temporary directory for its files (data files, forks' results). Each is
// held with an exclusive flock on the directory itself, which the kernel
// releases when the process ends however it ends (SIGKILL included):
//
//   - a second run on the same --out finds the lock taken and stops before
//     writing anything, instead of interleaving its lines with the first's;
//   - a temporary directory whose lock is free belongs to a run that died
//     without cleaning up, and the next run removes it.

// ErrOutInUse is wrapped by the error for an output directory that another
// serbench process is writing.
var ErrOutInUse = errors.New("another serbench run is writing to this directory")

// lockDir takes an exclusive, non-blocking flock on directory dir and
// returns the open directory holding it; closing it releases the lock.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrOutInUse
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return f, nil
}

// lockOut creates the output directory when missing and locks it for this
// run.
func lockOut(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, workload.Usagef("output directory: %v", err)
	}
	f, err := lockDir(dir)
	if errors.Is(err, ErrOutInUse) {
		return nil, workload.Usagef("%s: %w; wait for it to finish or choose another --out", dir, err)
	}
	if err != nil {
		return nil, workload.Usagef("output directory: %v", err)
	}
	return f, nil
}

// Temporary directories: created as .serbench-new-* and renamed to
// serbench-* once locked, so that no other run can find one unlocked and
// take it for a dead run's.
const (
	tempPrefix    = "serbench-"
	tempNewPrefix = ".serbench-new-"
)

// tempDir is a run's temporary directory, locked while the run lives.
type tempDir struct {
	path string
	lock *os.File
}

// newTempDir creates and locks a temporary directory in base (os.TempDir
// when empty).
func newTempDir(base string) (*tempDir, error) {
	if base == "" {
		base = os.TempDir()
	}
	tmp, err := os.MkdirTemp(base, tempNewPrefix)
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	lock, err := lockDir(tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	path := filepath.Join(base, tempPrefix+strings.TrimPrefix(filepath.Base(tmp), tempNewPrefix))
	if err := os.Rename(tmp, path); err != nil {
		lock.Close()
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	return &tempDir{path: path, lock: lock}, nil
}

// Remove deletes the directory and releases its lock.
func (t *tempDir) Remove() error {
	err := os.RemoveAll(t.path)
	t.lock.Close()
	return err
}

// staleNewAge is how old a .serbench-new-* directory must be to be taken
// for a leftover: it lives for a moment between MkdirTemp and Rename.
const staleNewAge = time.Hour

// RemoveStaleTemps removes the temporary directories in base (os.TempDir
// when empty) that runs killed before cleaning up left behind: those whose
// lock is free. Directories of live runs, and serbench-* entries that are
// not locked directories of this kind (another program's, or an older
// serbench's), are left alone unless their lock can be taken. It returns
// how many it removed; errors are reported to log and otherwise ignored:
// this is housekeeping.
func RemoveStaleTemps(base string, log io.Writer) int {
	if base == "" {
		base = os.TempDir()
	}
	n := 0
	dirs, _ := filepath.Glob(filepath.Join(base, tempPrefix+"*"))
	news, _ := filepath.Glob(filepath.Join(base, tempNewPrefix+"*"))
	for _, d := range news {
		if st, err := os.Stat(d); err == nil && time.Since(st.ModTime()) > staleNewAge {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		st, err := os.Lstat(d)
		if err != nil || !st.IsDir() || !ownedByMe(st) || !isTempName(filepath.Base(d)) {
			continue
		}
		lock, err := lockDir(d)
		if err != nil {
			continue // a live run's
		}
		if err := os.RemoveAll(d); err != nil {
			fmt.Fprintf(log, "serbench: removing a dead run's temporary directory: %v\n", err)
		} else {
			n++
		}
		lock.Close()
	}
	return n
}

// isTempName reports whether name is one newTempDir makes: the prefix and
// MkdirTemp's random digits, nothing else (serbench-records-* and the like
// are other code's).
func isTempName(name string) bool {
	rest, ok := strings.CutPrefix(name, tempPrefix)
	if !ok {
		rest, ok = strings.CutPrefix(name, tempNewPrefix)
	}
	if !ok || rest == "" {
		return false
	}
	for _, r := range rest {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// ownedByMe reports whether the file belongs to this process's user: a
// temporary directory of another user's serbench is not ours to remove.
func ownedByMe(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return !ok || int(sys.Uid) == os.Geteuid()
}
