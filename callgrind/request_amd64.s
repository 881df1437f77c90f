#include "textflag.h"

// func clientRequest(args *[6]uintptr, def uintptr) uintptr
//
// Valgrind's client request on amd64: RAX points at the request and its
// five arguments, RDX holds the value returned when not under Valgrind.
// The four rotations of RDI add up to 128 bits (a no-op on the CPU);
// Valgrind recognises the sequence followed by xchg %rbx,%rbx and puts
// the request's result in RDX. The bytes are spelled out so that the
// assembler cannot choose another encoding.
TEXT ·clientRequest(SB), NOSPLIT, $0-24
	MOVQ args+0(FP), AX
	MOVQ def+8(FP), DX
	BYTE $0x48; BYTE $0xc1; BYTE $0xc7; BYTE $0x03 // rolq $3, %rdi
	BYTE $0x48; BYTE $0xc1; BYTE $0xc7; BYTE $0x0d // rolq $13, %rdi
	BYTE $0x48; BYTE $0xc1; BYTE $0xc7; BYTE $0x3d // rolq $61, %rdi
	BYTE $0x48; BYTE $0xc1; BYTE $0xc7; BYTE $0x33 // rolq $51, %rdi
	BYTE $0x48; BYTE $0x87; BYTE $0xdb             // xchgq %rbx, %rbx
	MOVQ DX, ret+16(FP)
	RET
