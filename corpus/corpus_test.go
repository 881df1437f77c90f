package corpus

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
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
	for _, c := range []string{NamesSpaces, NamesPunct, Nulls, MixedTypes, NestedLists, NestedStructs, Maps, Float32, Float64,
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
			if _, err := os.Stat(c.npmDir(tt.e.Source)); err == nil {
				t.Error("a refused fetch left a package directory")
			}
		})
	}
}
