package callgrind

// clientRequest issues a Valgrind client request (request_amd64.s).
//
//go:noescape
func clientRequest(args *[6]uintptr, def uintptr) uintptr

// supported says whether this architecture can issue client requests.
const supported = true
