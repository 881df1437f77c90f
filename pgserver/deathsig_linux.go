package pgserver

import "syscall"

// setDeathSignal asks the kernel to send sig to the child when the thread
// that started it exits (see startLocked), so that no server outlives the
// process that owns it.
func setDeathSignal(attr *syscall.SysProcAttr, sig syscall.Signal) { attr.Pdeathsig = sig }
