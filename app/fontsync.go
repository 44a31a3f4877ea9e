package app

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/wake"
	"github.com/cutroom/cutroom/server"
	"github.com/cutroom/cutroom/storage"
)

// fontSync keeps the uploaded fonts of a node's font library those of the database, which
// other nodes sharing it upload to too (issue #32). Uploaded fonts are global, as on one
// node: every workspace's uploads join the one library.
//
// The database's font generation (storage.FontGeneration, one key, bumped in the
// transaction that creates or deletes a font asset) tells whether the library is current:
// the library holds the fonts of generation synced-1. When it is not, a refresh reads the
// font asset records (storage.FontAssets), fetches the files the library lacks through the
// blob store (assets.Store.FontFiles: a kept local copy) and adds them. One refresh runs
// at a time; requests for one coalesce, and a waiter waits for a refresh that began after
// it asked (so it sees every commit before its request).
//
// When: at start (load); on a database commit signal when the database is shared
// (follow: PostgreSQL wakes every node at any node's commit); and before a state is
// checked or drawn, to close the race with that signal: validate, export create, a frame
// preview and a render of a state naming a family check the generation (one read; once
// per family name for validate and export create), and so does GET /v1/fonts, and wait
// for a refresh if it moved, at most fontWaitRequest for a request and fontWaitRender for a
// render (the refresh carries on: a slow fetch never holds a request longer). On a shared
// database every such state checks, since another node may have added a face (a weight)
// to a family this one has; on bbolt, which one process opens, only a state naming a
// family the library lacks does (a miss: tests run two Apps over one *storage.DB), and
// no signal is followed, so a state whose families are there costs what it did
// (BenchmarkFontCheck measures a check).
//
// A font asset deleted stays in the library until the process restarts, on every node
// alike (text.Library has no removal): as before, deleting a font does not change renders.
type fontSync struct {
	db    *storage.DB
	store *assets.Store
	lib   *text.Library
	log   *slog.Logger
	// shared: the database is shared with other processes (PostgreSQL), which may add a
	// face to a family the library has; every state naming a family checks the
	// generation then, not only one naming a family the library lacks.
	shared bool

	ctx    context.Context // ends at close: the refreshes' fetches
	cancel context.CancelFunc
	wg     sync.WaitGroup // the refresh loop and follow

	// synced is 1 + the font generation whose fonts lib holds (0: none yet); only the
	// refresh, one at a time, stores it.
	synced atomic.Uint64
	// retryAt (Unix ns) is when a miss or signal next tries the fonts of the synced
	// generation that could not be fetched (0: none missing). A font whose file is gone
	// from the blob store would otherwise keep the generation unsynced, and every commit
	// signal and every request naming a family would read every font record again.
	retryAt atomic.Int64

	addMu  sync.Mutex
	loaded map[string]bool // stored paths of the uploaded fonts added to lib

	mu      sync.Mutex
	next    chan struct{} // closed when the refresh that serves the pending requests ends
	running bool          // the refresh loop runs
	closed  bool
}

// How long a miss waits for the refresh it asked for: a request (validate, export create,
// a frame preview, GET /v1/fonts) and a render (a task's, in-process or sent to the
// cluster). Past it the state is checked and drawn with the fonts there are.
const (
	fontWaitRequest = 5 * time.Second
	fontWaitRender  = time.Minute
)

func newFontSync(db *storage.DB, store *assets.Store, lib *text.Library, log *slog.Logger) *fontSync {
	ctx, cancel := context.WithCancel(context.Background())
	return &fontSync{db: db, store: store, lib: lib, log: log, shared: db.Shared(), ctx: ctx, cancel: cancel,
		loaded: map[string]bool{}}
}

// load adds every uploaded font of the database, at start.
func (f *fontSync) load() error { return f.refresh() }

// refresh adds the uploaded fonts of the database's current generation the library lacks.
// The generation is read first: a font created meanwhile moves it past what is stored.
func (f *fontSync) refresh() error {
	gen, err := f.db.FontGeneration()
	if err != nil {
		return err
	}
	paths, unfetched, err := f.store.FontFiles(f.ctx, f.isLoaded)
	if err != nil {
		return err
	}
	for _, p := range paths {
		f.added(p)
	}
	retry := int64(0)
	if unfetched > 0 { // tried again by a miss or signal after fontRetry
		retry = time.Now().Add(fontRetry).UnixNano()
	}
	f.retryAt.Store(retry)
	f.synced.Store(gen + 1)
	return nil
}

// fontRetry is how long a font file that could not be fetched waits before it is tried
// again (fontSync.retryAt).
const fontRetry = 30 * time.Second

func (f *fontSync) isLoaded(path string) bool {
	f.addMu.Lock()
	defer f.addMu.Unlock()
	return f.loaded[path]
}

// added adds the uploaded font at path to the library unless it is there: the refresh's
// and this node's uploads (assets.Config.OnFont).
func (f *fontSync) added(path string) {
	f.addMu.Lock()
	defer f.addMu.Unlock()
	if f.loaded[path] {
		return
	}
	f.loaded[path] = true
	addFonts(f.lib, []string{path}, f.log)
}

// current reports whether the library holds the fonts of the database's font generation.
// A database that cannot be read counts as current: nothing is waited for.
func (f *fontSync) current() bool {
	gen, err := f.db.FontGeneration()
	if err != nil {
		return true
	}
	retry := f.retryAt.Load()
	return f.synced.Load() == gen+1 && (retry == 0 || time.Now().UnixNano() < retry)
}

// ensure waits, at most wait and while ctx lasts, for the library to hold the fonts the
// database has now, when it does not already.
func (f *fontSync) ensure(ctx context.Context, wait time.Duration) {
	if f.current() {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-f.request():
	case <-t.C:
	case <-ctx.Done():
	}
}

// ensureFor ensures the fonts (waiting at most wait: fontWaitRequest for a request,
// fontWaitRender for a render) when st names a family the library lacks or, on a shared
// database, any family.
func (f *fontSync) ensureFor(ctx context.Context, st *editor.State, wait time.Duration) {
	if st == nil {
		return
	}
	fams := stateFontFamilies(st)
	if len(fams) > 0 && (f.shared || slices.ContainsFunc(fams, func(n string) bool { return !f.lib.HasFamily(n) })) {
		f.ensure(ctx, wait)
	}
}

// request asks for a refresh that begins after the call and returns a channel closed when
// it ends (at once after close).
func (f *fontSync) request() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if f.next == nil {
		f.next = make(chan struct{})
	}
	ch := f.next
	if !f.running {
		f.running = true
		f.wg.Add(1)
		go f.loop()
	}
	return ch
}

// loop refreshes while refreshes are asked for.
func (f *fontSync) loop() {
	defer f.wg.Done()
	for {
		f.mu.Lock()
		ch := f.next
		f.next = nil
		if ch == nil {
			f.running = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
		if err := f.refresh(); err != nil && f.ctx.Err() == nil {
			f.log.Warn("uploaded fonts not refreshed", "err", err)
		}
		close(ch)
	}
}

// follow refreshes after the commits of every node sharing the database (read at most once
// per wake.CommitGap: a request that names a family checks it itself, ensure), until ctx
// ends; on a database of this process alone (bbolt) it does
// nothing: its uploads are added as they commit.
func (f *fontSync) follow(ctx context.Context) {
	if !f.db.Shared() {
		return
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(f.ctx, cancel)()
		for range wake.Commits(ctx, f.db) {
			if !f.current() {
				f.request()
			}
		}
	}()
}

// close stops the refreshes (a fetch in flight is cancelled) and waits for them.
func (f *fontSync) close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.cancel()
	f.wg.Wait()
}

// syncedFonts is the font library as the server sees it (server.Fonts): a family it lacks
// (any family, on a shared database) is looked for after the fonts are ensured, and the
// names listed are current.
type syncedFonts struct{ f *fontSync }

func (s syncedFonts) HasFamily(name string) bool {
	if s.f.lib.HasFamily(name) && !s.f.shared {
		return true
	}
	s.f.ensure(context.Background(), fontWaitRequest)
	return s.f.lib.HasFamily(name)
}

func (s syncedFonts) Families() []string {
	s.f.ensure(context.Background(), fontWaitRequest)
	return s.f.lib.Families()
}

// families wraps GET /v1/fonts' list: the fonts are ensured first.
func (s syncedFonts) families(list func() []server.FontFamily) func() []server.FontFamily {
	return func() []server.FontFamily {
		s.f.ensure(context.Background(), fontWaitRequest)
		return list()
	}
}
