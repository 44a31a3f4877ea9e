package export

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cutroom/cutroom/model"
)

// DefaultEventBuffer is how many task changes the event log keeps for replay
// (Config.EventBuffer).
const DefaultEventBuffer = 4096

// DefaultEventPoll is the longest time between two reads of the database's task change log
// (Config.EventPoll): a fallback, as every commit of any node wakes the reader.
const DefaultEventPoll = 5 * time.Second

// Event is one change of a task: the task as the API showed it right after the change.
type Event struct {
	// Seq is the change's sequence in the database's task change log (storage.TaskChange),
	// the same on every node over the database: each task's changes in commit order.
	Seq         uint64
	WorkspaceID string
	Task        TaskView
}

// EventLog keeps the last task changes in a bounded ring, in commit order, for live
// streams (GET /v1/exports/events). It follows the database's task change log (tail.go), so
// a node's log holds the changes every node made. Readers never block writers: a reader
// asks for the changes after the last one it saw (Since) and waits on the returned channel
// for more; a reader that fell further behind than the ring holds is told so (lapped) and
// resyncs from the tasks' current state. Ids are "<epoch>-<seq>" with the database's epoch
// (storage.TaskChangesEpoch), so an id one node gave resumes on any other, and an id of
// another database is recognised.
type EventLog struct {
	epoch string
	mu    sync.Mutex
	ring  []Event
	seq   uint64        // last Seq published
	base  uint64        // a reader after an earlier Seq missed changes the ring never held
	wake  chan struct{} // closed at the next publish
}

func newEventLog(epoch string, size int) *EventLog {
	return &EventLog{epoch: epoch, ring: make([]Event, size), wake: make(chan struct{})}
}

// publish adds changes of Seqs above the last one's, in order.
func (l *EventLog) publish(evs ...Event) {
	if len(evs) == 0 {
		return
	}
	l.mu.Lock()
	for _, e := range evs {
		l.ring[e.Seq%uint64(len(l.ring))] = e
		l.seq = e.Seq
	}
	close(l.wake)
	l.wake = make(chan struct{})
	l.mu.Unlock()
}

// skip moves the log on to Seq seq without the changes up to it (trimmed from the
// database's log before this node read them): a reader after an earlier Seq is lapped.
func (l *EventLog) skip(seq uint64) {
	l.mu.Lock()
	if seq > l.seq {
		l.seq, l.base = seq, seq
	}
	l.mu.Unlock()
}

// Last returns the Seq of the last change published (0 before any).
func (l *EventLog) Last() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// Since returns the changes of workspace ws after seq after, the Seq they run to (the
// reader's next after), and a channel closed at the next change. lapped reports that
// changes after after are no longer held (the reader must resync).
func (l *EventLog) Since(ws string, after uint64) (evs []Event, last uint64, lapped bool, wake <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := uint64(len(l.ring))
	if after > l.seq || after < l.base || (l.seq > n && after < l.seq-n) {
		return nil, l.seq, true, l.wake
	}
	for s := after + 1; s <= l.seq; s++ {
		// A slot holds an older Seq where no change of this one was published.
		if e := l.ring[s%n]; e.Seq == s && e.WorkspaceID == ws {
			evs = append(evs, e)
		}
	}
	return evs, l.seq, false, l.wake
}

// ID returns the stream id of seq.
func (l *EventLog) ID(seq uint64) string { return l.epoch + "-" + strconv.FormatUint(seq, 10) }

// ParseID returns the Seq of a stream id; ok is false for an id of another database or a
// malformed one.
func (l *EventLog) ParseID(id string) (seq uint64, ok bool) {
	ep, n, found := strings.Cut(id, "-")
	if !found || ep != l.epoch {
		return 0, false
	}
	seq, err := strconv.ParseUint(n, 10, 64)
	return seq, err == nil
}

// Events returns the service's event log.
func (s *Service) Events() *EventLog { return s.events }

// update is store.UpdateExport that publishes the change to the event log, and reports
// whether the change was made (changed is false when it returned storage.ErrNoChange).
// The commit appended the change to the database's change log; follow publishes it (and
// any other node's before it) before update returns.
func (s *Service) update(id string, change func(t *model.ExportTask) ([]model.WebhookDelivery, error)) (t model.ExportTask, changed bool, err error) {
	t, err = s.store.UpdateExport(id, func(t *model.ExportTask) ([]model.WebhookDelivery, error) {
		evs, err := change(t)
		changed = err == nil
		return evs, err
	})
	changed = changed && err == nil
	if changed {
		s.follow()
	}
	return t, changed, err
}

// recentTasks is how many of a workspace's newest tasks Recent returns besides its active
// ones.
const recentTasks = 20

// Recent returns a workspace's active tasks and its newest recentTasks tasks as the API
// shows them now, oldest first: what a stream that cannot replay sends to resync.
func (s *Service) Recent(workspaceID string) ([]TaskView, error) {
	newest, _, err := s.store.ListExports(workspaceID, recentTasks, "", "")
	if err != nil {
		return nil, storeError(err, "")
	}
	seen := map[string]bool{}
	var out []TaskView
	for i := len(newest) - 1; i >= 0; i-- {
		seen[newest[i].ID] = true
		out = append(out, s.View(&newest[i]))
	}
	active, err := s.store.WorkspaceActiveExports(workspaceID)
	if err != nil {
		return nil, err
	}
	var older []TaskView
	for _, id := range active {
		if seen[id] {
			continue
		}
		t, err := s.store.ExportTask(workspaceID, id)
		if err != nil {
			continue // ended and deleted meanwhile
		}
		older = append(older, s.View(&t))
	}
	return append(older, out...), nil
}
