package results

// The operations a case measures, with one meaning in Go and in every
// runner (docs/method.md, "Operations"). A table, headline, frontier or
// recommendation ranks cases of one operation only.
const (
	// OpEncode is values → bytes in memory: the library's natural objects
	// serialized into a buffer.
	OpEncode = "encode"
	// OpDecode is bytes in memory → every value visited in the library's
	// natural form, the visit inside the timed region.
	OpDecode = "decode"
	// OpOpen is bytes → a lazy or zero-copy view (an Arrow table over the
	// input buffer, an archived root): no value visited. It is shown
	// beside the decodes, never ranked with them.
	OpOpen = "open"
	// OpWrite is values → a real file on disk, through the file system.
	OpWrite = "write"
	// OpRead is a real file → every value visited, through the file
	// system (the page cache).
	OpRead = "read"
)

// OpInterop is the op of an interop matrix cell: a check (did the reader
// read the writer's file to the dataset's digest?) whose one sample is a
// cold read by the reader's clock, not a measurement: it is never ranked
// nor compared as a time.
const OpInterop = "interop"

// OpLabel is the label key that names a case's operation.
const OpLabel = "op"

// Visits reports whether op visits every value it produces: true for
// decode and read, false for open (and for ops that produce no values).
func Visits(op string) bool { return op == OpDecode || op == OpRead }

// OpMeaning is op's meaning in a sentence, "" for an op outside the
// shared vocabulary (a floor such as read-bytes, a workload's own op).
func OpMeaning(op string) string {
	switch op {
	case OpEncode:
		return "values → bytes in memory"
	case OpDecode:
		return "bytes in memory → every value visited in the library's natural form, the visit timed"
	case OpOpen:
		return "bytes → a lazy or zero-copy view, no value visited"
	case OpWrite:
		return "values → a real file"
	case OpRead:
		return "a real file → every value visited"
	}
	return ""
}
