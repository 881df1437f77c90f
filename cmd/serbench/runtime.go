package main

import (
	"os"
	"strings"
)

// freeSetting is the Go runtime setting serbench measures under: memory
// the runtime gives back to the kernel is released with MADV_FREE instead
// of MADV_DONTNEED, so that re-using it does not page-fault while the
// machine has memory to spare. Between the forced collections before each
// sample the scavenger returns freed heap; with MADV_DONTNEED the next
// sample of an allocating subject paid page faults for it, as much or as
// little as the scavenger's timing in that process allowed. Measured, three
// pairs of quick features runs with and four without: ratios to the limit
// row that moved more than 15% between identical runs 0, 0, 0 against
// 3, 0, 0, 1; noisy cases 15–43 of 198 against 19–68.
const freeSetting = "madvdontneed=0"

// measureEnv returns environ with freeSetting added to GODEBUG, and
// whether that changed anything: a GODEBUG that already says madvdontneed
// (the user's choice) is kept as it is.
func measureEnv(environ []string) ([]string, bool) {
	out := make([]string, 0, len(environ)+1)
	godebug := ""
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			godebug = v
			continue
		}
		out = append(out, kv)
	}
	for _, s := range strings.Split(godebug, ",") {
		if strings.HasPrefix(strings.TrimSpace(s), "madvdontneed=") {
			return environ, false
		}
	}
	if godebug != "" {
		godebug += ","
	}
	return append(out, "GODEBUG="+godebug+freeSetting), true
}

// measuring reports whether args run measurements (serbench run …).
func measuring(args []string) bool { return len(args) > 1 && args[1] == "run" }

// reexecToMeasure starts this program again in place, with freeSetting,
// when it is about to measure and the setting is not in effect: the
// runtime reads it only at start-up. When the exec fails, serbench
// measures with the runtime's defaults (the environment it records says
// which).
func reexecToMeasure() {
	if !measuring(os.Args) {
		return
	}
	env, changed := measureEnv(os.Environ())
	if !changed {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	execSelf(exe, os.Args, env)
}
