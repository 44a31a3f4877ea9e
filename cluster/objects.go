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

// have reports whether the store holds the object of sum, put less than refreshAfter ago
// (any age when refreshAfter is 0). An older one is put again by the caller, so that an
// object still in use never reaches the store's TTL.
func have(ctx context.Context, objs jetstream.ObjectStore, sum string, refreshAfter time.Duration) (bool, error) {
	info, err := objs.GetInfo(ctx, objectName(sum))
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	return refreshAfter <= 0 || time.Since(info.ModTime) < refreshAfter, nil
}

// putFile uploads a file under its hash unless the store has it already (put less than
// refreshAfter ago, see have), and returns the hash and size.
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
		return 0, fmt.Errorf("download %s: content hashes to %s", objectName(sum), got)
	}
	return n, os.Rename(tmp.Name(), dst)
}
