// Package runnerkit measures a Go serializer of your own in serbench's
// tables without forking serbench, the way testing.B measures a function:
// implement Subject (encode record batches to bytes, decode them back) in
// your own module and call Main from its main function:
//
//	func main() { runnerkit.Main("mine", myCodec{}) }
//
// `go run . run records` is then serbench's whole command line with your
// subjects added as mine:NAME beside every built-in one — verified by the
// same digest, sampled by the same rules, in the same tables — and
// `go run . runner check` checks them. Underneath, the program is a
// runner (docs/runner-protocol.md): serbench starts it again with the
// protocol's arguments, and Serve answers them.
package runnerkit

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/serbench/serbench/dataset/nested/tpch"
	"github.com/serbench/serbench/internal/cli"
)

// Subject is a serializer measured by serbench: it turns the rows of a
// dataset, one Arrow record batch, into bytes and back. serbench verifies
// every case by comparing the digest of what Decode returns with its own
// digest of the rows, then times Encode and Decode (each with the case's
// codec applied to the bytes).
type Subject interface {
	// Name names the subject, unique among the program's subjects.
	Name() string
	// Encode appends the encoded form of rec to dst and returns it.
	Encode(dst []byte, rec arrow.RecordBatch) ([]byte, error)
	// Decode builds the rows back from src: every value, in the
	// library's own objects, converted to a record batch the caller
	// releases. The conversion is timed with the decode, so a subject
	// pays for it as every subject does for its visit of the values.
	Decode(src []byte) (arrow.RecordBatch, error)
}

// Describer is what a Subject may say of itself for the reports.
type Describer interface {
	Describe() Description
}

// Description is a subject's descriptor (hello's subject fields).
type Description struct {
	// Format names the wire format ("json", "msgpack", "mine").
	Format string
	// Library and Version name what implements it.
	Library, Version string
	// Labels are serbench's fairness labels (codegen, reuse, zero_copy,
	// time_precision, nesting…), as strings.
	Labels map[string]string
}

// describe is s's Description, with the defaults a Subject that says
// nothing gets.
func describe(s Subject) Description {
	var d Description
	if x, ok := s.(Describer); ok {
		d = x.Describe()
	}
	if d.Format == "" {
		d.Format = s.Name()
	}
	if d.Library == "" {
		d.Library = "(your Go module)"
	}
	if d.Version == "" {
		d.Version = "(devel)"
	}
	if d.Labels == nil {
		d.Labels = map[string]string{}
	}
	return d
}

// Main is the program's main function: with the protocol's arguments
// (hello, run) it serves them for subjects as the runner called name;
// with any other it is serbench's command line, every run and list given
// this program as the runner name (as --runner name=PROGRAM would). It
// does not return.
func Main(name string, subjects ...Subject) {
	tpch.RunChildIfRequested()
	args := os.Args[1:]
	if len(args) > 0 && (args[0] == "hello" || args[0] == "run") && slices.Contains(args, "--protocol") {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		code := Serve(ctx, name, args, os.Stdout, os.Stderr, subjects...)
		stop()
		os.Exit(code)
	}
	os.Exit(cli.Main(context.Background(), WithRunner(args, name), os.Stdout, os.Stderr))
}

// WithRunner is args with this program added as the runner name to the
// commands that take runners: run and list get --runner name=PROGRAM,
// runner check gets PROGRAM when no command is named.
func WithRunner(args []string, name string) []string {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(exe) + `"`
	switch {
	case len(args) > 0 && (args[0] == "run" || args[0] == "list"):
		return append([]string{args[0], "--runner", name + "=" + quoted}, args[1:]...)
	case len(args) == 2 && args[0] == "runner" && args[1] == "check":
		return []string{"runner", "check", quoted}
	}
	return args
}
