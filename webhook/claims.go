package webhook

import (
	"context"
	"log/slog"
	"time"

	"github.com/cutroom/cutroom/internal/wake"
	"github.com/cutroom/cutroom/model"
)

// DefaultClaimGrace is how long a claim outlasts its attempt's timeout (Config.ClaimGrace).
const DefaultClaimGrace = 30 * time.Second

// sharer is implemented by stores that other processes use at the same time (storage.DB on
// PostgreSQL); a store without it is this process's alone.
type sharer interface{ Shared() bool }

func shared(s Store) bool {
	sh, ok := s.(sharer)
	return ok && sh.Shared()
}

// commits is the store's commit signal on a shared store (wake.Commits): another node's
// commit may have enqueued a delivery (a task that ended there), recorded an attempt with
// its next time, or claimed an entry whose claim this node then waits out, none of which
// Notify tells this node. nil (never ready) on a store of this process's alone, where every
// enqueue comes with a Notify. This node's own commits wake it too, once each (storage
// signals a commit once to the node that made it).
func (d *Deliverer) commits(ctx context.Context) <-chan struct{} {
	src, ok := d.store.(wake.Source)
	if !ok {
		return nil
	}
	return wake.Commits(ctx, src)
}

// claimedElsewhere returns how long another node's live claim still holds p (0 when none
// does): that node is making the attempt.
func (d *Deliverer) claimedElsewhere(p model.WebhookDelivery, now time.Time) time.Duration {
	if p.ClaimNode == "" || p.ClaimNode == d.cfg.NodeID || p.ClaimExpiresAt == nil {
		return 0
	}
	return max(0, p.ClaimExpiresAt.Sub(now))
}

// claim claims p for one attempt (until its Timeout and ClaimGrace have passed) and returns
// the entry as claimed; ok is false when there is nothing to attempt: the entry was
// delivered, rescheduled or claimed by another node since it was read, or it went to the
// dead letters now because an abandoned attempt was its last.
func (d *Deliverer) claim(p model.WebhookDelivery) (model.WebhookDelivery, bool) {
	c, abandoned, err := d.store.ClaimWebhook(p.Seq, d.cfg.NodeID, d.cfg.Now(), d.cfg.Timeout+d.cfg.ClaimGrace)
	if err != nil {
		d.log.Error("webhook: claim an outbox entry", "event", p.EventID, "err", err)
		return p, false
	}
	if c == nil {
		return p, false
	}
	if abandoned == "" {
		return *c, true
	}
	dead := c.Attempts > len(d.cfg.Schedule)
	d.cfg.Metrics.WebhookClaimExpired()
	level := slog.LevelWarn
	if dead {
		level = slog.LevelError
		c.GaveUp = true
		d.cfg.Metrics.WebhookAttempt(OutcomeGaveUp, c.Attempts)
	}
	d.log.Log(context.Background(), level, "webhook attempt abandoned: its node stopped during it; counted", "event", c.EventID,
		"task", c.TaskID, "node", abandoned, "by", d.cfg.NodeID, "attempt", c.Attempts, "gaveUp", dead)
	if !dead {
		return *c, true
	}
	if err := d.store.WebhookFailed(*c, true); err != nil {
		d.log.Error("record webhook failure", "event", c.EventID, "err", err)
	}
	return *c, false
}

// release drops this node's claim on p: an attempt a shutdown aborted, which does not count
// and which another node may make at once. A test's crash (crashOnStop) keeps the claim.
func (d *Deliverer) release(p model.WebhookDelivery) {
	if d.crashOnStop.Load() {
		return
	}
	if err := d.store.ReleaseWebhook(p.Seq, d.cfg.NodeID); err != nil {
		d.log.Warn("webhook: release an aborted attempt's claim", "event", p.EventID, "err", err)
	}
}
