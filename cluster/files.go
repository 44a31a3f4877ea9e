package cluster

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// FilesName is the object store of the API nodes' files (--blob-store nats): uploaded
// assets and export outputs, named by their path under the data dir
// ("files/assets/<workspace>/<asset>/<name>", "outputs/<task>/<task>.<format>"). It is
// apart from ObjectsName, whose objects are named by content and expire.
const FilesName = "cutroom-files"

// checkTimeout bounds one Check of the object store (a readiness probe).
const checkTimeout = 3 * time.Second

// FileObjects is the files' object store over JetStream (blob.Objects: package blob,
// which this package does not import, keeps the local copies).
type FileObjects struct {
	objs  jetstream.ObjectStore
	stall time.Duration // Stall; shorter in tests
}

// OpenFileObjects finds the object store FilesName, creating it (file storage, no TTL,
// replicas copies: 0 is 1) when it does not exist. An existing store keeps its own
// configuration (its replicas included: `nats object add` may make it first, or `nats
// stream edit OBJ_cutroom-files --replicas 3` change it).
func OpenFileObjects(ctx context.Context, nc *nats.Conn, replicas int) (*FileObjects, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	objs, err := js.ObjectStore(ctx, FilesName)
	if errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
		objs, err = js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: FilesName,
			Description: "cutroom: uploaded assets and export outputs", Storage: jetstream.FileStorage,
			Replicas: max(1, replicas)})
		if errors.Is(err, jetstream.ErrBucketExists) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			objs, err = js.ObjectStore(ctx, FilesName) // another node made it meanwhile
		}
	}
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", FilesName, err)
	}
	return &FileObjects{objs: objs, stall: Stall}, nil
}

// Put stores r under name and returns the size and SHA-256 (hex) the store recorded.
func (f *FileObjects) Put(ctx context.Context, name string, r io.Reader) (int64, string, error) {
	info, err := f.objs.Put(ctx, jetstream.ObjectMeta{Name: name}, r)
	if err != nil {
		return 0, "", err
	}
	sum, err := digestHex(info.Digest)
	if err != nil {
		return 0, "", fmt.Errorf("object %s: %w", name, err)
	}
	return int64(info.Size), sum, nil
}

// digestHex is the hex of an Object Store digest ("SHA-256=<base64 url>").
func digestHex(d string) (string, error) {
	b64, ok := strings.CutPrefix(d, "SHA-256=")
	if !ok {
		return "", fmt.Errorf("digest %q is not SHA-256", d)
	}
	raw, err := base64.URLEncoding.DecodeString(b64)
	if err != nil {
		return "", fmt.Errorf("digest %q: %w", d, err)
	}
	return hex.EncodeToString(raw), nil
}

// GetTimeout bounds a Get whose context has no deadline. The NATS client gives such a
// Get 5 s for the whole transfer, which a large video read by a slow writer (a download, a
// copy to disk) outlasted: it failed every time, 8 MB into 64 MiB.
const GetTimeout = 10 * time.Minute

// Stall bounds the wait for a Get's next bytes and a List's next entry. An object deleted
// while it is read (an expired output purged during its download) sends nothing more and
// no error, and the client's read blocks until the transfer's deadline (GetTimeout), deaf
// to a cancelled context (TestFileObjectsGetOfADeletedObjectEnds waited the test binary's
// 10 minutes); a watcher whose connection failed sends nothing more either.
const Stall = 30 * time.Second

// ErrStalled is a Get's error when no bytes came for Stall.
var ErrStalled = errors.New("the object store sent nothing more (was the object deleted while it was read?)")

// Get writes the object of name to w; the Object Store checks the bytes against the digest
// it recorded at the end. A missing object wraps fs.ErrNotExist. Without a deadline on ctx
// the transfer gets GetTimeout. It returns once ctx ends, or with ErrStalled once the
// store sent nothing for Stall (w's own time is not counted): the client's read, which
// only its deadline ends, goes on in a goroutine that hands nothing more to Get and ends at
// that deadline. Only Get writes to w, so nothing does after it returns.
func (f *FileObjects) Get(ctx context.Context, name string, w io.Writer) (int64, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, GetTimeout)
		defer cancel()
	}
	r, err := f.objs.Get(ctx, name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return 0, fmt.Errorf("object %s: %w", name, fs.ErrNotExist)
	}
	if err != nil {
		return 0, err
	}
	chunks, quit := make(chan chunk), make(chan struct{})
	defer close(quit)
	go readChunks(r, chunks, quit)
	stall := time.NewTimer(f.stall)
	defer stall.Stop()
	var n int64
	for {
		select {
		case c := <-chunks:
			if len(c.b) > 0 {
				m, werr := w.Write(c.b)
				n += int64(m)
				if werr != nil {
					return n, werr
				}
			}
			if c.err == io.EOF {
				return n, nil
			}
			if c.err != nil {
				return n, c.err
			}
			stall.Reset(f.stall)
		case <-stall.C:
			return n, fmt.Errorf("object %s: %w", name, ErrStalled)
		case <-ctx.Done():
			return n, ctx.Err()
		}
	}
}

// chunk is a read of an object: bytes, then an error (io.EOF at the end) or none.
type chunk struct {
	b   []byte
	err error
}

// getChunk is the most a chunk holds.
const getChunk = 256 << 10

// readChunks sends r's bytes to chunks, a fresh buffer each, until an error (io.EOF at
// the end, after the digest check), which it sends too; it closes r and ends then, or once
// quit is closed (Get returned).
func readChunks(r io.ReadCloser, chunks chan<- chunk, quit <-chan struct{}) {
	defer r.Close()
	for {
		b := make([]byte, getChunk)
		n, err := io.ReadAtLeast(r, b, 1)
		select {
		case chunks <- chunk{b: b[:n], err: err}:
		case <-quit:
			return
		}
		if err != nil {
			return
		}
	}
}

// Delete removes the object of name; a missing one is no error.
func (f *FileObjects) Delete(ctx context.Context, name string) error {
	err := f.objs.Delete(ctx, name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil
	}
	return err
}

// List calls each with the name and modification time (the NATS server's clock) of every
// object, deleted ones left out, in the store's order (the oldest change first), until
// each returns an error, which List returns. The listing streams: nothing but the entry
// at hand is held. A NATS that stops answering fails it within Stall.
func (f *FileObjects) List(ctx context.Context, each func(name string, mod time.Time) error) error {
	w, err := f.objs.Watch(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return err
	}
	defer func() {
		_ = w.Stop()
		// the watcher's delivery may be blocked on a send: it ends, and closes Updates,
		// once that send is taken
		go func() {
			for range w.Updates() {
			}
		}()
	}()
	stall := time.NewTimer(f.stall)
	defer stall.Stop()
	for {
		select {
		case info, ok := <-w.Updates():
			if !ok { // the subscription ended (its context, the connection)
				if err := ctx.Err(); err != nil {
					return err
				}
				return fmt.Errorf("object store %s: the listing ended early", FilesName)
			}
			if info == nil { // the end of what the store held when the listing began
				return nil
			}
			if err := each(info.Name, info.ModTime); err != nil {
				return err
			}
			stall.Reset(f.stall)
		case <-stall.C:
			return fmt.Errorf("object store %s: the listing stalled (no entry within %s)", FilesName, f.stall)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Check asks the object store for its status (within checkTimeout).
func (f *FileObjects) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	_, err := f.objs.Status(ctx)
	return err
}

// Replicas is how many copies the store keeps (its stream's configuration).
func (f *FileObjects) Replicas(ctx context.Context) (int, error) {
	st, err := f.objs.Status(ctx)
	if err != nil {
		return 0, err
	}
	return st.Replicas(), nil
}
