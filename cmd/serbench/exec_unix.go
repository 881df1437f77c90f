//go:build unix

package main

import "syscall"

// execSelf replaces this process with exe (it returns only on failure).
func execSelf(exe string, args, env []string) { _ = syscall.Exec(exe, args, env) }
