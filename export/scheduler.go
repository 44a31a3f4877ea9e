package export

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"sync"
	"time"

	"github.com/cutroom/cutroom/blob"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
)

// Wake makes the scheduler look for pending tasks now. It never blocks.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Running returns how many tasks are rendering now.
func (s *Service) Running() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.running)
}

// Run is the scheduler. It first puts tasks a previous run left PROCESSING (a crash) or
// PAUSED (a graceful stop) back to PENDING (on a shared store only those no live node holds
// the lease of: leases.go), then renders pending tasks oldest first with up to Workers at
// once, renews its tasks' leases, requeues tasks whose lease expired, and deletes expired
// outputs; it also follows the database's task change log into the event log (tail.go),
// for the changes other nodes make. When ctx ends it stops every render, records those
// tasks as PAUSED (they resume on the next Run; PENDING on a shared store, for any node),
// removes their partial files and returns once every render goroutine has finished.
func (s *Service) Run(ctx context.Context) error {
	if err := s.requeueAtStart(); err != nil {
		if !s.shared() {
			return err
		}
		// A shared database that failed this one read (a restart, a network blip) must
		// not stop the node: every poll requeues the tasks whose lease expired, its own
		// of an earlier run among them once their lease runs out.
		s.log.Error("export: requeue tasks at start; the polls carry on", "err", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { s.followEvents(ctx) })
	poll := time.NewTicker(s.cfg.PollInterval)
	defer poll.Stop()
	janitor := time.NewTicker(s.cfg.JanitorInterval)
	defer janitor.Stop()
	heartbeat := time.NewTicker(s.cfg.LeaseTTL / 3)
	defer heartbeat.Stop()
	changes := s.changes(ctx)
	s.purgeExpired()
	for {
		s.fill(&wg)
		select {
		case <-ctx.Done():
			cause := errPaused
			if s.crashOnStop.Load() {
				cause = errCrashed
			}
			s.mu.Lock()
			for _, cancel := range s.running {
				cancel(cause)
			}
			s.mu.Unlock()
			wg.Wait()
			return nil
		case <-s.wake:
		case <-poll.C:
			if s.shared() { // on a store of its own every lease is this node's, renewed
				s.requeuePoll()
			}
		case <-heartbeat.C:
			s.renewLeases()
		case _, ok := <-changes:
			if !ok {
				changes = nil
				continue
			}
			s.checkLeases()
		case <-janitor.C:
			s.purgeExpired()
		}
	}
}

// MaxCrashes is how many renders of one task a crash may interrupt: a task found
// PROCESSING at a start for the MaxCrashes-th time is FAILED with CodeRenderCrashed (its
// credits refunded) instead of rendered again, so a task that brings the server down cannot
// do so at every start.
const MaxCrashes = 2

// recover moves the PROCESSING and PAUSED tasks of ids that pick chooses back to PENDING
// (dropping their lease) and removes their partial files. A PROCESSING task is one a crash
// interrupted (a graceful stop records PAUSED); one interrupted MaxCrashes times is FAILED
// instead, with its EXPORT_FAILED event.
func (s *Service) recover(ids []string, pick func(t *model.ExportTask) bool) error {
	notify := false
	for _, id := range ids {
		now := s.now().UTC()
		var from string // the node whose lease expired
		t, changed, err := s.update(id, func(t *model.ExportTask) ([]model.WebhookDelivery, error) {
			if (t.Status != model.StatusProcessing && t.Status != model.StatusPaused) || !pick(t) {
				return nil, storage.ErrNoChange
			}
			from = t.LeaseNode
			t.LeaseNode, t.LeaseExpiresAt = "", nil
			if t.Status == model.StatusProcessing {
				t.Crashes++
				if t.Crashes >= MaxCrashes {
					msg := TaskError(&RenderFailure{Code: CodeRenderCrashed, Msg: "the render stopped the server twice; it is not rendered again"})
					t.Status, t.Phase, t.Error, t.CompletedAt = model.StatusFailed, "", &msg, &now
					refund(t)
					return s.event(t, EventFailed, now)
				}
			}
			t.Status, t.Phase, t.Progress = model.StatusPending, "", 0
			return nil, nil
		})
		if err != nil {
			return fmt.Errorf("export: requeue task %s: %w", id, err)
		}
		if !changed {
			continue
		}
		s.tookOver(id, from)
		switch t.Status {
		case model.StatusPending:
			_ = os.RemoveAll(s.taskDir(id))
		case model.StatusFailed: // failed just now (ActiveExports lists active tasks only)
			_ = os.RemoveAll(s.taskDir(id))
			s.log.Error("export failed: a crash interrupted its render twice", "task", id, "attempts", t.Attempts)
			s.cfg.Metrics.ExportFinished(model.StatusFailed)
			notify = notify || t.CallbackURL != nil
		}
	}
	if notify {
		s.cfg.Notify()
	}
	return nil
}

// Abandon records every task whose render is still running as PAUSED, so the next start
// resumes it and does not count it as a crash, and returns their ids. A shutdown calls it
// when its grace ran out before the renders stopped (the process then exits without them);
// a render that ends later changes nothing (its task is no longer PROCESSING).
func (s *Service) Abandon() []string {
	s.mu.Lock()
	ids := make([]string, 0, len(s.running))
	for id := range s.running {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	var out []string
	for _, id := range ids {
		_, changed, err := s.update(id, s.release)
		if err != nil {
			s.log.Error("export: record an abandoned render as paused", "task", id, "err", err)
			continue
		}
		if changed { // not one another node requeued, or one this node had not claimed yet
			out = append(out, id)
		}
	}
	return out
}

// fill starts pending tasks while workers are free.
func (s *Service) fill(wg *sync.WaitGroup) {
	for {
		s.mu.Lock()
		busy, backoffs := len(s.running), len(s.lostAt)
		s.mu.Unlock()
		if busy >= s.cfg.Workers {
			return
		}
		// the tasks this node backs off from (backingOff) may head the queue: read past them
		ids, err := s.store.PendingExports(busy + 1 + backoffs)
		if err != nil {
			s.log.Error("export: list pending tasks", "err", err)
			return
		}
		started := false
		for _, id := range ids {
			s.mu.Lock()
			_, running := s.running[id]
			s.mu.Unlock()
			if running || s.backingOff(id) {
				continue
			}
			if s.start(wg, id) {
				started = true
				break
			}
		}
		if !started {
			return
		}
	}
}

// start claims a PENDING task (PENDING -> PROCESSING, with the EXPORT_STARTED event) and
// starts its render; it reports whether it did.
func (s *Service) start(wg *sync.WaitGroup, id string) bool {
	// Register the render's cancel before the claim, so a cancel that lands right after the
	// claim always reaches the render.
	rctx, cancel := context.WithCancelCause(context.Background())
	s.mu.Lock()
	s.running[id] = cancel
	s.mu.Unlock()
	unregister := func() {
		s.mu.Lock()
		delete(s.running, id)
		delete(s.leases, id)
		idle := len(s.running) == 0
		s.mu.Unlock()
		cancel(nil)
		if idle {
			// The last render ended: hand the heap it freed back to the system now rather
			// than over minutes, so an idle server holds the same memory after every export.
			debug.FreeOSMemory()
		}
	}
	now := s.now().UTC()
	t, claimed, err := s.update(id, func(t *model.ExportTask) ([]model.WebhookDelivery, error) {
		if t.Status != model.StatusPending {
			return nil, storage.ErrNoChange
		}
		t.Status, t.Phase, t.Progress, t.StartedAt = model.StatusProcessing, PhaseRendering, 0, &now
		t.Attempts++
		s.claimLease(t, now)
		return s.event(t, EventStarted, now)
	})
	if err != nil || !claimed {
		unregister()
		if err != nil {
			s.log.Error("export: claim task", "task", id, "err", err)
		}
		return false
	}
	s.mu.Lock()
	s.leases[id] = struct{}{}
	s.mu.Unlock()
	if t.CallbackURL != nil {
		s.cfg.Notify()
	}
	s.log.Info("export started", "task", id, "attempt", t.Attempts, "frames", t.Frames, "format", t.Format,
		"size", fmt.Sprintf("%dx%d", t.OutputWidth, t.OutputHeight), "fps", t.FPS)
	logWarnings(s.log, &t)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer s.Wake()
		defer unregister()
		s.render(rctx, t)
	}()
	return true
}

// render runs one task's render and records its outcome.
func (s *Service) render(ctx context.Context, t model.ExportTask) {
	log := s.log.With("task", t.ID)
	started := s.now()
	err := s.renderFile(ctx, &t)
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errCanceled):
		s.dropOutput(&t, err == nil)
		log.Info("export canceled")
	case errors.Is(cause, errCrashed):
	case errors.Is(cause, errLeaseLost):
		// the task renders on another node now: on an output directory the nodes share
		// (--blob-store DIR) its directory is that node's, so only a local one is removed
		if !s.cfg.SharedOutputs {
			_ = os.RemoveAll(s.taskDir(t.ID))
		}
	case errors.Is(cause, errPaused):
		s.dropOutput(&t, err == nil)
		if _, _, perr := s.update(t.ID, s.release); perr != nil {
			log.Error("export: record pause", "err", perr)
		}
		log.Info("export paused for shutdown")
	case err != nil:
		s.dropOutput(&t, false)
		log.Error("export failed", "err", err)
		s.finish(t.ID, started, err)
	default:
		s.finish(t.ID, started, nil)
		log.Info("export completed", "seconds", s.now().Sub(started).Seconds())
	}
}

// renderFile renders into the task's directory and checks that the file is there.
func (s *Service) renderFile(ctx context.Context, t *model.ExportTask) (err error) {
	state, err := s.store.ExportState(t.ID)
	if errors.Is(err, storage.ErrTaskNotFound) {
		return errTaskNotFound.Wrap(err, "export task %s has no state", t.ID)
	}
	if err != nil {
		return err
	}
	parsed, err := editor.Parse(state)
	if err != nil {
		return fmt.Errorf("parse the state snapshot: %w", err)
	}
	dir := s.taskDir(t.ID)
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("create the output directory: %w", err)
	}
	job := RenderJob{TaskID: t.ID, WorkspaceID: t.WorkspaceID, State: state, Parsed: parsed,
		CompositionWidth: t.CompositionWidth, CompositionHeight: t.CompositionHeight,
		OutputWidth: t.OutputWidth, OutputHeight: t.OutputHeight, Scale: t.Scale, FPS: t.FPS,
		Format: t.Format, Frames: t.Frames, OutputPath: s.outputPath(t)}
	prog := &progress{s: s, id: t.ID}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("renderer panic: %v", r)
		}
	}()
	if err := s.renderer.Render(ctx, job, prog.report); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	s.setPhase(t.ID, PhaseFinishing, 99)
	st, err := os.Stat(job.OutputPath)
	if err != nil || st.Size() == 0 {
		return fmt.Errorf("the renderer reported success but wrote no output file")
	}
	// every node serves the output once the task is COMPLETED
	return s.cfg.Blobs.Put(ctx, job.OutputPath)
}

// finish records a finished render: COMPLETED with the output link's expiry, or FAILED
// with the error (and the credits refunded), each with its webhook event. A task canceled
// meanwhile stays CANCELED and its file is removed.
func (s *Service) finish(id string, started time.Time, renderErr error) {
	now := s.now().UTC()
	t, recorded, err := s.update(id, func(t *model.ExportTask) ([]model.WebhookDelivery, error) {
		if !s.mine(t) {
			return nil, storage.ErrNoChange
		}
		t.Phase, t.CompletedAt, t.RenderSeconds = "", &now, now.Sub(started).Seconds()
		t.LeaseNode, t.LeaseExpiresAt = "", nil
		if renderErr != nil {
			msg := TaskError(renderErr)
			t.Status, t.Error = model.StatusFailed, &msg
			refund(t)
			return s.event(t, EventFailed, now)
		}
		exp := now.Add(s.cfg.OutputTTL)
		t.Status, t.Progress, t.OutputExpiresAt = model.StatusCompleted, 100, &exp
		return s.event(t, EventCompleted, now)
	})
	if err != nil {
		s.log.Error("export: record outcome", "task", id, "err", err)
		return
	}
	if recorded {
		var size int64
		if t.Status == model.StatusCompleted {
			if st, err := os.Stat(s.outputPath(&t)); err == nil {
				size = st.Size()
			}
		}
		s.cfg.Metrics.ExportFinished(t.Status)
		s.cfg.Metrics.RenderEnded(t.Status, now.Sub(started), size)
	}
	if t.Status != model.StatusCompleted {
		s.dropOutput(&t, renderErr == nil)
	}
	if t.CallbackURL != nil {
		s.cfg.Notify()
	}
}

// setPhase records a phase and progress of a PROCESSING task.
func (s *Service) setPhase(id, phase string, pct float64) {
	_, _, err := s.update(id, func(t *model.ExportTask) ([]model.WebhookDelivery, error) {
		if !s.mine(t) || (t.Phase == phase && t.Progress == pct) {
			return nil, storage.ErrNoChange
		}
		t.Phase, t.Progress = phase, pct
		return nil, nil
	})
	if err != nil {
		s.log.Warn("export: record progress", "task", id, "err", err)
	}
}

// progress throttles a render's progress reports into task writes: at most one per
// ProgressInterval, and only when the whole percentage changed. Rendering maps to 0..95;
// the last frame switches to the saving phase (the encoder finishes the file).
type progress struct {
	s     *Service
	id    string
	mu    sync.Mutex
	last  time.Time
	pct   float64
	saved bool
}

func (p *progress) report(done, total int64) {
	if total <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if done >= total {
		if !p.saved {
			p.saved = true
			p.s.setPhase(p.id, PhaseSaving, 96)
		}
		return
	}
	pct := float64(int64(95 * done / total))
	now := p.s.now()
	if pct <= p.pct || now.Sub(p.last) < p.s.cfg.ProgressInterval {
		return
	}
	p.pct, p.last = pct, now
	p.s.setPhase(p.id, PhaseRendering, pct)
}

// deleteOutput deletes an expired output: its directory and, with an object store, its
// object (an error leaves the output to the next sweep).
func (s *Service) deleteOutput(id string) error {
	if err := os.RemoveAll(s.taskDir(id)); err != nil || s.cfg.Blobs == nil {
		return err
	}
	t, err := s.store.ExportTaskByID(id)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), blob.DropTimeout)
	defer cancel()
	return s.cfg.Blobs.Delete(ctx, s.outputPath(&t))
}

// purgeExpired deletes the files of outputs whose links expired.
func (s *Service) purgeExpired() {
	ids, err := s.store.ExpiredOutputs(s.now())
	if err != nil {
		s.log.Error("export: list expired outputs", "err", err)
		return
	}
	for _, id := range ids {
		if err := s.deleteOutput(id); err != nil {
			s.log.Warn("export: delete expired output", "task", id, "err", err)
			continue
		}
		s.log.Info("export output expired and deleted", "task", id)
		if _, _, err := s.update(id, func(t *model.ExportTask) ([]model.WebhookDelivery, error) {
			if t.OutputPurged {
				return nil, storage.ErrNoChange
			}
			t.OutputPurged = true
			return nil, nil
		}); err != nil {
			s.log.Warn("export: record expired output", "task", id, "err", err)
		}
	}
}
