package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cutroom/cutroom/blob"
	"github.com/cutroom/cutroom/cluster"
)

// BlobStoreNATS is BlobSettings.Store's value that keeps files in the NATS object store.
const BlobStoreNATS = "nats"

// BlobSettings say where uploaded files and export outputs live (--blob-store). The zero
// value keeps them in the data dir, as one node needs.
type BlobSettings struct {
	// Store is "" (the data dir's files/ and outputs/), BlobStoreNATS (the object store
	// cluster.FilesName of the NATS the App joins, --cluster-listen or --nats, with local
	// copies in the data dir) or a directory every node mounts (files/ and outputs/ under
	// it).
	Store string
	// CacheBytes bounds the local copies of the NATS store (default blob.DefaultCacheBytes).
	CacheBytes int64
	// Replicas is how many copies NATS keeps of the object store when the App creates it
	// (0: 1; an existing store keeps its own configuration).
	Replicas int
	// SweepGrace is how old a file without a record must be before the janitor removes
	// it (default blob.DefaultSweepGrace, an hour: an upload's file is written before its
	// record commits, perhaps on another node).
	SweepGrace time.Duration
}

// The kinds of blob store, as /readyz reports them (blobStoreKind).
const (
	blobsLocal = "local"
	blobsDir   = "dir"
	blobsNATS  = "nats"
)

// fileAreas is where the App keeps uploaded files and outputs.
type fileAreas struct {
	kind  string
	root  string      // files/ and outputs/ are under it
	store *blob.Store // nats only
}

func (f *fileAreas) files() string   { return filepath.Join(f.root, "files") }
func (f *fileAreas) outputs() string { return filepath.Join(f.root, "outputs") }

// blobDirs are the directories under a root whose files the NATS store keeps.
var blobDirs = []string{filepath.Join("files", "assets"), "outputs"}

// fileAreasOf is where files live without the object store: the data dir, or the shared
// directory of --blob-store DIR (which must exist).
func (a *App) fileAreasOf() (*fileAreas, error) {
	switch s := a.cfg.Blobs.Store; s {
	case "":
		return &fileAreas{kind: blobsLocal, root: a.cfg.DataDir}, nil
	case BlobStoreNATS:
		return &fileAreas{kind: blobsNATS, root: a.cfg.DataDir}, nil
	default:
		dir, err := filepath.Abs(s)
		if err != nil {
			return nil, fmt.Errorf("--blob-store %s: %w", s, err)
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--blob-store %s: not a directory (mount the shared filesystem first, or use --blob-store nats)", s)
		}
		if err := probeWrite(dir); err != nil {
			return nil, fmt.Errorf("--blob-store %s: cannot write there: %w", s, err)
		}
		return &fileAreas{kind: blobsDir, root: dir}, nil
	}
}

// openFileAreas is fileAreasOf with the NATS store opened (joining NATS: dialCluster).
func (a *App) openFileAreas() (*fileAreas, error) {
	f, err := a.fileAreasOf()
	if err != nil || f.kind != blobsNATS {
		return f, err
	}
	if !a.cfg.Cluster.enabled() {
		return nil, errors.New("--blob-store nats keeps files in the NATS object store: it needs --cluster-listen or --nats")
	}
	if f.store, err = a.openBlobStore(f.root, blobDirs); err != nil {
		return nil, err
	}
	return f, nil
}

// openBlobStore joins NATS (dialCluster) and opens the NATS store with its copies under
// root (dirs: the subdirectories it takes in, blob.Config.Dirs).
func (a *App) openBlobStore(root string, dirs []string) (*blob.Store, error) {
	if err := a.dialCluster(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	objs, err := cluster.OpenFileObjects(ctx, a.cluster.conn, a.cfg.Blobs.Replicas)
	if err != nil {
		return nil, fmt.Errorf("--blob-store nats: %w", err)
	}
	return blob.New(blob.Config{Root: root, Dirs: dirs, Objects: objs, MaxBytes: a.cfg.Blobs.CacheBytes, Logger: a.logger()})
}

// readFileAreas is fileAreasOf for a process that reads the files beside the servers
// (`cutroom export --workspace`). With nats it fetches them from the object store into
// a scratch directory under the data dir's cache/, removed by Close: the data dir's own
// copies are a node's, which this process leaves alone (the node may be running, on
// PostgreSQL, and evicting them).
func (a *App) readFileAreas() (*fileAreas, error) {
	f, err := a.fileAreasOf()
	if err != nil || f.kind != blobsNATS {
		return f, err
	}
	if len(a.cfg.Cluster.NATS) == 0 {
		return nil, errors.New("--blob-store nats reads the files from the NATS object store: it needs --nats (and --cluster-token or --nats-creds)")
	}
	cache := filepath.Join(a.cfg.DataDir, "cache")
	if err := os.MkdirAll(cache, 0o750); err != nil {
		return nil, err
	}
	if a.scratch, err = os.MkdirTemp(cache, "export-*"); err != nil {
		return nil, err
	}
	f.root = a.scratch
	if f.store, err = a.openBlobStore(f.root, nil); err != nil {
		return nil, err
	}
	return f, nil
}

// check starts the readiness check of the blob store: the shared directory takes a write
// (dir: through probe, bounded), the object store answers (nats: now, within
// cluster.FileObjects.Check's own bound, a network call that ends with its context); the
// data dir's own check covers local.
func (f *fileAreas) check(ctx context.Context, probe *boundedCheck) *checkCall {
	switch {
	case f == nil || f.kind == blobsLocal:
	case f.kind == blobsNATS:
		// bounded by the object store's own check (3 s), run beside the database's ping
		c := &checkCall{done: make(chan struct{}), deadline: time.Now().Add(natsCheckWait)}
		go func() {
			c.word = "ok"
			if f.store.Check(ctx) != nil {
				c.word = "unavailable"
			}
			close(c.done)
		}()
		return c
	default:
		return probe.start(func() string { return writeWord(probeWrite(f.root)) })
	}
	return answered("ok")
}

// natsCheckWait is how long a probe waits for the object store's check, which ends within
// its own 3 s (cluster's checkTimeout): an unanswered check reports "unavailable", the
// word of a NATS that does not answer, before this passes.
const natsCheckWait = 4 * time.Second

func (f *fileAreas) kindWord() string {
	if f == nil {
		return blobsLocal
	}
	return f.kind
}

// PushReport is what PushBlobs put.
type PushReport struct {
	Files int
	Bytes int64
}

// PushBlobs puts every file of dataDir's files area (files/assets) and outputs into the
// NATS object store of --blob-store nats (cluster.FilesName, made with bs.Replicas
// copies when it does not exist), joining the NATS of cs (URLs, token or credentials),
// for moving an install onto it. Files keep their names, so a node started with
// --blob-store nats on that data dir, or on any other, finds them; putting a file again
// replaces its object with the same bytes, so it may run again. Nothing under dataDir
// changes but its blob.IndexName, which then lists the files put (a node on that data dir
// may evict them). each, when set, is called after each file.
func PushBlobs(ctx context.Context, dataDir string, cs ClusterSettings, bs BlobSettings, each func(key string, size int64)) (PushReport, error) {
	var rep PushReport
	if len(cs.NATS) == 0 {
		return rep, errors.New("--nats is required: the NATS servers whose object store takes the files")
	}
	nc, err := cluster.Connect(cluster.ConnConfig{URLs: cs.NATS, Token: cs.Token, Creds: cs.Creds, Name: "cutroom blobs push"})
	if err != nil {
		return rep, err
	}
	defer nc.Close()
	objs, err := cluster.OpenFileObjects(ctx, nc, bs.Replicas)
	if err != nil {
		return rep, err
	}
	// bounded by nothing: the local files are the install's only copies and stay
	store, err := blob.New(blob.Config{Root: dataDir, Objects: objs, MaxBytes: math.MaxInt64})
	if err != nil {
		return rep, err
	}
	for _, d := range blobDirs {
		err := filepath.WalkDir(filepath.Join(dataDir, d), func(p string, de fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || !de.Type().IsRegular() || strings.HasPrefix(de.Name(), ".") {
				return err
			}
			info, err := de.Info()
			if err != nil {
				return err
			}
			if err := store.Put(ctx, p); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			rep.Files++
			rep.Bytes += info.Size()
			if each != nil {
				rel, _ := filepath.Rel(dataDir, p)
				each(filepath.ToSlash(rel), info.Size())
			}
			return nil
		})
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}
