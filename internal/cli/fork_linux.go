package cli

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill a fork when the serbench process
// that started it dies, however it dies (a SIGKILL included), so that no
// orphaned fork goes on measuring and loading the machine.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
