package storage

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgChannel is the notification channel of commits.
const pgChannel = "cutroom_commit"

// listen holds a connection of its own (outside the pool, so that a busy pool never delays
// it) that LISTENs on pgChannel, and calls signal for each notification of another
// engine's commit (this engine's carry its id, and DB.update signalled them). When the
// connection fails it signals (notifications may have been missed meanwhile), waits a
// second or so and connects again, until ctx ends.
func (e *pgEngine) listen(ctx context.Context, signal func()) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		if e.listenOnce(ctx, signal) {
			backoff = 100 * time.Millisecond
		}
		signal()
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// listenWait bounds one wait for a notification: past it the connection is pinged, so a
// server that stopped answering without closing the connection (a failover, a dropped NAT
// entry) is noticed within listenWait plus a ping, not when the system's TCP gives up.
var listenWait = 30 * time.Second

// listenOnce connects, listens and signals until the connection fails or ctx ends; it
// reports whether it got as far as listening. Connecting, LISTEN and each ping are bounded
// by the statement timeout.
func (e *pgEngine) listenOnce(ctx context.Context, signal func()) bool {
	cfg := e.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = "cutroom-listen"
	bounded := func(fn func(ctx context.Context) error) error {
		c, cancel := context.WithTimeout(ctx, e.opts.StatementTimeout)
		defer cancel()
		return fn(c)
	}
	var conn *pgx.Conn
	if err := bounded(func(c context.Context) (err error) { conn, err = pgx.ConnectConfig(c, cfg); return err }); err != nil {
		return false
	}
	defer func() { _ = bounded(conn.Close) }()
	if err := bounded(func(c context.Context) error { _, err := conn.Exec(c, "LISTEN "+pgChannel); return err }); err != nil {
		return false
	}
	signal() // anything committed before LISTEN took effect was not announced to it
	for {
		wctx, cancel := context.WithTimeout(ctx, listenWait)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			if n.Payload != e.id {
				signal()
			}
		case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed():
			if bounded(conn.Ping) != nil {
				return true
			}
		default:
			return true
		}
	}
}
