package fontpack_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/fontpack"
	"github.com/cutroom/cutroom/internal/fontsourcetest"
)

// treeOf maps every file under dir (relative path) to its content.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// TestPackAndImport: a pack fetched from the loopback registry, imported into another data
// dir, installs the same files as an add; a pack taken from the data dir installs the same
// again, with the registry gone (an air-gapped machine).
func TestPackAndImport(t *testing.T) {
	reg := fontsourcetest.NewRegistry(t, tiktok, inter)
	c := &fontpack.Catalogue{Registry: reg.URL}
	sel := fontpack.Selection{Weights: []int{400, 700}, Subsets: []string{"latin"}}
	added := t.TempDir()
	if _, err := fontpack.Add(context.Background(), c, added, []string{"TikTok Sans", "Inter"}, sel); err != nil {
		t.Fatal(err)
	}
	want := treeOf(t, filepath.Join(added, "fonts"))

	pack := filepath.Join(t.TempDir(), "fonts.tar.gz")
	if _, err := fontpack.Pack(context.Background(), c, "", false, []string{"tiktok sans", "inter"}, sel, pack); err != nil {
		t.Fatal(err)
	}
	reg.Close()
	imported := t.TempDir()
	ms, err := fontpack.Import(imported, pack, fontpack.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Family != "TikTok Sans" {
		t.Fatalf("imported %+v", ms)
	}
	if got := treeOf(t, filepath.Join(imported, "fonts")); !mapsEqual(got, want) {
		t.Fatalf("imported files differ from added ones:\n%v\n%v", keys(got), keys(want))
	}
	if got := dirNames(t, imported); !slices.Equal(got, []string{"fonts"}) {
		t.Fatalf("data dir holds %v after import", got)
	}

	// from the data dir, no registry
	pack2 := filepath.Join(t.TempDir(), "again.tar.gz")
	if _, err := fontpack.Pack(context.Background(), c, imported, true, []string{"Inter", "TIKTOK SANS"}, fontpack.Selection{}, pack2); err != nil {
		t.Fatal(err)
	}
	third := t.TempDir()
	if _, err := fontpack.Import(third, pack2, fontpack.Limits{}); err != nil {
		t.Fatal(err)
	}
	if got := treeOf(t, filepath.Join(third, "fonts")); !mapsEqual(got, want) {
		t.Fatal("a pack of the data dir's families installs other files")
	}
	if _, err := fontpack.Pack(context.Background(), c, imported, true, []string{"Roboto"}, fontpack.Selection{}, pack2); err == nil ||
		!strings.Contains(err.Error(), "not installed") {
		t.Fatalf("pack of a family not installed: %v", err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// entry is one entry of a hand-made pack.
type entry struct {
	name     string
	typeflag byte
	body     []byte
	link     string
	size     int64 // when > 0, the header's size (the body is then zeros of that length)
}

// goodFamily returns the entries of a valid family "inter" with one font file.
func goodFamily() []entry {
	font := []byte("wOF2 a font")
	lic := []byte("OFL")
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	m := fontpack.Manifest{Format: 1, Family: "Inter", ID: "inter", Version: "1",
		License: fontpack.File{Path: "LICENSE", Size: int64(len(lic)), SHA256: sum(lic)},
		Files: []fontpack.FontFile{{File: fontpack.File{Path: "inter-latin-400-normal.woff2", Size: int64(len(font)), SHA256: sum(font)},
			Weight: 400, Style: "normal", Subset: "latin"}}}
	mb, _ := json.Marshal(m)
	return []entry{
		{name: "fontpack.json", body: []byte(`{"format":1,"families":["inter"]}`)},
		{name: "inter/manifest.json", body: mb},
		{name: "inter/LICENSE", body: lic},
		{name: "inter/inter-latin-400-normal.woff2", body: font},
	}
}

func writeTarGz(t *testing.T, path string, ents []entry) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range ents {
		h := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: e.typeflag, Linkname: e.link, Size: int64(len(e.body))}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if e.size > 0 {
			h.Size = e.size
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.size > 0 {
			zeros := make([]byte, 1<<20)
			for left := e.size; left > 0; left -= int64(len(zeros)) {
				if _, err := tw.Write(zeros[:min(left, int64(len(zeros)))]); err != nil {
					t.Fatal(err)
				}
			}
		} else if h.Typeflag == tar.TypeReg {
			tw.Write(e.body)
		}
	}
	tw.Close()
	gz.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestImportRefusesHostilePacks: a pack whose entries leave the family layout (absolute
// paths, "..", nested directories, links, devices, duplicates), whose files do not match
// their manifest, or that unpacks to more than the bounds is refused whole: nothing is
// installed, nothing is written outside the data dir, and no staging directory remains.
func TestImportRefusesHostilePacks(t *testing.T) {
	good := goodFamily()
	with := func(extra ...entry) []entry { return append(slices.Clone(good), extra...) }
	replace := func(i int, e entry) []entry { out := slices.Clone(good); out[i] = e; return out }
	small := fontpack.Limits{MaxUnpackedBytes: 4 << 20, MaxFileBytes: 1 << 20, MaxFiles: 50}
	cases := []struct {
		name string
		ents []entry
		lim  fontpack.Limits
		is   error
	}{
		{"absolute path", with(entry{name: "/tmp/evil.woff2", body: []byte("wOF2")}), small, fontpack.ErrBadPack},
		{"dot-dot", with(entry{name: "../evil.woff2", body: []byte("wOF2")}), small, fontpack.ErrBadPack},
		{"dot-dot inside", with(entry{name: "inter/../../evil", body: []byte("x")}), small, fontpack.ErrBadPack},
		{"nested", with(entry{name: "inter/sub/x.woff2", body: []byte("wOF2")}), small, fontpack.ErrBadPack},
		{"hidden", with(entry{name: "inter/.hidden", body: []byte("x")}), small, fontpack.ErrBadPack},
		{"symlink", with(entry{name: "inter/link.woff2", typeflag: tar.TypeSymlink, link: "/etc/passwd"}), small, fontpack.ErrBadPack},
		{"hardlink", with(entry{name: "inter/hard.woff2", typeflag: tar.TypeLink, link: "/etc/passwd"}), small, fontpack.ErrBadPack},
		{"device", with(entry{name: "inter/dev", typeflag: tar.TypeChar}), small, fontpack.ErrBadPack},
		{"symlinked family", append([]entry{{name: "inter", typeflag: tar.TypeSymlink, link: "/tmp"}}, good...), small, fontpack.ErrBadPack},
		{"duplicate", with(good[3]), small, fontpack.ErrBadPack},
		{"unlisted file", with(entry{name: "inter/extra.woff2", body: []byte("wOF2 x")}), small, fontpack.ErrBadPack},
		{"unlisted family", with(entry{name: "roboto/LICENSE", body: []byte("x")}), small, fontpack.ErrBadPack},
		{"hash mismatch", replace(3, entry{name: good[3].name, body: []byte("wOF2 a fonT")}), small, fontpack.ErrBadPack},
		{"size mismatch", replace(3, entry{name: good[3].name, body: []byte("wOF2 a font!")}), small, fontpack.ErrBadPack},
		{"missing file", good[:3], small, fontpack.ErrBadPack},
		{"no index", good[1:], small, fontpack.ErrBadPack},
		{"no manifest", []entry{good[0], good[2], good[3]}, small, fontpack.ErrBadPack},
		// the bomb: 64 MiB of zeros compress to about 64 KiB
		{"bomb", with(entry{name: "inter/big.woff2", size: 64 << 20}), small, fontpack.ErrTooLarge},
		// files each within the file bound that unpack to more than the total bound
		{"many files", func() []entry {
			out := slices.Clone(good)
			for i := range 8 {
				out = append(out, entry{name: "inter/z" + strings.Repeat("z", i) + ".woff2", size: 1<<20 - 1})
			}
			return out
		}(), small, fontpack.ErrTooLarge},
		{"too many entries", func() []entry {
			out := slices.Clone(good)
			for i := range 60 {
				out = append(out, entry{name: "inter/f" + strings.Repeat("x", i) + ".woff2", body: []byte("wOF2")})
			}
			return out
		}(), small, fontpack.ErrTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			data := filepath.Join(root, "data")
			pack := filepath.Join(root, "pack.tar.gz")
			writeTarGz(t, pack, tc.ents)
			_, err := fontpack.Import(data, pack, tc.lim)
			if err == nil || !errors.Is(err, tc.is) {
				t.Fatalf("err %v, want %v", err, tc.is)
			}
			if got := treeOf(t, data); len(got) != 0 {
				t.Fatalf("the data dir holds %v", keys(got))
			}
			if got := dirNames(t, data); len(got) != 0 {
				t.Fatalf("the data dir holds %v", got)
			}
			if got := dirNames(t, root); !slices.Equal(got, []string{"data", "pack.tar.gz"}) {
				t.Fatalf("written beside the data dir: %v", got)
			}
		})
	}
	// the good pack itself installs
	root := t.TempDir()
	writeTarGz(t, filepath.Join(root, "p.tgz"), good)
	if _, err := fontpack.Import(filepath.Join(root, "data"), filepath.Join(root, "p.tgz"), small); err != nil {
		t.Fatal(err)
	}
	// not gzip at all
	os.WriteFile(filepath.Join(root, "junk"), []byte("PK\x03\x04 a zip"), 0o644)
	if _, err := fontpack.Import(filepath.Join(root, "data"), filepath.Join(root, "junk"), small); err == nil {
		t.Fatal("junk imported")
	}
	// too large a file to start with
	if _, err := fontpack.Import(filepath.Join(root, "data"), filepath.Join(root, "p.tgz"), fontpack.Limits{MaxDownloadBytes: 10}); !errors.Is(err, fontpack.ErrTooLarge) {
		t.Fatalf("compressed bound: %v", err)
	}
}
