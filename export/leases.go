package export

import (
	"context"
	"fmt"
	"time"

	"github.com/cutroom/cutroom/internal/wake"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
)

// DefaultLeaseTTL is how long a task's lease lasts without a renewal (Config.LeaseTTL).
const DefaultLeaseTTL = 30 * time.Second

// Causes a render is stopped with besides a cancel and a pause. Both are pauses to a
// renderer (Paused reports true): the work it keeps outside the process (package cluster's
// segments) is the resumed render's, on whichever node.
var (
	// errLeaseLost: another node took the task (this node's lease expired); the record is
	// the other node's now and is not touched.
	errLeaseLost = fmt.Errorf("export lease lost to another node: %w", errPaused)
	// errCrashed: a test's crash (crashOnStop) stops the render and records nothing, as a
	// process that died would.
	errCrashed = fmt.Errorf("crashed: %w", errPaused)
)

// shared reports whether other processes use the store too.
func (s *Service) shared() bool { return s.store.Shared() }

// changes is the store's commit signal on a shared store, where other nodes' commits can
// end this node's leases, paced (wake.Commits); nil (never ready) on a store of its own,
// where every commit is this node's.
func (s *Service) changes(ctx context.Context) <-chan struct{} { return wake.Commits(ctx, s.store) }

// NodeID returns the node id this service's leases carry (Config.NodeID).
func (s *Service) NodeID() string { return s.cfg.NodeID }

// LeasesHeld returns how many tasks this node holds the lease of (renders running here).
func (s *Service) LeasesHeld() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.leases)
}

// claimLease gives t (being claimed, PENDING -> PROCESSING) this node's lease.
func (s *Service) claimLease(t *model.ExportTask, now time.Time) {
	exp := now.Add(s.cfg.LeaseTTL)
	t.LeaseNode, t.LeaseExpiresAt = s.cfg.NodeID, &exp
}

// mine reports whether t is PROCESSING under this node's lease: only then may this node
// record its progress and outcome.
func (s *Service) mine(t *model.ExportTask) bool {
	return t.Status == model.StatusProcessing && t.LeaseNode == s.cfg.NodeID
}

// leased returns the ids of the tasks whose lease this node holds.
func (s *Service) leased() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.leases))
	for id := range s.leases {
		ids = append(ids, id)
	}
	return ids
}

// renewLeases is the heartbeat: it extends every lease this node holds in one write, and
// stops the renders of the tasks whose lease it lost.
func (s *Service) renewLeases() {
	ids := s.leased()
	if len(ids) == 0 {
		return
	}
	lost, err := s.store.RenewLeases(s.cfg.NodeID, ids, s.now().Add(s.cfg.LeaseTTL))
	if err != nil {
		s.log.Error("export: renew leases", "tasks", len(ids), "err", err)
		return
	}
	for _, l := range lost {
		s.lose(l)
	}
}

// checkLeases reads the tasks this node holds the lease of (in one read, however many) and
// stops the renders of those it lost (canceled, or taken by another node): what another
// node changed reaches a render at the commit's signal rather than at the next heartbeat.
func (s *Service) checkLeases() {
	ids := s.leased()
	if len(ids) == 0 {
		return
	}
	tasks, err := s.store.ExportTasksByID(ids)
	if err != nil {
		s.log.Warn("export: check leases", "tasks", len(ids), "err", err)
		return
	}
	for _, id := range ids {
		t, ok := tasks[id]
		switch {
		case !ok:
			s.lose(storage.LostLease{ID: id, Ended: true})
		case !s.mine(&t):
			s.lose(storage.LostLease{ID: id, Ended: !t.Active(), Holder: t.LeaseNode})
		}
	}
}

// lose stops the render of a task whose lease this node lost, once, without touching the
// task's record: canceled when the task ended elsewhere (canceled or gone), else as a
// lease lost (another node renders it now).
func (s *Service) lose(l storage.LostLease) {
	s.mu.Lock()
	_, held := s.leases[l.ID]
	delete(s.leases, l.ID)
	s.mu.Unlock()
	if !held {
		return
	}
	if l.Ended {
		s.log.Info("export ended elsewhere: its render here stops", "task", l.ID)
		s.abort(l.ID, errCanceled)
		return
	}
	s.mu.Lock()
	now := time.Now()
	for id, at := range s.lostAt { // forget older losses: the map holds one LeaseTTL's
		if now.Sub(at) >= s.cfg.LeaseTTL {
			delete(s.lostAt, id)
		}
	}
	s.lostAt[l.ID] = now
	s.mu.Unlock()
	s.cfg.Metrics.LeaseLost()
	s.log.Warn("export lease lost: another node took the task; its render here stops", "task", l.ID,
		"node", s.cfg.NodeID, "holder", l.Holder)
	s.abort(l.ID, errLeaseLost)
}

// requeueAtStart puts back the tasks no live node renders before the scheduler's first
// look at the queue. On a store of this process's alone every PROCESSING task is one a
// crash of this process interrupted and every PAUSED one its own; on a shared store only
// those whose lease expired (or is this node id's, from before a restart) are.
func (s *Service) requeueAtStart() error {
	if !s.shared() {
		return s.requeueExpired(func(*model.ExportTask) bool { return true })
	}
	now := s.now()
	return s.requeueExpired(func(t *model.ExportTask) bool {
		return t.Status == model.StatusPaused || t.LeaseNode == s.cfg.NodeID || leaseExpired(t, now)
	})
}

// requeuePoll puts back, at each poll, the tasks whose lease expired (their node stopped)
// and the PAUSED ones (anyone's to resume), leaving alone every task rendering here.
func (s *Service) requeuePoll() {
	now := s.now()
	if err := s.requeueExpired(func(t *model.ExportTask) bool {
		return t.Status == model.StatusPaused || (!s.isRunning(t.ID) && leaseExpired(t, now))
	}); err != nil {
		s.log.Error("export: requeue tasks whose lease expired", "err", err)
	}
}

// requeueExpired recovers the PROCESSING and PAUSED tasks pick chooses, read in one
// transaction; recover checks pick again on each task's fresh copy.
func (s *Service) requeueExpired(pick func(t *model.ExportTask) bool) error {
	tasks, err := s.store.ActiveExportTasks()
	if err != nil {
		return fmt.Errorf("export: list active tasks: %w", err)
	}
	var ids []string
	for i := range tasks {
		if t := &tasks[i]; (t.Status == model.StatusProcessing || t.Status == model.StatusPaused) && pick(t) {
			ids = append(ids, t.ID)
		}
	}
	return s.recover(ids, pick)
}

// leaseExpired reports whether a PROCESSING task's lease ended before now (a task claimed
// without a lease, by a release before leases, counts as expired).
func leaseExpired(t *model.ExportTask, now time.Time) bool {
	return t.Status == model.StatusProcessing && (t.LeaseExpiresAt == nil || t.LeaseExpiresAt.Before(now))
}

// backingOff reports whether this node lost id's lease less than a LeaseTTL ago: a node
// that stalled past its lease (a pause, a partition, a slow clock) does not claim the task
// straight back from the node that took it over, which would count a crash on each round
// trip until the task failed. Losses older than that are forgotten here and at each loss
// (lose), so lostAt holds no more than one LeaseTTL's losses.
func (s *Service) backingOff(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.lostAt[id]
	if ok && time.Since(at) >= s.cfg.LeaseTTL {
		delete(s.lostAt, id)
		return false
	}
	return ok
}

func (s *Service) isRunning(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.running[id]
	return ok
}

// tookOver logs and counts a task this node requeued from another node's expired lease.
func (s *Service) tookOver(id, from string) {
	if from == "" || from == s.cfg.NodeID {
		return
	}
	s.cfg.Metrics.LeaseTakenOver()
	s.log.Warn("export lease expired: its node stopped; the task is taken over", "task", id, "node", from, "by", s.cfg.NodeID)
}

// release is the change that stops this node's render of a task to resume later: on a
// shared store the task goes back to PENDING at once (any node takes it), else it is
// recorded PAUSED (this process resumes it at its next start). The lease is dropped either
// way; a task that is not PROCESSING under this node's lease stays as it is.
func (s *Service) release(t *model.ExportTask) ([]model.WebhookDelivery, error) {
	if !s.mine(t) {
		return nil, storage.ErrNoChange
	}
	t.Status, t.Phase, t.LeaseNode, t.LeaseExpiresAt = model.StatusPaused, "", "", nil
	if s.shared() {
		t.Status, t.Progress = model.StatusPending, 0
	}
	return nil, nil
}
