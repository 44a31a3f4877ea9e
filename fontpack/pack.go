package fontpack

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// IndexFile is the pack's first entry: its format and the families it holds.
const IndexFile = "fontpack.json"

// packFormat is the version of the pack's layout.
const packFormat = 1

// index is the pack's IndexFile.
type index struct {
	Format   int      `json:"format"`
	Families []string `json:"families"` // ids, one directory each
}

// Pack writes a pack of families to the file out: fetched from the catalogue, or, with
// fromDataDir, taken from dataDir's fonts directory (checked with Verify first; sel is
// then not used). out is written to a temporary file beside it, synced and renamed: it is
// never a partial pack.
func Pack(ctx context.Context, c *Catalogue, dataDir string, fromDataDir bool, families []string, sel Selection, out string) ([]Manifest, error) {
	var ms []Manifest
	src := FontsDir(dataDir)
	if fromDataDir {
		for _, fam := range families {
			m, err := installedFamily(dataDir, fam)
			if err != nil {
				return nil, err
			}
			if _, err := Verify(filepath.Join(src, m.ID)); err != nil {
				return nil, fmt.Errorf("fontpack: %w", err)
			}
			if !slices.ContainsFunc(ms, func(o Manifest) bool { return o.ID == m.ID }) {
				ms = append(ms, m)
			}
		}
	} else {
		stage, err := os.MkdirTemp("", "cutroom-fontpack-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(stage)
		if ms, err = c.Fetch(ctx, families, sel, stage); err != nil {
			return nil, err
		}
		src = stage
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	err = writePack(tmp, src, ms)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	if err != nil {
		return nil, fmt.Errorf("fontpack: writing %s: %w", out, err)
	}
	return ms, nil
}

// writePack writes the tar.gz of the families ms, whose directories are in src.
func writePack(w io.Writer, src string, ms []Manifest) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	idx := index{Format: packFormat}
	for _, m := range ms {
		idx.Families = append(idx.Families, m.ID)
	}
	b, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: IndexFile, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := tw.Write(b); err != nil {
		return err
	}
	for _, m := range ms {
		names := []string{ManifestFile, m.License.Path}
		for _, f := range m.Files {
			names = append(names, f.Path)
		}
		for _, n := range names {
			if err := addFile(tw, filepath.Join(src, m.ID, n), m.ID+"/"+n); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func addFile(tw *tar.Writer, path, name string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: st.Size(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err = io.CopyN(tw, fh, st.Size())
	return err
}

// ErrBadPack is the error of a pack that is not one Pack writes: an entry outside the
// layout (a path with separators or dots, a link or device, a duplicate), a family without
// a manifest, a file its manifest does not list or does not match.
var ErrBadPack = errors.New("fontpack: not a valid font pack")

// Import checks the pack file at path and installs its families into dataDir's fonts
// directory. It reads at most lim's bounds (compressed size, bytes unpacked, entries, one
// file), writes only into a private directory of the data dir, and installs nothing unless
// every family checks out (Verify: every file's size and SHA-256, font signatures, nothing
// unlisted).
func Import(dataDir, path string, lim Limits) ([]Manifest, error) {
	lim = lim.withDefaults()
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil {
		return nil, err
	} else if st.Size() > lim.MaxDownloadBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than %d", ErrTooLarge, path, st.Size(), lim.MaxDownloadBytes)
	}
	stage, err := stagingDir(dataDir)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	u := &unpack{dir: stage, lim: lim}
	if err := walkTarGz(fh, lim, u.entry); err != nil {
		return nil, err
	}
	if err := u.check(); err != nil {
		return nil, err
	}
	ms, err := verifyStaged(stage, u.idx.Families)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPack, err)
	}
	return ms, install(stage, ms, FontsDir(dataDir))
}

// unpack writes a pack's entries into dir.
type unpack struct {
	dir  string
	lim  Limits
	idx  *index
	dirs []string
}

func (u *unpack) entry(h *tar.Header, body io.Reader) error {
	bad := func(why string) error { return fmt.Errorf("%w: entry %q %s", ErrBadPack, h.Name, why) }
	if h.Name == IndexFile && h.Typeflag == tar.TypeReg {
		if u.idx != nil {
			return bad("appears twice")
		}
		u.idx = &index{}
		return decodeBounded(body, u.idx)
	}
	id, name, _ := strings.Cut(strings.TrimSuffix(h.Name, "/"), "/")
	if !validID(id) || strings.HasPrefix(id, ".") {
		return bad("is not <family id>/<file>")
	}
	switch h.Typeflag {
	case tar.TypeDir:
		if name != "" {
			return bad("is a directory inside a family")
		}
		return u.mkdir(id)
	case tar.TypeReg:
	default:
		return bad("is not a regular file (links and devices are refused)")
	}
	if !validFile(name) {
		return bad("is not <family id>/<file>")
	}
	if h.Size > u.lim.MaxFileBytes {
		return fmt.Errorf("%w: %s is %d bytes, more than %d", ErrTooLarge, h.Name, h.Size, u.lim.MaxFileBytes)
	}
	if err := u.mkdir(id); err != nil {
		return err
	}
	if _, err := extract(filepath.Join(u.dir, id), name, body, u.lim.MaxFileBytes); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return bad("appears twice")
		}
		return err
	}
	return nil
}

func (u *unpack) mkdir(id string) error {
	if slices.Contains(u.dirs, id) {
		return nil
	}
	u.dirs = append(u.dirs, id)
	return os.Mkdir(filepath.Join(u.dir, id), 0o755)
}

// check compares what was unpacked with the index (install verifies each family).
func (u *unpack) check() error {
	if u.idx == nil || u.idx.Format != packFormat {
		return fmt.Errorf("%w: no %s of format %d", ErrBadPack, IndexFile, packFormat)
	}
	a, b := slices.Clone(u.idx.Families), slices.Clone(u.dirs)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) || len(a) == 0 {
		return fmt.Errorf("%w: the index lists the families %v, the pack holds %v", ErrBadPack, a, b)
	}
	return nil
}
