package run

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/serbench/serbench/bench"
)

// Shard selects the K-th of N deterministic parts of a run (K from 1 to
// N). The zero Shard is the whole run.
type Shard struct{ K, N int }

// ShardEnv is the environment variable `--shard auto/N` takes K from:
// Kubernetes Indexed Jobs set it to the pod's index, 0 to N-1.
const ShardEnv = "JOB_COMPLETION_INDEX"

// ParseShard reads "K/N" (1 ≤ K ≤ N) or "auto/N", which takes K from
// $JOB_COMPLETION_INDEX + 1. The empty string is the whole run.
func ParseShard(s string, getenv func(string) string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	k, n, ok := strings.Cut(s, "/")
	nn, err := strconv.Atoi(n)
	if !ok || err != nil || nn < 1 {
		return Shard{}, fmt.Errorf("--shard %q: want K/N with 1 ≤ K ≤ N, or auto/N", s)
	}
	var kk int
	if k == "auto" {
		v := getenv(ShardEnv)
		idx, err := strconv.Atoi(v)
		if err != nil || idx < 0 || idx >= nn {
			return Shard{}, fmt.Errorf("--shard auto/%d: $%s is %q, want 0 to %d (set by a Kubernetes Indexed Job)", nn, ShardEnv, v, nn-1)
		}
		kk = idx + 1
	} else if kk, err = strconv.Atoi(k); err != nil || kk < 1 || kk > nn {
		return Shard{}, fmt.Errorf("--shard %q: want K/N with 1 ≤ K ≤ N, or auto/N", s)
	}
	return Shard{K: kk, N: nn}, nil
}

// String renders "K/N" ("" for the whole run).
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// Select keeps the cases of this shard. Cases are dealt out in units that
// stay together — a comparison group, cases of one Affinity — round-robin
// in plan order, so every shard gets about the same number of units and
// the same options always give the same split.
func (s Shard) Select(workload string, cases []bench.Case) []bench.Case {
	if s.N <= 1 {
		return cases
	}
	unit := map[string]int{}
	next := 0
	var out []bench.Case
	for _, c := range cases {
		key := c.Affinity
		if key == "" {
			key = c.Group
		}
		if key == "" {
			key = "case\x00" + c.FullName()
		}
		key = workload + "\x00" + key
		u, ok := unit[key]
		if !ok {
			u = next
			unit[key] = u
			next++
		}
		if u%s.N == s.K-1 {
			out = append(out, c)
		}
	}
	return out
}

// runID names a sharded run from what every shard shares: the command
// line without the flags that differ between shards (--shard, --out,
// --progress, --force, --resume) and the build's revision. Shards started
// with the same command on the same build get the same id.
func runID(args []string, revision string) string {
	valued := map[string]bool{"--shard": true, "--out": true, "--progress": true, "--run-id": true}
	bare := map[string]bool{"--force": true, "--resume": true}
	h := sha256.New()
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case valued[name] && !hasValue:
			i++
			continue
		case valued[name] || bare[name]:
			continue
		}
		h.Write([]byte(a + "\x00"))
	}
	h.Write([]byte(revision))
	return hex.EncodeToString(h.Sum(nil))[:16]
}
