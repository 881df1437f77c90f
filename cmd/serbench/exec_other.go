//go:build !unix

package main

// execSelf does nothing where a process cannot be replaced in place:
// serbench then measures with the runtime's defaults.
func execSelf(string, []string, []string) {}
