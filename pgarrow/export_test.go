package pgarrow

// SetMaxBatchData lowers the per-column byte limit of a batch (Arrow's
// 32-bit offsets, 2 GiB by default) so that tests can reach it cheaply.
func SetMaxBatchData(c *Conn, n int64) { c.maxBatchData = n }

// SetAfterDescribe makes f run in every Query between describing the
// statement and executing it.
func SetAfterDescribe(c *Conn, f func()) { c.afterDescribe = f }
