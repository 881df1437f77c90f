//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package psdb

// nativeLE is false on big-endian or unknown hosts, which use the portable
// encoding/binary paths.
const nativeLE = false
