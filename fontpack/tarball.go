package fontpack

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrTooLarge is the error of an archive past a bound of Limits (compressed size, bytes
// unpacked, entries, one file's size).
var ErrTooLarge = errors.New("fontpack: archive too large")

// walkTarGz reads a gzip-compressed tar stream within lim: at most MaxDownloadBytes
// compressed, MaxUnpackedBytes decompressed (so that a small archive that unpacks to much
// stops early) and MaxFiles entries. fn gets each entry; what it does not read is read past
// (and counted).
func walkTarGz(r io.Reader, lim Limits, fn func(h *tar.Header, body io.Reader) error) error {
	gz, err := gzip.NewReader(&bounded{r: r, left: lim.MaxDownloadBytes, what: "compressed"})
	if err != nil {
		return fmt.Errorf("fontpack: not a gzip file: %w", err)
	}
	tr := tar.NewReader(&bounded{r: gz, left: lim.MaxUnpackedBytes, what: "unpacked"})
	for n := 0; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("fontpack: reading the archive: %w", err)
		}
		if n >= lim.MaxFiles {
			return fmt.Errorf("%w: more than %d entries", ErrTooLarge, lim.MaxFiles)
		}
		if err := fn(h, tr); err != nil {
			return err
		}
	}
}

// bounded reads at most left bytes of r and fails past them.
type bounded struct {
	r    io.Reader
	left int64
	what string
}

func (b *bounded) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("%w: more than the %s bound", ErrTooLarge, b.what)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, fmt.Errorf("%w: more than the %s bound", ErrTooLarge, b.what)
	}
	return n, err
}

// extract writes body, a file of at most max bytes, to dir/name, a file that must not exist
// yet (dir is a directory this process made; name was checked), and returns its
// description.
func extract(dir, name string, body io.Reader, max int64) (File, error) {
	fh, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return File{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(fh, h), io.LimitReader(body, max+1))
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return File{}, err
	}
	if n > max {
		return File{}, fmt.Errorf("%w: %s is larger than %d bytes", ErrTooLarge, name, max)
	}
	return File{Path: name, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}
