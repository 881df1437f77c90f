package runner

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// HeartbeatEvery is how often a long step that prints nothing of its own
// (a runner's build) says it is still going.
const HeartbeatEvery = 15 * time.Second

// Heartbeat writes "serbench: WHAT, 30 s so far" to log every period
// until the returned stop is called, so that a build of a minute or more
// is never silent for long. stop waits for the last line and may be called
// more than once.
func Heartbeat(log io.Writer, what string, period time.Duration) (stop func()) {
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(log, "serbench: %s, %s so far\n", what, time.Since(start).Round(time.Second))
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}
