package blob

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cutroom/cutroom/apierr"
)

// CodeUnavailable: the object store did not take or give a file (unreachable, refused, or
// it answered other bytes than were sent). An upload refused with it stored nothing.
var CodeUnavailable = apierr.Define(apierr.Unavailable, "BLOB_STORE_UNAVAILABLE")

// retryAfter is the Retry-After (seconds) of CodeUnavailable answers.
const retryAfter = 5

// DefaultCacheBytes bounds the local copies of a Store (--blob-cache-bytes).
const DefaultCacheBytes = 10 << 30

// Objects is an object store every node reaches (cluster.FileObjects: JetStream's Object
// Store). Names are the keys of the files (paths relative to Config.Root, with slashes).
type Objects interface {
	// Put stores r's bytes under name, replacing an object of that name, and returns the
	// size and SHA-256 (hex) the store recorded for it.
	Put(ctx context.Context, name string, r io.Reader) (size int64, sha256 string, err error)
	// Get writes the object's bytes to w, checked against the digest the store recorded; a
	// missing object is an error wrapping fs.ErrNotExist.
	Get(ctx context.Context, name string, w io.Writer) (int64, error)
	// Delete removes an object; a missing one is no error.
	Delete(ctx context.Context, name string) error
	// Check tells whether the store answers.
	Check(ctx context.Context) error
	// List calls each with the name and modification time of every object, in a stable
	// order, until each returns an error (which List returns); it streams the listing.
	List(ctx context.Context, each func(name string, mod time.Time) error) error
}

// Config configures a Store.
type Config struct {
	// Root is the local directory the files live under (the data dir). A file's key, and
	// its object's name, is its path relative to Root with slashes ("files/assets/...",
	// "outputs/<task>/<task>.mp4").
	Root string
	// Dirs are the subdirectories of Root whose files are the store's (taken in at New;
	// names beginning with "." are temp files a crash left, of fetches or renders: removed,
	// so New runs before anything writes there).
	Dirs []string
	// Objects is the object store (required).
	Objects Objects
	// MaxBytes bounds the local copies (default DefaultCacheBytes): when a file put or
	// fetched takes them over it, the least recently used copies not in use are removed.
	// An object larger than MaxBytes is never fetched.
	MaxBytes int64
	// Logger gets warnings; slog.Default() when nil.
	Logger *slog.Logger
}

// Store keeps files in an object store every node reads, with bounded local copies under
// Root (see the package doc). A nil *Store is the local disk alone: Put, Delete and Fetch
// do nothing (Fetch only reports a missing file), so callers need no second path. Safe for
// concurrent use.
type Store struct {
	cfg Config
	log *slog.Logger
	// copies are the local copies by key; evictable: the object store holds the file
	// (the index, IndexName)
	copies *Copies
	// indexMu serialises the index's appends
	indexMu sync.Mutex
}

// New opens a Store over cfg.Objects, taking in the files already under cfg.Dirs (and
// removing the temp files a crash left there: fetches, renders) and evicting down to the
// bound those the index (IndexName) lists; the others are kept and counted in a warning.
func New(cfg Config) (*Store, error) {
	if cfg.Root == "" || cfg.Objects == nil {
		return nil, errors.New("blob: Root and Objects are required")
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultCacheBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Store{cfg: cfg, log: cfg.Logger}
	// the files are taken in unbounded, so that nothing is evicted before the index is
	// rewritten; then the bound applies
	s.copies = NewCopies(1<<62, s.removeLocal)
	known, err := s.readIndex()
	if err != nil {
		return nil, fmt.Errorf("blob: read %s: %w", IndexName, err)
	}
	var kept, keptBytes int64
	for _, d := range cfg.Dirs {
		err := filepath.WalkDir(filepath.Join(cfg.Root, d), func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if de.IsDir() || !de.Type().IsRegular() {
				return nil
			}
			if strings.HasPrefix(de.Name(), ".") {
				_ = os.Remove(p) // a fetch or render a crash interrupted
				return nil
			}
			info, err := de.Info()
			if err != nil {
				return nil
			}
			key, err := s.key(p)
			if err != nil {
				return err
			}
			s.copies.Add(key, info.Size(), info.ModTime(), known[key])
			if !known[key] {
				kept++
				keptBytes += info.Size()
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("blob: take in %s: %w", d, err)
		}
	}
	// Rewritten from the copies taken in, which prunes entries of files gone; with no
	// directories taken in (blobs push) that would empty the index of a data dir a node
	// may be running on, and a push that fails half-way would lose its entries.
	if len(cfg.Dirs) > 0 {
		if err := s.rewriteIndex(); err != nil {
			return nil, fmt.Errorf("blob: write %s: %w", IndexName, err)
		}
	}
	if kept > 0 {
		s.log.Warn("blob: local files not known to be in the object store are kept, never evicted: put them there with `cutroom blobs push`",
			"files", kept, "bytes", keptBytes)
	}
	s.copies.Bound(cfg.MaxBytes)
	return s, nil
}

// key is the key of a path under Root.
func (s *Store) key(path string) (string, error) {
	rel, err := filepath.Rel(s.cfg.Root, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == ".." || filepath.IsAbs(rel) {
		return "", fmt.Errorf("blob: %s is not under %s", path, s.cfg.Root)
	}
	return filepath.ToSlash(rel), nil
}

// Bytes is the size of the local copies.
func (s *Store) Bytes() int64 { return s.copies.Bytes() }

// Put stores the complete file at path in the object store and returns once the store
// holds it: the size and SHA-256 it recorded are checked against the bytes read. The
// file stays as a local copy (the most recently used). Its errors are CodeUnavailable.
func (s *Store) Put(ctx context.Context, path string) error {
	if s == nil {
		return nil
	}
	key, err := s.key(path)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	cr := &countingReader{r: io.TeeReader(f, h)}
	size, sum, err := s.cfg.Objects.Put(ctx, key, cr)
	if err != nil {
		return s.unavailable(fmt.Errorf("put %s: %w", key, err), "the file store (NATS) did not take the file; nothing was stored; try again")
	}
	if want := hex.EncodeToString(h.Sum(nil)); size != cr.n || sum != want {
		return s.unavailable(fmt.Errorf("put %s: the object store recorded %d bytes with SHA-256 %s; %d bytes with SHA-256 %s were sent", key, size, sum, cr.n, want),
			"the file store (NATS) recorded other bytes than were sent; nothing was stored; try again")
	}
	s.copies.Add(key, size, time.Now(), true)
	s.confirm(key)
	return nil
}

// unavailable is a CodeUnavailable error of detail (what a client reads: no names or
// error texts of the object store) caused by err, which it logs (the server does not log
// the causes of the errors it answers with a code).
func (s *Store) unavailable(err error, detail string) error {
	s.log.Warn("blob: the object store failed", "err", err)
	return CodeUnavailable.Wrap(err, "%s", detail).WithRetryAfter(retryAfter)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Fetch makes the file at path present locally, fetching its object on a miss, and keeps
// it (never evicted) until release is called. Concurrent misses of one file fetch it
// once; a fetch writes a temp file in the file's directory and renames it into place, so
// a partial file is never visible. A file neither here nor in the object store is an
// error wrapping fs.ErrNotExist; other failures of the object store are CodeUnavailable.
// On a nil Store it only checks that the file is there.
func (s *Store) Fetch(ctx context.Context, path string) (release func(), err error) {
	if s == nil {
		_, err := os.Stat(path)
		return func() {}, err
	}
	key, err := s.key(path)
	if err != nil {
		return nil, err
	}
	present := func() bool { _, err := os.Stat(path); return err == nil }
	return s.copies.Get(ctx, key, present, func(ctx context.Context) (int64, bool, error) {
		n, fetched, err := s.fetch(ctx, key, path)
		if err == nil && fetched {
			s.confirm(key)
		}
		return n, fetched, err
	})
}

// Open opens the file at path, fetched first when there is no local copy (Fetch); the
// copy may be evicted once it is open (an open file stays readable). On a nil Store it is
// os.Open.
func (s *Store) Open(ctx context.Context, path string) (*os.File, error) {
	release, err := s.Fetch(ctx, path)
	if err != nil {
		return nil, err
	}
	defer release()
	return os.Open(path)
}

// fetch writes the object of key to path (temp file, synced, renamed) and reports that it
// did, or takes in a file already there (written before this Store knew it; not known to
// be in the object store).
func (s *Store) fetch(ctx context.Context, key, path string) (n int64, fetched bool, err error) {
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
		return info.Size(), false, nil
	}
	n, err = s.download(ctx, key, path)
	return n, err == nil, err
}

// download writes the object of key to path through a temp file in its directory.
func (s *Store) download(ctx context.Context, key, path string) (int64, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(dir, ".fetch-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	n, err := s.cfg.Objects.Get(ctx, key, &limitedWriter{w: tmp, left: s.cfg.MaxBytes})
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, fmt.Errorf("blob: %s: %w", key, err)
	case errors.Is(err, errTooLarge):
		return 0, s.unavailable(fmt.Errorf("get %s: larger than --blob-cache-bytes (%d)", key, s.cfg.MaxBytes),
			"the file is larger than this server's copies of files may be (--blob-cache-bytes)")
	case err != nil:
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, s.unavailable(fmt.Errorf("get %s: %w", key, err), "the file store (NATS) did not give the file; try again")
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return 0, err
	}
	syncDir(dir)
	return n, nil
}

var errTooLarge = errors.New("larger than the local copies may be")

// limitedWriter fails a write that would take w past left bytes.
type limitedWriter struct {
	w    io.Writer
	left int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		return 0, errTooLarge
	}
	n, err := l.w.Write(p)
	l.left -= int64(n)
	return n, err
}

// Delete removes the file at path: its local copy and its object. A copy in use is
// removed too (open files stay readable).
func (s *Store) Delete(ctx context.Context, path string) error {
	if s == nil {
		return nil
	}
	key, err := s.key(path)
	if err != nil {
		return err
	}
	return s.deleteKey(ctx, key)
}

// deleteKey removes the local copy and the object of key.
func (s *Store) deleteKey(ctx context.Context, key string) error {
	s.copies.Remove(key)
	if err := s.cfg.Objects.Delete(ctx, key); err != nil {
		return s.unavailable(fmt.Errorf("delete %s: %w", key, err), "the file store (NATS) did not delete the file")
	}
	return nil
}

// DropTimeout bounds Drop.
const DropTimeout = 10 * time.Second

// Drop is Delete for callers without a context of their own (a janitor, a render's end),
// within DropTimeout; what it could not delete is logged and left behind (never served:
// the records decide what is).
func (s *Store) Drop(path string) {
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), DropTimeout)
	defer cancel()
	if err := s.Delete(ctx, path); err != nil {
		s.log.Warn("blob: an object left behind", "path", path, "err", err)
	}
}

// Check tells whether the object store answers (nil on a nil Store).
func (s *Store) Check(ctx context.Context) error {
	if s == nil {
		return nil
	}
	return s.cfg.Objects.Check(ctx)
}

// removeLocal removes the local copy of key and the directories it leaves empty, up to
// the managed directory (Copies' remove).
func (s *Store) removeLocal(key string) {
	p := filepath.Join(s.cfg.Root, filepath.FromSlash(key))
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("blob: remove a local copy", "key", key, "err", err)
		return
	}
	for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
		k, err := s.key(dir)
		if err != nil || s.managed(k) {
			return
		}
		if os.Remove(dir) != nil { // not empty (or gone): stop
			return
		}
	}
}

// managed reports whether key is one of Config.Dirs or above them.
func (s *Store) managed(key string) bool {
	for _, d := range s.cfg.Dirs {
		d = filepath.ToSlash(filepath.Clean(d))
		if key == d || strings.HasPrefix(d, key+"/") {
			return true
		}
	}
	return false
}

// syncDir flushes a directory entry (a rename) to disk, where the platform can.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
