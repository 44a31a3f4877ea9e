package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/cutroom/cutroom/export"
)

// Run serves until ctx ends or the server or the scheduler fails, then shuts down within
// ShutdownGrace (see stopServing) and returns once its goroutines ended; after a shutdown
// that ran out of grace, what had not ended is abandoned and logged. It needs Open with a
// listener.
func (a *App) Run(ctx context.Context) error {
	if a.hs == nil {
		return errors.New("app: Run needs Open with a listener")
	}
	log := a.logger()
	// deadline bounds the waits of the deferred stops once a shutdown began (zero: none).
	var deadline time.Time
	var wg sync.WaitGroup
	bg, cancelBG := context.WithCancel(context.Background())
	defer func() {
		cancelBG()
		if !waitUntil(&wg, deadline) {
			log.Warn("shutdown grace ran out: webhook deliveries in flight abandoned (they are retried at the next start)")
		}
	}()
	wg.Add(2)
	go func() { defer wg.Done(); _ = a.janitor.Run(bg) }()
	go func() { defer wg.Done(); _ = a.Deliverer.Run(bg) }()
	a.fonts.follow(bg) // other nodes' font uploads (a.fonts.close waits for it)
	// The scheduler stops before the deliverer and the database: on shutdown it records
	// its renders as PAUSED.
	var schedWG sync.WaitGroup
	schedCtx, stopSched := context.WithCancel(context.Background())
	defer func() { stopSched(); waitUntil(&schedWG, deadline) }()
	schedErr := make(chan error, 1)
	schedWG.Add(1)
	go func() { defer schedWG.Done(); schedErr <- a.Exports.Run(schedCtx) }()

	// The in-process render worker (a clustered serve that renders too) stops first: its
	// unfinished segments go back to the queue.
	var workerWG sync.WaitGroup
	workerCtx, stopWorker := context.WithCancel(context.Background())
	defer func() { stopWorker(); waitUntil(&workerWG, deadline) }()
	a.runClusterWorker(workerCtx, &workerWG)

	errc := make(chan error, 1)
	ln := a.ln
	a.ln = nil // hs owns it from here
	go func() { errc <- a.hs.Serve(ln) }()
	// The listener is bound and served: a request sent from here on is answered. The data
	// dir records where until the shutdown begins (or Run fails).
	if err := writeListening(a.cfg.DataDir, a.listening); err != nil {
		log.Warn("could not record where the server listens", "file", ServerFile, "err", err)
	}
	unrecord := sync.OnceFunc(func() { removeListening(a.cfg.DataDir) })
	defer unrecord()
	if a.cfg.Ready != nil {
		a.cfg.Ready(a)
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case err := <-schedErr:
		_ = a.hs.Close()
		return fmt.Errorf("export scheduler: %w", err)
	case <-ctx.Done():
	}
	unrecord()
	var err error
	deadline, err = stopServing(log, a.cfg.ShutdownGrace, a.hs, errc, stopSched, &schedWG, a.Exports)
	return err
}

// stopServing is the shutdown after SIGTERM, bounded by grace (--shutdown-grace): the
// listener closes at once, renders are stopped (recorded PAUSED) while the requests in
// flight finish, and what has not ended when the grace runs out is abandoned and logged
// (requests cut off; renders recorded PAUSED by exports.Abandon, so the next start resumes
// them and does not count them as crashes), so that the process can exit. served is the
// result of hs.Serve; stopSched stops the scheduler, whose goroutine is in schedWG. It
// returns the deadline, which also bounds the caller's remaining waits.
func stopServing(log *slog.Logger, grace time.Duration, hs *http.Server, served <-chan error,
	stopSched func(), schedWG *sync.WaitGroup, exports *export.Service) (time.Time, error) {
	log.Info("shutting down", "grace", grace)
	deadline := time.Now().Add(grace)
	sctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	stopSched()
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("shutdown grace ran out: requests in flight cut off", "err", err)
		_ = hs.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return deadline, err
	}
	if !waitUntil(schedWG, deadline) {
		log.Error("shutdown grace ran out: renders abandoned, paused for the next start", "tasks", exports.Abandon())
	}
	return deadline, nil
}

// waitUntil waits for wg until deadline (for ever when deadline is zero) and reports
// whether wg finished.
func waitUntil(wg *sync.WaitGroup, deadline time.Time) bool {
	if deadline.IsZero() {
		wg.Wait()
		return true
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
