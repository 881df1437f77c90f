//go:build !linux

package cli

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal:
// an interrupted parent still stops its forks (they get os.Interrupt), but
// a killed one leaves its current fork to finish its batch.
func dieWithParent(*exec.Cmd) {}
