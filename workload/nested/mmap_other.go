//go:build !unix

package nested

// mapFile reads the whole file where memory mapping is not available.
func mapFile(path string) ([]byte, func(), error) { return readWhole(path) }
