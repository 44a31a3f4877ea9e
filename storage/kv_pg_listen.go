package storage

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgChannel is the notification channel of commits.
const pgChannel = "cutroom_commit"

// listen holds a connection of its own (outside the pool, so that a busy pool never delays
// it) that LISTENs on pgChannel, and calls signal for each notification. When the
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

// listenOnce connects, listens and signals until the connection fails or ctx ends; it
// reports whether it got as far as listening.
func (e *pgEngine) listenOnce(ctx context.Context, signal func()) bool {
	cfg := e.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = "cutroom-listen"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+pgChannel); err != nil {
		return false
	}
	signal() // anything committed before LISTEN took effect was not announced to it
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return true
		}
		signal()
	}
}
