package app

import (
	"context"
	"os"
	"sort"
	"time"

	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/server"
	"github.com/cutroom/cutroom/storage"
)

// The readiness checks (GET /readyz) and the status words they report. A check fails
// unless its word is "ok"; ffmpeg is reported and never fails, as video items and
// compressed audio are optional. statusNotResponding is the word of a filesystem check
// that has not finished within fsCheckTimeout (boundedCheck).
const (
	checkDatabase  = "database"  // ok | unavailable
	checkDataDir   = "dataDir"   // ok | full | not_writable | not_responding
	checkDiskSpace = "diskSpace" // ok | low | unknown | not_responding
	checkEncoder   = "encoder"   // ok | unavailable
	checkFFmpeg    = "ffmpeg"    // available | not_configured | unusable
	checkBlobStore = "blobStore" // ok | unavailable (nats) | full | not_writable | not_responding (dir)
	// reportBlobKind is the blob store's kind (local | dir | nats), reported, never failing
	reportBlobKind = "blobStoreKind"

	statusNotResponding = "not_responding"
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
	space      *diskspace.Guard
	encoderErr error
	ffmpeg     string
	blobs      *fileAreas // nil: the data dir

	// the filesystem checks, each single-flight and bounded
	dataDirCheck, spaceCheck, blobCheck boundedCheck
}

// Readiness runs the checks: the database answers a read (its engine and the read's time
// reported beside), a file can be written in the data dir, the free space is above the
// floor (--min-free-disk), the encoders opened at start, the blob store answers
// (--blob-store: the NATS object store, or a write in the shared directory); and reports
// ffmpeg's state and the blob store's kind. Words, never paths or error texts, go out.
// The filesystem checks start first and run beside the others, each within
// fsCheckTimeout (boundedCheck): a hung mount fails its check, it does not hold the probe.
func (r *readiness) Readiness(ctx context.Context) server.Readiness {
	dataDir := r.dataDirCheck.start(func() string { return writeWord(probeWrite(r.dataDir)) })
	space := r.spaceCheck.start(r.spaceWord)
	blobs := r.blobs.check(ctx, &r.blobCheck)
	checks := map[string]string{checkDatabase: "ok", checkEncoder: "ok", checkFFmpeg: r.ffmpeg, reportBlobKind: r.blobs.kindWord()}
	start := time.Now()
	pctx, cancel := context.WithTimeout(ctx, databasePingTimeout)
	err := r.db.PingContext(pctx)
	cancel()
	if err != nil {
		checks[checkDatabase] = "unavailable"
	}
	dbState := &server.DatabaseReadiness{Engine: r.db.Engine(), Status: checks[checkDatabase],
		PingMs: float64(time.Since(start).Microseconds()) / 1000}
	if r.encoderErr != nil {
		checks[checkEncoder] = "unavailable"
	}
	checks[checkDataDir], checks[checkDiskSpace], checks[checkBlobStore] = dataDir.wait(ctx), space.wait(ctx), blobs.wait(ctx)
	var failed []string
	for name, word := range checks {
		if name != checkFFmpeg && name != reportBlobKind && word != "ok" {
			failed = append(failed, name)
		}
	}
	sort.Strings(failed)
	return server.Readiness{Checks: checks, Failed: failed, Database: dbState}
}

// spaceWord is the diskSpace check's word: the free space against the floor.
func (r *readiness) spaceWord() string {
	st, err := r.space.State()
	switch {
	case err != nil:
		return "unknown"
	case st.Low():
		return "low"
	}
	return "ok"
}

// writeWord is the word of a write check (probeWrite's error): ok, full or not_writable.
func writeWord(err error) string {
	switch {
	case err == nil:
		return "ok"
	case diskspace.IsFull(err):
		return "full"
	}
	return "not_writable"
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

// fsCheckTimeout bounds each filesystem check (the data dir's write, the statfs of the
// free-space floor, the write in --blob-store DIR): a call not finished by then reports
// statusNotResponding, and later probes report it at once until the call returns
// (boundedCheck). A healthy local or NFS write takes milliseconds.
const fsCheckTimeout = 2 * time.Second
