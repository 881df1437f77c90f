package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/serbench/serbench/results"
)

// Version is serbench's release version.
const Version = "0.1.0-dev"

// trackedModules are the module paths whose versions travel with every
// result: the format, codec, database and statistics libraries measured.
var trackedModules = []string{
	"github.com/apache/arrow-go/v18",
	"google.golang.org/protobuf",
	"github.com/planetscale/vtprotobuf",
	"github.com/google/flatbuffers",
	"github.com/klauspost/compress",
	"github.com/pierrec/lz4/v4",
	"github.com/andybalholm/brotli",
	"github.com/ulikunitz/xz",
	"github.com/golang/snappy",
	"github.com/goccy/go-json",
	"github.com/vmihailenco/msgpack/v5",
	"github.com/tinylib/msgp",
	"github.com/fxamacker/cbor/v2",
	"github.com/hamba/avro/v2",
	"github.com/parquet-go/parquet-go",
	"github.com/jackc/pgx/v5",
	"golang.org/x/perf",
}

// CollectEnv describes this machine and build.
func CollectEnv(scale string, count int, args []string) results.Env {
	e := results.Env{
		CPU:        cpuModel(),
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		GoVersion:  runtime.Version(),
		Version:    Version,
		Start:      time.Now().UTC(),
		Scale:      scale,
		Count:      count,
		Command:    args,
	}
	e.Host, _ = os.Hostname()
	e.Kernel, e.MemTotal = kernelRelease(), memTotal()
	for _, k := range []string{"GOGC", "GOMEMLIMIT", "GODEBUG"} {
		if v := os.Getenv(k); v != "" {
			if e.GoRuntime == nil {
				e.GoRuntime = map[string]string{}
			}
			e.GoRuntime[k] = v
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "DefaultGODEBUG" && s.Value != "" {
				if e.GoRuntime == nil {
					e.GoRuntime = map[string]string{}
				}
				e.GoRuntime["default GODEBUG"] = s.Value
			}
		}
		e.Libraries = libraryVersions(bi)
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				e.Revision = s.Value
			case "vcs.modified":
				e.Modified = s.Value == "true"
			}
		}
		if e.Revision == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			e.Revision = bi.Main.Version
		}
		if e.Revision == "" {
			e.Revision, e.Modified = gitRevision(bi.Main.Path)
		}
	}
	return e
}

// gitRevision asks git for the revision of the checkout in the working
// directory when the build carries none (go run, -buildvcs=false) and that
// checkout is this module's own source. It returns "" otherwise.
func gitRevision(module string) (rev string, modified bool) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", false
	}
	mod, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(top)), "go.mod"))
	if err != nil || module == "" || !strings.Contains(string(mod), "module "+module+"\n") {
		return "", false
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
	return strings.TrimSpace(string(out)), err == nil && len(bytes.TrimSpace(st)) > 0
}

func libraryVersions(bi *debug.BuildInfo) map[string]string {
	want := map[string]bool{}
	for _, m := range trackedModules {
		want[m] = true
	}
	out := map[string]string{}
	for _, d := range bi.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		if want[d.Path] {
			out[d.Path] = m.Version
		}
	}
	return out
}

// cpuModel reads the CPU model name on Linux; elsewhere it returns GOARCH.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// kernelRelease returns the kernel's release on Linux ("" elsewhere).
func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return runtime.GOOS + " " + strings.TrimSpace(string(b))
}

// memTotal returns the machine's memory in bytes on Linux (0 elsewhere).
func memTotal() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "MemTotal:"); ok {
			var kb uint64
			if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
