package export_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cutroom/cutroom/export"
	"github.com/cutroom/cutroom/storage"
)

// queueReads counts a store's reads of the queue.
type queueReads struct {
	export.Store
	n atomic.Int64
}

func (q *queueReads) PendingExports(limit int) ([]string, error) {
	q.n.Add(1)
	return q.Store.PendingExports(limit)
}

// A storm of other nodes' commits (their render progress) reads this node's queue and
// leases at most once per 200 ms, not at every commit.
func TestCommitStormReadsTheQueueBounded(t *testing.T) {
	onSharedEngines(t, testCommitStormReadsTheQueueBounded)
}

func testCommitStormReadsTheQueueBounded(t *testing.T, ns *nodes) {
	store := &queueReads{Store: ns.open()}
	open := ns.open
	ns.open = func() export.Store { return store }
	ns.start(t, "node-b", 1, newCounted(0), time.Hour, func(c *export.Config) {
		c.PollInterval, c.JanitorInterval = time.Hour, time.Hour
	})
	ns.open = open
	time.Sleep(300 * time.Millisecond)
	before, start := store.n.Load(), time.Now()
	for i := 0; time.Since(start) < 2*time.Second; i++ {
		if _, err := ns.db.CreateWorkspace(storage.WorkspaceInput{Name: fmt.Sprintf("storm-%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	got, most := store.n.Load()-before, int64(elapsed/(200*time.Millisecond))+2
	t.Logf("%d queue reads in %v of commits", got, elapsed.Round(time.Millisecond))
	if got > most {
		t.Fatalf("%d queue reads in %v of commits, want at most %d", got, elapsed, most)
	}
}
