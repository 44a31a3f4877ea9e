package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// objectName is the object store's name of content with SHA-256 sum (hex).
func objectName(sum string) string { return "sha256-" + sum }

// hashFile returns the SHA-256 (hex) and size of a file.
func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// errCorrupt is an object whose content does not hash to its name.
var errCorrupt = errors.New("its content does not match its SHA-256")

// have reports whether the store holds the object of sum, put less than refreshAfter ago
// (never when refreshAfter is 0). An older one is put again by the caller, so that an
// object still in use never reaches the store's TTL.
func have(ctx context.Context, objs jetstream.ObjectStore, sum string, refreshAfter time.Duration) (bool, error) {
	if refreshAfter <= 0 {
		return false, nil
	}
	info, err := objs.GetInfo(ctx, objectName(sum))
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	return time.Since(info.ModTime) < refreshAfter, nil
}

// putFile uploads a file under its hash unless the store has it already (put less than
// refreshAfter ago, see have; 0 uploads it anyway), and returns the hash and size. Having
// an object is judged by its name: a worker puts its segment with 0, so an object of
// other bytes put under the segment's name beforehand is replaced, not joined.
func putFile(ctx context.Context, objs jetstream.ObjectStore, path string, refreshAfter time.Duration) (string, int64, error) {
	sum, n, err := hashFile(path)
	if err != nil {
		return "", 0, err
	}
	if ok, err := have(ctx, objs, sum, refreshAfter); err != nil || ok {
		return sum, n, err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	if _, err := objs.Put(ctx, jetstream.ObjectMeta{Name: objectName(sum)}, f); err != nil {
		return "", 0, fmt.Errorf("upload %s: %w", filepath.Base(path), err)
	}
	return sum, n, nil
}

// putBytes is putFile for bytes in memory.
func putBytes(ctx context.Context, objs jetstream.ObjectStore, b []byte, refreshAfter time.Duration) (string, error) {
	s := sha256.Sum256(b)
	sum := hex.EncodeToString(s[:])
	if ok, err := have(ctx, objs, sum, refreshAfter); err != nil || ok {
		return sum, err
	}
	if _, err := objs.PutBytes(ctx, objectName(sum), b); err != nil {
		return "", err
	}
	return sum, nil
}

// getFile downloads the object of sum to dst (temp file, checked, renamed).
func getFile(ctx context.Context, objs jetstream.ObjectStore, sum, dst string) (int64, error) {
	r, err := objs.Get(ctx, objectName(sum))
	if err != nil {
		return 0, fmt.Errorf("object %s: %w", objectName(sum), err)
	}
	defer r.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".get-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), r)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("download %s: %w", objectName(sum), err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		return 0, fmt.Errorf("download %s: %w (it hashes to %s)", objectName(sum), errCorrupt, got)
	}
	return n, os.Rename(tmp.Name(), dst)
}
