package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// skip reports whether an embedded path is a build by-product a
// developer's checkout may hold (Python's bytecode caches), which neither
// names nor belongs to a runner's sources.
func skip(path string) bool { return strings.Contains(path, "__pycache__") }

// Hash is the SHA-256 of every file's path and bytes in fsys, in path
// order: a changed source is a new build.
func Hash(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || skip(path) {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("runner sources: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Extract writes the tree fsys under dir.
func Extract(fsys fs.FS, dir string) error {
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || skip(path) {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return fmt.Errorf("runner sources: %w", err)
	}
	return nil
}

// Lock takes an exclusive lock on dir (created when missing), so that two
// runs build a runner once; unlock releases it.
func Lock(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("runner cache: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("runner cache: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("runner cache: %w", err)
	}
	return func() { f.Close() }, nil
}

// Cached makes a runner's build in dir once: when done reports a finished
// build it does nothing; else, holding dir's Lock (a second run waits for
// the first one's build), it checks again, extracts sources under
// dir/src (replacing what a broken build left there) and calls build with
// that directory.
func Cached(dir string, sources fs.FS, done func() bool, build func(src string) error) error {
	if done() {
		return nil
	}
	unlock, err := Lock(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if done() {
		return nil
	}
	src := filepath.Join(dir, "src")
	if err := os.RemoveAll(src); err != nil {
		return fmt.Errorf("runner cache: %w", err)
	}
	if err := Extract(sources, src); err != nil {
		return err
	}
	return build(src)
}

// BuildFailure is the one line a failed build of a runner says: what was
// built, the command's error, the line of its output that says most (its
// first error line, else its last line) and where its whole output is.
// The output is written to logFile (its directory made when missing);
// when that fails too (a full disk), the line says so instead of where.
func BuildFailure(what string, err error, out []byte, logFile string) error {
	where := "its whole output in " + logFile
	if logFile == "" {
		where = ""
	} else if werr := writeLog(logFile, out); werr != nil {
		where = fmt.Sprintf("its output not kept: %v", werr)
	}
	msg := fmt.Sprintf("%s failed: %v", what, err)
	if l := tellingLine(out); l != "" {
		msg += ": " + l
	}
	if where != "" {
		msg += " (" + where + ")"
	}
	return errors.New(msg)
}

func writeLog(path string, out []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}

// tellingLine is the first line of out that reports an error (cargo's
// "error[E…]:", Maven's "[ERROR]", pip's "ERROR:"), else its last
// non-blank line, trimmed and cut to 300 bytes.
func tellingLine(out []byte) string {
	var last string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		low := strings.ToLower(l)
		if strings.HasPrefix(low, "error") || strings.HasPrefix(low, "[error]") || strings.Contains(low, " error:") {
			return cut(l)
		}
		last = l
	}
	return cut(last)
}

func cut(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
