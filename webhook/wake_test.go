package webhook_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/cutroom/cutroom/webhook"
)

// longPoll makes a deliverer read the outbox unwoken only once a minute: what these tests
// see within seconds came by the commit signal.
func longPoll(c *webhook.Config) { c.Poll = time.Minute }

// idle is long enough for a deliverer just started to have read the outbox and begun to wait.
const idle = 300 * time.Millisecond

// A delivery another node enqueues (a task that completed there) is sent by a deliverer
// that waits for its poll, at the enqueue's commit.
func TestWakesOnAnotherNodesEnqueue(t *testing.T) { onSharedEngines(t, testWakesOnAnotherNodesEnqueue) }

func testWakesOnAnotherNodesEnqueue(t *testing.T, o *outbox, open func() webhook.Store) {
	ep := &endpoint{}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	startNode(t, open(), "node-b", longPoll)
	for i := range 3 {
		time.Sleep(idle)
		o.enqueue(t, srv.URL, "EXPORT_COMPLETED") // through o's handle: node-b is not notified
		waitFor(t, 10*time.Second, func() bool { return len(ep.snapshot()) == i+1 })
	}
	waitFor(t, 5*time.Second, func() bool { p, _ := o.db.PendingWebhooks(); return len(p) == 0 })
}

// A node that dies during an attempt holds the entry until its claim expires; a deliverer
// on another node, idle since before the entry was enqueued, makes the next attempt when
// the claim expires, not at its next poll.
func TestWakesForAnAbandonedClaim(t *testing.T) { onSharedEngines(t, testWakesForAnAbandonedClaim) }

func testWakesForAnAbandonedClaim(t *testing.T, o *outbox, open func() webhook.Store) {
	ep, srv := hangFirst(t)
	edit := func(c *webhook.Config) { longPoll(c); c.Timeout, c.ClaimGrace = 2*time.Second, 300*time.Millisecond }
	nodes := map[string]*deliverer{"node-a": startNode(t, open(), "node-a", edit), "node-b": startNode(t, open(), "node-b", edit)}
	time.Sleep(idle)
	o.enqueue(t, srv.URL, "EXPORT_STARTED")
	nodes["node-a"].d.Notify() // node-a enqueued it; node-b hears of it by the commit signal alone
	waitFor(t, 10*time.Second, func() bool { return len(ep.snapshot()) == 1 })
	pending, _ := o.db.PendingWebhooks()
	if len(pending) != 1 || nodes[pending[0].ClaimNode] == nil || pending[0].ClaimExpiresAt == nil {
		t.Fatalf("during the attempt: %+v", pending)
	}
	holder, expires := nodes[pending[0].ClaimNode], *pending[0].ClaimExpiresAt
	webhook.CrashOnStop(holder.d)
	holder.stop()
	<-holder.done
	waitFor(t, 15*time.Second, func() bool { return len(ep.snapshot()) == 2 })
	if at := ep.snapshot()[1].at; at.Before(expires) || at.Sub(expires) > 10*time.Second {
		t.Fatalf("the next attempt came %v after the claim expired, want soon after", at.Sub(expires))
	}
}

// sharedStore is a store over a database other nodes share, as open returns it.
type sharedStore interface {
	webhook.Store
	Shared() bool
	Subscribe(ctx context.Context) <-chan struct{}
}

// reads counts a shared store's outbox reads.
type reads struct {
	sharedStore
	n atomic.Int64
}

func (r *reads) PendingWebhooks() ([]model.WebhookDelivery, error) {
	r.n.Add(1)
	return r.sharedStore.PendingWebhooks()
}

// A storm of other nodes' commits (render progress) reads the outbox at most once per
// wake.CommitGap (200 ms), not once per commit.
func TestCommitStormReadsTheOutboxBounded(t *testing.T) {
	onSharedEngines(t, testCommitStormReadsTheOutboxBounded)
}

func testCommitStormReadsTheOutboxBounded(t *testing.T, o *outbox, open func() webhook.Store) {
	store := &reads{sharedStore: open().(sharedStore)}
	startNode(t, store, "node-b", longPoll)
	time.Sleep(idle)
	before, start := store.n.Load(), time.Now()
	for i := 0; time.Since(start) < 2*time.Second; i++ {
		if _, err := o.db.CreateWorkspace(storage.WorkspaceInput{Name: fmt.Sprintf("storm-%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	got, most := store.n.Load()-before, int64(elapsed/(200*time.Millisecond))+2
	t.Logf("%d outbox reads in %v of commits", got, elapsed.Round(time.Millisecond))
	if got > most {
		t.Fatalf("%d outbox reads in %v of commits, want at most %d", got, elapsed, most)
	}
}
