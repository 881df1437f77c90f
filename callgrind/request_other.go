//go:build !amd64

package callgrind

// clientRequest returns def: client requests are spelled out for amd64
// only, so elsewhere the process never learns it runs under Valgrind and
// counting is refused (Active is false).
func clientRequest(_ *[6]uintptr, def uintptr) uintptr { return def }

// supported says whether this architecture can issue client requests.
const supported = false
