package storage

import (
	"context"
	"sync"
)

// Subscribe returns a channel that receives a value after writes to the database commit:
// this process's (on either engine) and, on PostgreSQL, any other process's sharing the
// database. It coalesces: the channel holds at most one signal, so a slow reader sees one
// for many writes, and a signal says only that something may have changed (it comes after
// every write transaction, and after the PostgreSQL listener reconnects, when it may have
// missed some): the reader reads what it watches again. The channel is closed when ctx
// ends. On PostgreSQL, every write transaction also notifies the channel cutroom_commit,
// delivered when it commits, and one connection per DB LISTENs, reconnecting when its
// connection drops (kv_pg_listen.go), from the first Subscribe until Close. A notification
// carries its DB's id, and that DB's listener skips it: a commit of this DB signals once
// (two signals, the local one and its notification's a few ms later, woke a reader that
// had taken the first twice).
//
// Subscribe on an open DB: Close stops the listener (the channels still close with their
// contexts).
func (db *DB) Subscribe(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	h := db.hub
	h.mu.Lock()
	if ctx.Err() != nil {
		h.mu.Unlock()
		close(ch)
		return ch
	}
	h.subs[ch] = struct{}{}
	if l, ok := db.kv.(listener); ok && !h.listening {
		h.listening = true
		lctx, cancel := context.WithCancel(context.Background())
		h.stop = cancel
		h.done = make(chan struct{})
		go func() {
			defer close(h.done)
			l.listen(lctx, h.signal)
		}()
	}
	h.mu.Unlock()
	go func() {
		<-ctx.Done()
		h.mu.Lock()
		delete(h.subs, ch)
		close(ch)
		h.mu.Unlock()
	}()
	return ch
}

// listener is an engine that hears other processes' commits.
type listener interface {
	// listen calls signal after each commit another process announces, and after a
	// reconnection, until ctx ends.
	listen(ctx context.Context, signal func())
}

// hub holds the channels of Subscribe.
type hub struct {
	mu        sync.Mutex
	subs      map[chan struct{}]struct{}
	listening bool
	stop      context.CancelFunc // ends the listener
	done      chan struct{}      // closed when the listener has returned
}

func newHub() *hub { return &hub{subs: make(map[chan struct{}]struct{})} }

// signal wakes every subscriber that has no signal waiting.
func (h *hub) signal() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// close stops the listener, if one runs, and waits for it.
func (h *hub) close() {
	h.mu.Lock()
	stop, done := h.stop, h.done
	h.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}
