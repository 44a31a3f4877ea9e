package blob

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Defaults of SweepConfig.
const (
	// DefaultSweepGrace is how old an object must be before a sweep may remove it: an
	// upload's object is put before its record commits, perhaps on another node.
	DefaultSweepGrace = time.Hour
	// DefaultSweepChecks bounds the objects one sweep examines.
	DefaultSweepChecks = 10000
	// DefaultSweepDeletes bounds the objects one sweep removes.
	DefaultSweepDeletes = 1000
)

// sweepPage is how many names a sweep hands Orphaned at once.
const sweepPage = 256

// SweepConfig configures a Sweeper. Zero values take the defaults.
type SweepConfig struct {
	// Orphaned returns those of keys that no record serves (required). It is called after
	// the keys were listed, so a record committed before it ran keeps its object; a key
	// it does not know must not be returned.
	Orphaned func(ctx context.Context, keys []string) ([]string, error)
	// Grace: objects younger than it are left alone (default DefaultSweepGrace).
	Grace time.Duration
	// MaxChecks bounds the objects one Run examines (default DefaultSweepChecks); the
	// next Run goes on from there, and after the end of the listing starts again.
	MaxChecks int
	// MaxDeletes bounds the objects one Run removes (default DefaultSweepDeletes).
	MaxDeletes int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// SweepReport is what one Run did.
type SweepReport struct {
	// Examined objects, of which Young were left for their age and Deleted removed.
	Examined, Young, Deleted int
	// Complete: the listing was read to its end (the next Run starts again at its head).
	Complete bool
}

// Sweeper removes the objects no record serves (an upload whose record never committed,
// a delete the object store did not take), with their local copies, a bounded number per
// Run. Several Sweepers, on several nodes, may run at once: removing an object twice is
// no error, and Orphaned reads the records after the listing.
type Sweeper struct {
	s   *Store
	cfg SweepConfig
	mu  sync.Mutex
	// from is how many entries of the listing the next Run skips (examined before)
	from int
}

// Sweeper returns a Sweeper of the store's objects (nil on a nil Store).
func (s *Store) Sweeper(cfg SweepConfig) *Sweeper {
	if s == nil {
		return nil
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultSweepGrace
	}
	if cfg.MaxChecks <= 0 {
		cfg.MaxChecks = DefaultSweepChecks
	}
	if cfg.MaxDeletes <= 0 {
		cfg.MaxDeletes = DefaultSweepDeletes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Sweeper{s: s, cfg: cfg}
}

// errSweepDone stops a listing once a Run has done its share.
var errSweepDone = errors.New("blob: the sweep's share is done")

// Run examines up to MaxChecks objects, going on from where the last Run stopped, and
// removes those older than the grace that Orphaned names, up to MaxDeletes. An error of
// the object store or of Orphaned ends it (what it removed is in the report); the next
// Run tries that part of the listing again. Runs of one Sweeper are serialised.
func (w *Sweeper) Run(ctx context.Context) (SweepReport, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var rep SweepReport
	now := w.cfg.Now()
	// page holds the candidates (old enough) and their positions among the examined
	// entries; resume, where a Run stopped short of its share, the next one's start
	type candidate struct {
		key string
		pos int
	}
	var page []candidate
	resume := -1
	flush := func() error {
		if len(page) == 0 {
			return nil
		}
		keys := make([]string, len(page))
		for i, c := range page {
			keys[i] = c.key
		}
		orphans, err := w.cfg.Orphaned(ctx, keys)
		if err != nil {
			return err
		}
		dead := make(map[string]bool, len(orphans))
		for _, k := range orphans {
			dead[k] = true
		}
		for _, c := range page {
			if !dead[c.key] {
				continue
			}
			if rep.Deleted >= w.cfg.MaxDeletes {
				resume = c.pos
				return errSweepDone
			}
			if err := w.delete(ctx, c.key); err != nil {
				return err
			}
			rep.Deleted++
		}
		page = page[:0]
		return nil
	}
	seen := 0
	err := w.s.cfg.Objects.List(ctx, func(key string, mod time.Time) error {
		seen++
		if seen <= w.from {
			return nil
		}
		if rep.Examined >= w.cfg.MaxChecks {
			if err := flush(); err != nil {
				return err
			}
			resume = rep.Examined
			return errSweepDone
		}
		rep.Examined++
		if now.Sub(mod) < w.cfg.Grace {
			rep.Young++
			return nil
		}
		page = append(page, candidate{key: key, pos: rep.Examined - 1})
		if len(page) == sweepPage {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	switch {
	case err == nil:
		rep.Complete, w.from = true, 0
	case errors.Is(err, errSweepDone):
		// the entries removed were before the resume point: the listing has that many
		// fewer entries before it now
		w.from += resume - rep.Deleted
		err = nil
	}
	// on an error w.from stays: the next Run examines this part again
	return rep, err
}

// delete removes the object of key and its local copy, within DropTimeout (a NATS that
// stopped answering fails the Run then, not at the end of ctx).
func (w *Sweeper) delete(ctx context.Context, key string) error {
	ctx, cancel := context.WithTimeout(ctx, DropTimeout)
	defer cancel()
	return w.s.deleteKey(ctx, key)
}
