package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/cutroom/cutroom/storage"
)

// janitor sweeps expired records, and the files no record serves (files, when set), every
// interval until its context ends; Wake sweeps now.
type janitor struct {
	db       *storage.DB
	interval time.Duration
	log      *slog.Logger
	wake     chan struct{}
	files    func(context.Context)
}

func newJanitor(db *storage.DB, interval time.Duration, log *slog.Logger) *janitor {
	return &janitor{db: db, interval: interval, log: log, wake: make(chan struct{}, 1)}
}

// Wake asks for a sweep now; it does not block.
func (j *janitor) Wake() {
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// Run sweeps until ctx ends and returns nil then.
func (j *janitor) Run(ctx context.Context) error {
	t := time.NewTicker(j.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-j.wake:
		}
		j.sweep()
		if j.files != nil {
			j.files(ctx)
		}
	}
}

// sweep deletes expired idempotency records.
func (j *janitor) sweep() {
	if n, err := j.db.SweepIdempotency(); err != nil {
		j.log.Warn("sweep idempotency records", "err", err)
	} else if n > 0 {
		j.log.Debug("swept idempotency records", "n", n)
	}
}
