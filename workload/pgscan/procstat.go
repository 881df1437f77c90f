package pgscan

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// clientCPU returns this process's user+system CPU seconds.
func clientCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// resetPeakRSS resets the kernel's high-water mark of a process's
// resident set (Linux: "5" to /proc/<pid>/clear_refs; "self" for this
// process) so that peakRSS measures one sample. It reports whether that
// worked.
func resetPeakRSS(pid string) bool {
	return os.WriteFile("/proc/"+pid+"/clear_refs", []byte("5"), 0) == nil
}

// peakRSS returns VmHWM — the peak resident set since the last reset — of
// a process in bytes, or 0 when unknown.
func peakRSS(pid string) float64 {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fs := strings.Fields(v)
			if len(fs) >= 1 {
				kb, err := strconv.ParseFloat(fs[0], 64)
				if err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// meminfo returns a field of /proc/meminfo ("MemTotal", "MemAvailable")
// in bytes, or 0 when unknown.
func meminfo(field string) int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			fs := strings.Fields(v)
			if len(fs) >= 1 {
				if kb, err := strconv.ParseInt(fs[0], 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}
