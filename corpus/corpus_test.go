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
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEntries: names are unique, every source is pinned, every entry
// covers something, and together they cover what real data holds.
func TestEntries(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Entries() {
		if seen[e.Name] || e.Name == "" || strings.ContainsAny(e.Name, " :/") {
			t.Errorf("entry name %q: empty, repeated or not a plain word", e.Name)
		}
		seen[e.Name] = true
		if e.Source.Version == "" || e.Path == "" || len(e.Covers) == 0 {
			t.Errorf("%s: source %v, path %q, covers %v", e.Name, e.Source, e.Path, e.Covers)
		}
		if e.Source.Registry == NPM && !strings.HasPrefix(e.Source.Integrity, "sha512-") {
			t.Errorf("%s: an npm source without a sha512 integrity", e.Name)
		}
	}
	_, by := Covered(Entries())
	for _, c := range []string{NamesSpaces, NamesPunct, NamesUnicode, NamesDigits, BigInts, SubMicro, Nulls, MixedTypes, NestedLists, NestedStructs, Maps, Float32, Float64,
		Decimals, Dates, TimestampsZone, TimestampsNone, TimestampsNS, Binary, EmptyValues, NaN, OneObject} {
		if len(by[c]) == 0 {
			t.Errorf("nothing covers %s", c)
		}
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "valid: movies") {
		t.Errorf("Lookup(nope): %v", err)
	}
	if e, err := Lookup("earthquakes"); err != nil || e.Records != "features" {
		t.Errorf("Lookup(earthquakes) = %+v, %v", e, err)
	}
}

// tgz makes a gzipped tar of files (name → content).
func tgz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func integrity(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// TestNPMFetch serves a package over HTTP: the file is fetched once and
// then read from the cache; a tarball that does not match its integrity,
// and one with a path leaving the package, are refused and leave nothing.
func TestNPMFetch(t *testing.T) {
	good := tgz(t, map[string]string{"package/data/x.json": `[{"a":1}]`})
	evil := tgz(t, map[string]string{"../outside.txt": "x"})
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		switch r.URL.Path {
		case "/pkg/-/pkg-1.0.0.tgz":
			w.Write(good)
		case "/evil/-/evil-1.0.0.tgz":
			w.Write(evil)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := &Cache{Dir: t.TempDir(), Registry: srv.URL}
	e := Entry{Name: "x", Source: Source{Registry: NPM, Package: "pkg", Version: "1.0.0", Integrity: integrity(good)}, Path: "package/data/x.json"}
	for i := 0; i < 2; i++ {
		p, err := c.Path(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != `[{"a":1}]` {
			t.Fatalf("read %q, %v", b, err)
		}
	}
	if hits != 1 {
		t.Errorf("%d downloads, want 1 (the second from the cache)", hits)
	}
	tests := []struct {
		name string
		e    Entry
		want string
	}{
		{"tampered", Entry{Name: "t", Source: Source{Registry: NPM, Package: "pkg", Version: "1.0.0", Integrity: integrity([]byte("other"))}, Path: "package/data/x.json"},
			"not the published package"},
		{"escape", Entry{Name: "e", Source: Source{Registry: NPM, Package: "evil", Version: "1.0.0", Integrity: integrity(evil)}, Path: "x"}, "leaves the package"},
		{"missing", Entry{Name: "m", Source: Source{Registry: NPM, Package: "gone", Version: "1.0.0", Integrity: integrity(good)}, Path: "x"}, "404"},
		{"no integrity", Entry{Name: "n", Source: Source{Registry: NPM, Package: "pkg", Version: "2.0.0"}, Path: "x"}, "no sha512 integrity"},
		{"registry", Entry{Name: "r", Source: Source{Registry: "cran", Package: "p", Version: "1"}}, "unknown registry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c := &Cache{Dir: dir, Registry: srv.URL}
			if tt.name == "tampered" {
				c.Dir = filepath.Join(dir, "fresh")
			}
			_, err := c.Path(context.Background(), tt.e)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "outside.txt")); err == nil {
				t.Error("a tarball wrote outside the cache")
			}
			if _, err := os.Stat(c.archiveDir(tt.e.Source)); err == nil {
				t.Error("a refused fetch left a package directory")
			}
		})
	}
}

// jar makes a zip of files (name → content).
func jar(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha256hex(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b)) }

// TestPyPIAndMavenFetch serves a simple index, an sdist and a jar: the
// sdist is found through the index (a relative URL), the jar at Maven's
// layout keeping its files but not its classes; a pinned sha256 that the
// download or the index contradicts is refused and leaves nothing.
func TestPyPIAndMavenFetch(t *testing.T) {
	sdist := tgz(t, map[string]string{"pkg-1.0/data/ünï.csv": "a,b\n1,2\n"})
	jarb := jar(t, map[string]string{"test-data/x.parquet": "PAR1", "org/x/Y.class": "cafebabe"})
	evilJar := jar(t, map[string]string{"../outside.txt": "x"})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/simple/pkg/":
			if r.Header.Get("Accept") != "application/vnd.pypi.simple.v1+json" {
				http.Error(w, "want the JSON form", http.StatusNotAcceptable)
				return
			}
			fmt.Fprintf(w, `{"files":[{"filename":"pkg-1.0.tar.gz","url":"../../files/pkg-1.0.tar.gz","hashes":{"sha256":%q}}]}`, sha256hex(sdist))
		case "/files/pkg-1.0.tar.gz":
			w.Write(sdist)
		case "/maven2/org/ex/art/2.0/art-2.0-tests.jar":
			w.Write(jarb)
		case "/maven2/org/ex/evil/2.0/evil-2.0.jar":
			w.Write(evilJar)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	newCache := func(dir string) *Cache {
		return &Cache{Dir: dir, PyPIIndex: srv.URL + "/simple", MavenRepo: srv.URL + "/maven2"}
	}
	py := Source{Registry: PyPI, Package: "pkg", Version: "1.0", File: "pkg-1.0.tar.gz", SHA256: sha256hex(sdist)}
	mv := Source{Registry: Maven, Package: "org.ex:art", Version: "2.0", Classifier: "tests", SHA256: sha256hex(jarb)}
	c := newCache(t.TempDir())
	for _, tt := range []struct {
		e    Entry
		want string
	}{
		{Entry{Name: "p", Source: py, Path: "pkg-1.0/data/ünï.csv"}, "a,b\n1,2\n"},
		{Entry{Name: "m", Source: mv, Path: "test-data/x.parquet"}, "PAR1"},
	} {
		p, err := c.Path(context.Background(), tt.e)
		if err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != tt.want {
			t.Fatalf("%s: read %q, %v", tt.e.Name, b, err)
		}
	}
	if _, err := c.Path(context.Background(), Entry{Name: "cls", Source: mv, Path: "org/x/Y.class"}); err == nil {
		t.Error("a jar's class was unpacked")
	}
	other := sha256hex([]byte("other"))
	refused := []struct {
		name string
		s    Source
		want string
	}{
		{"index disagrees", Source{Registry: PyPI, Package: "pkg", Version: "1.0", File: "pkg-1.0.tar.gz", SHA256: other}, "the index's sha256"},
		{"not listed", Source{Registry: PyPI, Package: "pkg", Version: "1.0", File: "pkg-9.tar.gz", SHA256: other}, "lists no pkg-9.tar.gz"},
		{"no pin", Source{Registry: PyPI, Package: "pkg", Version: "1.0", File: "pkg-1.0.tar.gz"}, "needs its file and a sha256"},
		{"jar tampered", Source{Registry: Maven, Package: "org.ex:art", Version: "2.0", Classifier: "tests", SHA256: other}, "not the published file"},
		{"jar escape", Source{Registry: Maven, Package: "org.ex:evil", Version: "2.0", SHA256: sha256hex(evilJar)}, "leaves the package"},
		{"no group", Source{Registry: Maven, Package: "art", Version: "2.0", SHA256: other}, `"group:artifact"`},
		{"jar missing", Source{Registry: Maven, Package: "org.ex:gone", Version: "2.0", SHA256: other}, "404"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c := newCache(dir)
			_, err := c.Path(context.Background(), Entry{Name: "x", Source: tt.s, Path: "x"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "outside.txt")); err == nil {
				t.Error("a jar wrote outside the cache")
			}
			if _, err := os.Stat(c.archiveDir(tt.s)); err == nil {
				t.Error("a refused fetch left a package directory")
			}
		})
	}
}
