// Package runner is serbench's side of the runner protocol
// (docs/runner-protocol.md, version 1): it measures subjects in another
// runtime — the JVM, CPython, Rust — by writing a work directory (the
// dataset as an Arrow IPC stream, the cases), starting the runner process
// and reading the JSON lines it streams back. Every case the runner
// decoded is checked against the Go side's digest of the same rows
// (package digest); a case that differs, fails, or is lost to a crash, a
// hang or a garbled line is recorded FAILED with the reason, never
// dropped. Group implements bench.Remote, so a runner's comparison group
// is measured, recorded and reported like any Go group.
package runner

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/serbench/serbench/digest"
)

// Protocol is the protocol version this package speaks.
const Protocol = 1

// Settings are the run-wide settings written to run.json.
type Settings struct {
	Protocol    int    `json:"protocol"`
	RunID       string `json:"run_id"`
	BenchtimeNs int64  `json:"benchtime_ns"`
	MaxIters    int64  `json:"max_iters"`
	Count       int    `json:"count"`
	Seed        int64  `json:"seed"`
}

// Case is one line of cases.jsonl: what the runner measures.
type Case struct {
	ID       string            `json:"id"`
	Group    string            `json:"group"`
	Subject  string            `json:"subject"`
	Role     string            `json:"role"`
	Op       string            `json:"op"`
	Dataset  string            `json:"dataset"`
	Size     int               `json:"size"`
	Codec    string            `json:"codec"`
	Query    string            `json:"query"`
	Count    int               `json:"count"`
	MinCount int               `json:"min_count"`
	BudgetNs int64             `json:"budget_ns"`
	PerRound int               `json:"per_round"`
	NoWarmup bool              `json:"no_warmup"`
	LimitOf  string            `json:"limit_of"`
	Params   map[string]string `json:"params"`
	// Path is the file of an export or import case (§10 of the
	// protocol), under WORK/tmp/; empty and omitted for every other op.
	Path string `json:"path,omitempty"`
}

// The ops of protocol 1.
const (
	OpEncode = "encode"
	OpDecode = "decode"
	OpQuery  = "query"
	OpCopy   = "copy"
)

// The optional file ops (§10 of the protocol, still version 1): a runner
// that does not know them answers a setup error for the case.
const (
	// OpExport writes the dataset to Case.Path as the subject's format
	// defines its file, then verifies by reading it back.
	OpExport = "export"
	// OpImport reads the file at Case.Path (written by another language)
	// and reports the digest of what it decoded.
	OpImport = "import"
)

// Hello is the runner's first line: what it is and what it measures.
type Hello struct {
	Type           string   `json:"type"`
	Protocol       int      `json:"protocol"`
	Runner         string   `json:"runner"`
	Language       string   `json:"language"`
	Runtime        string   `json:"runtime"`
	RuntimeVersion string   `json:"runtime_version"`
	VMFlags        []string `json:"vm_flags"`
	OS             string   `json:"os"`
	Arch           string   `json:"arch"`
	Alloc          string   `json:"alloc"`
	// Inputs are the forms of a dataset the runner reads besides
	// data.arrows and schema.json: "jsonl" asks for data.jsonl (§1).
	Inputs   []string  `json:"inputs,omitempty"`
	Subjects []Subject `json:"subjects"`
}

// WantsJSONL reports whether the runner reads data.jsonl.
func (h *Hello) WantsJSONL() bool { return h != nil && slices.Contains(h.Inputs, InputJSONL) }

// InputJSONL is the Hello.Inputs word that asks for data.jsonl.
const InputJSONL = "jsonl"

// Subject is one subject a runner announces.
type Subject struct {
	Name         string            `json:"name"`
	Format       string            `json:"format"`
	Library      string            `json:"library"`
	Version      string            `json:"version"`
	Ops          []string          `json:"ops"`
	Codecs       []string          `json:"codecs"`
	CodecLibrary string            `json:"codec_library"`
	Labels       map[string]string `json:"labels"`
	// User is set for the subjects of a user's runner (Source.User):
	// a workload measures them whatever formats its scale picks.
	User bool `json:"-"`
}

// Subject returns the announced subject called name, or nil.
func (h *Hello) Subject(name string) *Subject {
	for i := range h.Subjects {
		if h.Subjects[i].Name == name {
			return &h.Subjects[i]
		}
	}
	return nil
}

// line is any line of the runner's output; Type says which fields count.
type line struct {
	Type string `json:"type"`
	// verify, sample, error
	Case string `json:"case"`
	// verify
	OK           *bool          `json:"ok"`
	Reason       string         `json:"reason"`
	EncodedBytes int64          `json:"encoded_bytes"`
	Digest       *digest.Result `json:"digest"`
	// ElapsedNs is how long an export or import took (optional, §10).
	ElapsedNs int64 `json:"elapsed_ns"`
	// sample
	Round           int                `json:"round"`
	Order           int                `json:"order"`
	Iters           int64              `json:"iters"`
	NsPerOp         float64            `json:"ns_per_op"`
	BytesPerOp      float64            `json:"bytes_per_op"`
	AllocBytesPerOp *float64           `json:"alloc_bytes_per_op"`
	AllocsPerOp     *float64           `json:"allocs_per_op"`
	Metrics         map[string]float64 `json:"metrics"`
	// error
	Phase   string `json:"phase"`
	Message string `json:"message"`
	// CannotHold marks an error line of a subject whose format cannot
	// represent the dataset (§3.4): the case is "cannot hold", not FAILED.
	CannotHold bool `json:"cannot_hold"`
	// end
	Cases  int `json:"cases"`
	Failed int `json:"failed"`
}

// maxLine bounds one output line: a runner that writes more in one line
// is broken, and reading on would only hold memory.
const maxLine = 4 << 20

// parseLine decodes one output line and checks its shape.
func parseLine(b []byte) (*line, error) {
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("not a protocol line (%v): %.120q", err, b)
	}
	switch l.Type {
	case "hello", "end":
	case "verify":
		if l.Case == "" || l.OK == nil {
			return nil, fmt.Errorf("verify line without case or ok: %.120q", b)
		}
	case "sample":
		if l.Case == "" || l.Iters <= 0 || !(l.NsPerOp > 0) || l.NsPerOp > 1e15 || l.BytesPerOp < 0 {
			return nil, fmt.Errorf("sample line with impossible values (case, iters > 0, 0 < ns_per_op ≤ 1e15 and bytes_per_op ≥ 0 are required): %.120q", b)
		}
	case "error":
		if l.Message == "" {
			return nil, fmt.Errorf("error line without message: %.120q", b)
		}
	default:
		return nil, fmt.Errorf("unknown line type %q (want hello, verify, sample, error or end)", l.Type)
	}
	return &l, nil
}
