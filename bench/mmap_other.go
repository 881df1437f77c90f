//go:build !unix

package bench

import "errors"

// mapAnon is not available here: the memory probe is not taken (a heap
// buffer of its size would change the garbage collector's pacing of the
// cases measured).
func mapAnon(int) ([]byte, func() error, error) {
	return nil, nil, errors.New("bench: no anonymous mappings on this system")
}
