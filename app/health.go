package app

import (
	"context"
	"errors"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/server"
	"github.com/cutroom/cutroom/storage"
)

// The readiness checks (GET /readyz) and the status words they report. A check fails
// unless its word is "ok"; ffmpeg is reported and never fails, as video items and
// compressed audio are optional.
const (
	checkDatabase  = "database"  // ok | unavailable
	checkDataDir   = "dataDir"   // ok | full | not_writable
	checkDiskSpace = "diskSpace" // ok | low | unknown
	checkEncoder   = "encoder"   // ok | unavailable
	checkFFmpeg    = "ffmpeg"    // available | not_configured | unusable
)

// ffmpeg states of the readiness report.
const (
	ffmpegAvailable     = "available"
	ffmpegNotConfigured = "not_configured"
	ffmpegUnusable      = "unusable"
)

// readiness implements server.Health over the App's data dir, database, disk guard and
// what Open found of the encoders and ffmpeg.
type readiness struct {
	dataDir    string
	db         *storage.DB
	ping       boundedCall // the database's Ping
	space      *diskspace.Guard
	encoderErr error
	ffmpeg     string
}

// Readiness runs the checks: the database answers a read (its engine and the read's time
// reported beside), a file can be written in the
// data dir, the free space is above the floor (--min-free-disk), the encoders opened at
// start; and reports ffmpeg's state. Words, never paths or error texts, go out.
func (r *readiness) Readiness(context.Context) server.Readiness {
	checks := map[string]string{checkDatabase: "ok", checkDataDir: "ok", checkDiskSpace: "ok",
		checkEncoder: "ok", checkFFmpeg: r.ffmpeg}
	start := time.Now()
	if r.ping.do(r.db.Ping, databasePingTimeout) != nil {
		checks[checkDatabase] = "unavailable"
	}
	dbState := &server.DatabaseReadiness{Engine: r.db.Engine(), Status: checks[checkDatabase],
		PingMs: float64(time.Since(start).Microseconds()) / 1000}
	if err := probeWrite(r.dataDir); diskspace.IsFull(err) {
		checks[checkDataDir] = "full"
	} else if err != nil {
		checks[checkDataDir] = "not_writable"
	}
	if st, err := r.space.State(); err != nil {
		checks[checkDiskSpace] = "unknown"
	} else if st.Low() {
		checks[checkDiskSpace] = "low"
	}
	if r.encoderErr != nil {
		checks[checkEncoder] = "unavailable"
	}
	var failed []string
	for name, word := range checks {
		if name != checkFFmpeg && word != "ok" {
			failed = append(failed, name)
		}
	}
	sort.Strings(failed)
	return server.Readiness{Checks: checks, Failed: failed, Database: dbState}
}

// probeWrite writes a byte to a new file in dir and removes it.
func probeWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".readyz-*")
	if err != nil {
		return err
	}
	_, werr := f.Write([]byte{0})
	cerr := f.Close()
	_ = os.Remove(f.Name())
	if werr != nil {
		return werr
	}
	return cerr
}

// databasePingTimeout bounds the database check: a PostgreSQL that stops answering (a
// network that drops packets) fails it after this long, rather than holding the probe.
const databasePingTimeout = 2 * time.Second

// errPingTimeout is the database check's failure when Ping takes longer than its bound.
var errPingTimeout = errors.New("the database did not answer in time")

// boundedCall runs a call with a bound on the wait for it; a call that overruns goes on in
// the background, and later callers wait for it rather than starting another, so probes of
// a database that hangs start one call at a time.
type boundedCall struct {
	mu      sync.Mutex
	running *callResult
}

type callResult struct {
	done chan struct{}
	err  error
}

// do runs fn (or joins the call of it in flight) and returns its error, or errPingTimeout
// after timeout.
func (b *boundedCall) do(fn func() error, timeout time.Duration) error {
	b.mu.Lock()
	c := b.running
	if c == nil {
		c = &callResult{done: make(chan struct{})}
		b.running = c
		go func() {
			c.err = fn()
			b.mu.Lock()
			b.running = nil
			b.mu.Unlock()
			close(c.done)
		}()
	}
	b.mu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-c.done:
		return c.err
	case <-t.C:
		return errPingTimeout
	}
}
