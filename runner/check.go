package runner

import (
	"context"
	"path/filepath"
	"strconv"
	"time"

	"github.com/serbench/serbench/digest"
)

// Checked is what a runner reported about one case it only verifies (the
// export and import ops of §10 of the protocol): its verify line, or the
// error line or failure that took its place.
type Checked struct {
	// OK is the verify line's ok; Reason says why not.
	OK     bool
	Reason string
	// CannotHold is set when the runner's error line said cannot_hold:
	// the format cannot represent the data (a limit, not a fault).
	CannotHold bool
	// EncodedBytes, Digest and Elapsed are the verify line's
	// encoded_bytes, digest and elapsed_ns.
	EncodedBytes int64
	Digest       *digest.Result
	Elapsed      time.Duration
}

// Check runs the runner once on cases that take no samples, in work (a
// directory whose datasets/ and tmp/ the caller prepared), and returns
// each case's outcome by id. A case the runner said nothing about (it
// crashed, hung past Silence, spoke another protocol or garbled a line)
// gets OK false and the reason, as a measured case would. The error is
// for a work directory that cannot be written or a runner that cannot be
// started.
func (r *Runner) Check(ctx context.Context, work string, cases []Case) (map[string]Checked, error) {
	abs, err := filepath.Abs(work)
	if err != nil {
		return nil, err
	}
	settings := Settings{Protocol: Protocol, RunID: filepath.Base(abs), BenchtimeNs: int64(time.Millisecond), MaxIters: 1, Count: 1, Seed: 1}
	if err := writeWork(abs, settings, cases); err != nil {
		return nil, err
	}
	inv, err := r.invoke(ctx, abs, []string{"run", "--protocol", strconv.Itoa(Protocol), "--work", abs}, nil)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Checked, len(cases))
	for _, c := range cases {
		switch v := inv.verify[c.ID]; {
		case v != nil && v.OK != nil:
			out[c.ID] = Checked{OK: *v.OK, Reason: v.Reason, EncodedBytes: v.EncodedBytes, Digest: v.Digest, Elapsed: time.Duration(v.ElapsedNs)}
		case inv.errs[c.ID] != "":
			out[c.ID] = Checked{Reason: inv.errs[c.ID], CannotHold: inv.hold[c.ID]}
		default:
			out[c.ID] = Checked{Reason: inv.failure()}
		}
	}
	return out, nil
}
