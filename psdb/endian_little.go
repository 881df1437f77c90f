//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package psdb

// nativeLE reports whether the host is little-endian, enabling the
// single-copy fast paths.
const nativeLE = true
