// Package fb holds the FlatBuffers schema of the records workload and the code
// generated from it by flatc, plus VerifyRecord, a bounds check of one buffer,
// because the generated accessors index the buffer without checks and the
// FlatBuffers Go runtime has no verifier.
package fb

//go:generate flatc --go --go-namespace fb -o .. record.fbs
//go:generate gofmt -w .
