package fontpack

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// ManifestFile is the name of the manifest in a family's directory.
const ManifestFile = "manifest.json"

// manifestFormat is the version of the manifest's layout.
const manifestFormat = 1

// Manifest describes one installed family: where it came from, its licence and every font
// file, with what a browser's @font-face rule says of it.
type Manifest struct {
	Format int `json:"format"`
	// Family is the family name text items use (the package's metadata.json family).
	Family string `json:"family"`
	// ID is the fontsource id, the family's directory name.
	ID      string `json:"id"`
	Version string `json:"version"`
	Source  Source `json:"source"`
	License File   `json:"license"`
	// Files are the font files in the order of the package's @font-face rules: by style,
	// then weight, then subset as the package's unicode.json lists them. A browser's
	// unicode-range selection tries the rules of one face declared last first, so the
	// order is part of how the family draws.
	Files []FontFile `json:"files"`
}

// Source is where a family's files came from: the npm package, its tarball and the
// integrity hash the registry gave for it (checked when it was fetched).
type Source struct {
	Registry  string `json:"registry"`
	Package   string `json:"package"`
	Tarball   string `json:"tarball"`
	Integrity string `json:"integrity"`
	// License is the licence's SPDX id from the package's metadata ("OFL-1.1").
	License string `json:"license,omitempty"`
}

// File is a file of a family's directory with its size and SHA-256 (hex).
type File struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// FontFile is one font file: the face it holds (weight, style) and the characters it
// covers (the subset's unicode-range, as in the package's @font-face rules).
type FontFile struct {
	File
	Weight       int    `json:"weight"`
	Style        string `json:"style"`
	Subset       string `json:"subset"`
	UnicodeRange string `json:"unicodeRange,omitempty"`
}

// Weights returns the weights of m's files, ascending, each once.
func (m *Manifest) Weights() []int {
	var out []int
	for _, f := range m.Files {
		if !slices.Contains(out, f.Weight) {
			out = append(out, f.Weight)
		}
	}
	sort.Ints(out)
	return out
}

// Styles returns the styles of m's files, sorted, each once.
func (m *Manifest) Styles() []string { return m.distinct(func(f FontFile) string { return f.Style }) }

// Subsets returns the subsets of m's files, sorted, each once.
func (m *Manifest) Subsets() []string { return m.distinct(func(f FontFile) string { return f.Subset }) }

func (m *Manifest) distinct(of func(FontFile) string) []string {
	var out []string
	for _, f := range m.Files {
		if v := of(f); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// check reports what makes m unusable as the manifest of directory id: names, styles and
// weights out of range, duplicates, no font file.
func (m *Manifest) check(id string) error {
	switch {
	case m.Format != manifestFormat:
		return fmt.Errorf("manifest format %d, want %d", m.Format, manifestFormat)
	case m.ID != id:
		return fmt.Errorf("manifest id %q in directory %q", m.ID, id)
	case strings.TrimSpace(m.Family) == "" || len(m.Family) > maxNameLen:
		return errors.New("manifest has no family name")
	case len(m.Files) == 0:
		return errors.New("manifest lists no font file")
	case !validFile(m.License.Path) || m.License.Path == ManifestFile:
		return fmt.Errorf("licence file name %q", m.License.Path)
	}
	seen := map[string]bool{m.License.Path: true}
	for _, f := range m.Files {
		if !validFile(f.Path) || f.Path == ManifestFile || seen[f.Path] {
			return fmt.Errorf("font file name %q (invalid or listed twice)", f.Path)
		}
		seen[f.Path] = true
		if fontKind(f.Path) == "" {
			return fmt.Errorf("%s: not a font file name (.woff2, .woff, .ttf, .otf)", f.Path)
		}
		if f.Weight < 1 || f.Weight > 1000 || !slices.Contains(styles, f.Style) {
			return fmt.Errorf("%s: weight %d or style %q out of range", f.Path, f.Weight, f.Style)
		}
	}
	return nil
}

// Verify reads the manifest of the family directory dir (named by its id) and checks
// every file it lists against its size and SHA-256, font files against their format's
// signature, and that the directory holds nothing else.
func Verify(dir string) (Manifest, error) {
	id := filepath.Base(dir)
	var m Manifest
	raw, err := readBounded(filepath.Join(dir, ManifestFile), maxMetaBytes)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("%s: %s: %w", id, ManifestFile, err)
	}
	if err := m.check(id); err != nil {
		return m, fmt.Errorf("%s: %w", id, err)
	}
	want := map[string]File{m.License.Path: m.License}
	for _, f := range m.Files {
		want[f.Path] = f.File
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return m, err
	}
	for _, e := range ents {
		if e.Name() == ManifestFile {
			continue
		}
		if _, ok := want[e.Name()]; !ok || !e.Type().IsRegular() {
			return m, fmt.Errorf("%s: %s is not listed in the manifest", id, e.Name())
		}
	}
	for _, f := range want {
		if err := checkFile(filepath.Join(dir, f.Path), f); err != nil {
			return m, fmt.Errorf("%s: %w", id, err)
		}
	}
	return m, nil
}

// checkFile compares a file with its size, SHA-256 and, for a font, its signature.
func checkFile(path string, want File) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() || st.Size() != want.Size {
		return fmt.Errorf("%s: %d bytes, the manifest says %d", want.Path, st.Size(), want.Size)
	}
	h := sha256.New()
	head := &prefix{n: 4}
	if _, err := io.Copy(io.MultiWriter(h, head), fh); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want.SHA256 {
		return fmt.Errorf("%s: SHA-256 %s, the manifest says %s", want.Path, got, want.SHA256)
	}
	if kind := fontKind(want.Path); kind != "" && !signatureOK(kind, head.b) {
		return fmt.Errorf("%s: not a %s file", want.Path, kind)
	}
	return nil
}

// styles are the font-style values of faces.
var styles = []string{"normal", "italic", "oblique"}

// fontKind returns the format of a font file by its name, "" for another file.
func fontKind(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".woff2":
		return "WOFF2"
	case ".woff":
		return "WOFF"
	case ".ttf", ".otf":
		return "OpenType"
	}
	return ""
}

// signatureOK reports whether a font file's first bytes are its format's.
func signatureOK(kind string, head []byte) bool {
	switch kind {
	case "WOFF2":
		return bytes.Equal(head, []byte("wOF2"))
	case "WOFF":
		return bytes.Equal(head, []byte("wOFF"))
	default:
		return bytes.Equal(head, []byte{0, 1, 0, 0}) || bytes.Equal(head, []byte("OTTO")) || bytes.Equal(head, []byte("true"))
	}
}

// prefix keeps the first n bytes written to it.
type prefix struct {
	n int
	b []byte
}

func (p *prefix) Write(b []byte) (int, error) {
	if k := p.n - len(p.b); k > 0 {
		p.b = append(p.b, b[:min(k, len(b))]...)
	}
	return len(b), nil
}

// readBounded reads a whole file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", filepath.Base(path), limit)
	}
	return b, nil
}

// writeManifest writes m into dir.
func writeManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestFile), append(b, '\n'), 0o644)
}
