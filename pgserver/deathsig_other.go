//go:build !linux

package pgserver

import "syscall"

// setDeathSignal does nothing where the kernel has no parent-death signal
// (macOS, the BSDs): Stop and Kill still end the server, but one whose
// owner was killed keeps running until it is stopped by hand (the next
// Start removes its directory; finding its processes needs Linux's /proc).
func setDeathSignal(*syscall.SysProcAttr, syscall.Signal) {}
