package export

import (
	"context"
	"time"

	"github.com/cutroom/cutroom/internal/wake"
	"github.com/cutroom/cutroom/storage"
)

// followPage is how many changes follow reads from the change log at once.
const followPage = 1000

// follow publishes to the event log the changes of the database's task change log that it
// does not hold yet, in sequence order: this node's and every other node's. It runs after
// each of this node's task commits (so a change is published before the call that made it
// returns) and whenever followEvents is woken. A failed read is logged; the next call
// reads again from where this one stopped.
func (s *Service) follow() {
	s.followMu.Lock()
	defer s.followMu.Unlock()
	for {
		// On a shared database a change has its sequence once a node moved it into the
		// log; a move that lost its races to other nodes' leaves it to theirs or the next.
		// Only a full batch is followed by another: changes other nodes commit meanwhile
		// are theirs to move, or the next follow's, so this loop ends while they write.
		n, err := s.store.SequenceTaskChanges()
		if err != nil {
			s.log.Warn("export: sequence task changes", "err", err)
		}
		if err != nil || n < storage.MaxSequence {
			break
		}
	}
	for {
		after := s.events.Last()
		l, err := s.store.TaskChanges(after, followPage)
		if err != nil {
			s.log.Warn("export: read the task change log", "err", err)
			return
		}
		s.logOldest, s.logLast = l.Oldest, l.Last
		switch {
		case l.Oldest > after+1: // trimmed before this node read them
			s.events.skip(l.Oldest - 1)
		case l.Oldest == 0 && l.Last > after: // all trimmed
			s.events.skip(l.Last)
		}
		evs := make([]Event, len(l.Changes))
		for i := range l.Changes {
			t := &l.Changes[i].Task
			evs[i] = Event{Seq: l.Changes[i].Seq, WorkspaceID: t.WorkspaceID, Task: s.View(t)}
		}
		s.events.publish(evs...)
		if len(l.Changes) < followPage {
			return
		}
	}
}

// followEvents runs follow until ctx ends: on a shared database at each commit of any node,
// and at least every EventPoll. At each poll it also trims the change log to the newest
// EventBuffer changes once it holds a quarter more than that.
func (s *Service) followEvents(ctx context.Context) {
	poll := time.NewTicker(s.cfg.EventPoll)
	defer poll.Stop()
	// On a database of its own (bbolt) every task commit is this Service's and followed
	// as it is made: waking at every commit too would read the log again for nothing. On a
	// shared one, every node's commit (progress included) signals, paced as the other
	// readers of commits are (wake.Commits): this node's own changes are followed as they
	// are made, other nodes' within wake.CommitGap.
	commits := wake.Commits(ctx, s.store)
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-commits:
			if !ok {
				return
			}
		case <-poll.C:
			s.trimChanges()
		}
		s.follow()
	}
}

// trimChanges deletes the oldest changes of the change log beyond EventBuffer, once the log
// (as follow last read it) holds a quarter more than that.
func (s *Service) trimChanges() {
	s.followMu.Lock()
	oldest, last := s.logOldest, s.logLast
	s.followMu.Unlock()
	keep := uint64(s.cfg.EventBuffer)
	if oldest == 0 || last-oldest+1 <= keep+keep/4 {
		return
	}
	if _, err := s.store.TrimTaskChanges(last - keep); err != nil {
		s.log.Warn("export: trim the task change log", "err", err)
	}
}
