package results

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// MergeShards merges the shards of one sharded run (the same RunID, as
// `serbench run --shard K/N` records) into one Run, in the order the runs
// are given, and leaves every other run as it is. The merged run keeps
// the first shard's environment; its Host lists each shard's host when
// they differ, Extra["shards"] says which host measured which shard, and
// a missing or interrupted shard is said in Warnings and the end line.
func MergeShards(runs []*Run) []*Run {
	var out []*Run
	byID := map[string]*Run{}
	parts := map[string][]*Run{}
	for _, r := range runs {
		id := r.Env.RunID
		if id == "" || r.Env.Shard == "" {
			out = append(out, r)
			continue
		}
		if _, ok := byID[id]; !ok {
			m := &Run{File: r.File, Env: r.Env}
			byID[id] = m
			out = append(out, m)
		}
		parts[id] = append(parts[id], r)
	}
	for id, m := range byID {
		mergeInto(m, parts[id])
	}
	return out
}

func mergeInto(m *Run, shards []*Run) {
	sort.SliceStable(shards, func(i, j int) bool { return shardK(shards[i].Env.Shard) < shardK(shards[j].Env.Shard) })
	var files, hosts, desc []string
	seen := map[int]bool{}
	n := 0
	end := &End{}
	for _, s := range shards {
		k := shardK(s.Env.Shard)
		if _, nn, ok := strings.Cut(s.Env.Shard, "/"); ok {
			fmt.Sscan(nn, &n)
		}
		if seen[k] {
			m.Warnings = append(m.Warnings, fmt.Sprintf("shard %s appears twice (%s): both kept", s.Env.Shard, s.File))
		}
		seen[k] = true
		files = append(files, s.File)
		if !slices.Contains(hosts, s.Env.Host) {
			hosts = append(hosts, s.Env.Host)
		}
		desc = append(desc, s.Env.Shard+" on "+orUnknown(s.Env.Host))
		for _, d := range s.Descriptors {
			if m.Descriptor(d.Workload, d.Key, d.Name) == nil {
				m.Descriptors = append(m.Descriptors, d)
			}
		}
		m.Cases = append(m.Cases, s.Cases...)
		m.Probes = append(m.Probes, s.Probes...)
		m.Warnings = append(m.Warnings, s.Warnings...)
		switch {
		case s.End == nil:
			end.Interrupted = true
			m.Warnings = append(m.Warnings, fmt.Sprintf("shard %s (%s) did not finish: its file has no end line", s.Env.Shard, s.File))
		default:
			end.Planned += s.End.Planned
			end.Done += s.End.Done
			end.Interrupted = end.Interrupted || s.End.Interrupted
			if s.End.Time.After(end.Time) {
				end.Time = s.End.Time
			}
		}
		if s.Env.Start.Before(m.Env.Start) {
			m.Env.Start = s.Env.Start
		}
	}
	if missing := missingShards(seen, n); len(missing) > 0 {
		end.Interrupted = true
		m.Warnings = append(m.Warnings, missing...)
	}
	if end.Interrupted {
		end.Error = "not every shard finished"
	}
	end.Kind = KindEnd
	m.End = end
	m.File = strings.Join(files, " + ")
	m.Env.Host = strings.Join(hosts, ", ")
	if len(hosts) > 1 {
		// Probes time one machine: several machines' speeds are not one
		// series.
		m.Probes = nil
	} else {
		sort.SliceStable(m.Probes, func(i, j int) bool { return m.Probes[i].Time.Before(m.Probes[j].Time) })
	}
	m.Env.Shard = fmt.Sprintf("%d shards merged", len(shards))
	if m.Env.Extra == nil {
		m.Env.Extra = map[string]string{}
	} else {
		m.Env.Extra = maps(m.Env.Extra)
	}
	m.Env.Extra["shards"] = strings.Join(desc, "; ")
}

// missingShards says which of shards 1 to n are not in seen: one warning
// per missing shard, or per run of consecutive missing shards, so that a
// file that claims to be one of a million shards costs a warning, not a
// million.
func missingShards(seen map[int]bool, n int) []string {
	var ks []int
	for k := range seen {
		if k >= 1 && k <= n {
			ks = append(ks, k)
		}
	}
	sort.Ints(ks)
	var out []string
	gap := func(lo, hi int) {
		switch {
		case lo == hi:
			out = append(out, fmt.Sprintf("shard %d/%d is missing: its cases are not in this report", lo, n))
		case lo < hi:
			out = append(out, fmt.Sprintf("shards %d to %d of %d are missing: their cases are not in this report", lo, hi, n))
		}
	}
	// The gaps lie before each shard seen (in order) and after the last.
	prev := 0
	for _, k := range ks {
		gap(prev+1, k-1)
		prev = k
	}
	if prev < n {
		gap(prev+1, n)
	}
	return out
}

func maps(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown host"
	}
	return s
}

// shardK returns K of "K/N" (0 when it is not one).
func shardK(s string) int {
	var k int
	if a, _, ok := strings.Cut(s, "/"); ok {
		fmt.Sscan(a, &k)
	}
	return k
}
