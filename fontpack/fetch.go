package fontpack

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// licenseNames are the licence files a package may have, in order of preference.
var licenseNames = []string{"LICENSE", "LICENSE.txt", "LICENSE.md", "OFL.txt"}

// Fetch fetches each family from the catalogue into dir (a directory per family, named by
// its id, with its selected font files, licence file and manifest) and returns their
// manifests. Only WOFF2 files are kept: every fontsource family has them, and a browser
// loading the package's CSS uses them. A family whose package has no licence file or whose
// metadata names another family is refused.
func (c *Catalogue) Fetch(ctx context.Context, families []string, sel Selection, dir string) ([]Manifest, error) {
	if err := sel.check(); err != nil {
		return nil, err
	}
	var out []Manifest
	for _, fam := range families {
		id := ID(fam)
		if id == "" {
			return nil, fmt.Errorf("%w: %q is no family name", ErrNotInCatalogue, fam)
		}
		if slices.ContainsFunc(out, func(m Manifest) bool { return m.ID == id }) {
			continue
		}
		m, err := c.fetch(ctx, fam, id, sel, dir)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// pkgFile is what a package file tells from its name: files/<id>-<subset>-<weight>-<style>.woff2.
type pkgFile struct {
	name   string
	subset string
	face
}

func parsePkgFile(id, name string) (pkgFile, bool) {
	rest, ok := strings.CutPrefix(name, id+"-")
	if !ok {
		return pkgFile{}, false
	}
	rest, ok = strings.CutSuffix(rest, ".woff2")
	if !ok {
		return pkgFile{}, false
	}
	parts := strings.Split(rest, "-")
	if len(parts) < 3 {
		return pkgFile{}, false
	}
	st := parts[len(parts)-1]
	w, err := strconv.Atoi(parts[len(parts)-2])
	if err != nil || w < 1 || w > 1000 || !slices.Contains(styles, st) {
		return pkgFile{}, false
	}
	return pkgFile{name: name, subset: strings.Join(parts[:len(parts)-2], "-"), face: face{w, st}}, true
}

// pkgMeta is the package's metadata.json.
type pkgMeta struct {
	ID      string   `json:"id"`
	Family  string   `json:"family"`
	Subsets []string `json:"subsets"`
	License struct {
		Type string `json:"type"`
	} `json:"license"`
}

func (c *Catalogue) fetch(ctx context.Context, family, id string, sel Selection, dir string) (Manifest, error) {
	lim := c.Limits.withDefaults()
	rel, err := c.latest(ctx, family, id)
	if err != nil {
		return Manifest{}, err
	}
	tgz := filepath.Join(dir, id+".tgz")
	defer os.Remove(tgz)
	if err := c.download(ctx, rel, tgz, lim); err != nil {
		return Manifest{}, err
	}
	fdir := filepath.Join(dir, id)
	if err := os.Mkdir(fdir, 0o755); err != nil {
		return Manifest{}, err
	}
	st := &staged{id: id, dir: fdir, lim: lim, files: map[string]File{}}
	fh, err := os.Open(tgz)
	if err != nil {
		return Manifest{}, err
	}
	err = walkTarGz(fh, lim, st.entry)
	fh.Close()
	if err != nil {
		return Manifest{}, fmt.Errorf("fontpack: %s@%s: %w", rel.pkg, rel.version, err)
	}
	m, err := st.manifest(family, sel)
	if err != nil {
		return Manifest{}, fmt.Errorf("fontpack: %s@%s: %w", rel.pkg, rel.version, err)
	}
	m.Version = rel.version
	m.Source = Source{Registry: c.registry(), Package: rel.pkg, Tarball: rel.tarball, Integrity: rel.integrity, License: st.meta.License.Type}
	return m, writeManifest(fdir, &m)
}

// staged collects a package's files while its tarball is read.
type staged struct {
	id, dir string
	lim     Limits
	meta    pkgMeta
	unicode map[string]string
	// subsetOrder is unicode.json's keys in their order, the order of the package's
	// @font-face rules.
	subsetOrder []string
	license     string
	files       map[string]File // the WOFF2 files written, by name
	fonts       []pkgFile
}

// entry keeps what the install needs of one tarball entry: the WOFF2 files, the licence,
// metadata.json and unicode.json. npm tarballs hold the package under one top directory
// ("package/"), dropped here.
func (s *staged) entry(h *tar.Header, body io.Reader) error {
	if h.Typeflag != tar.TypeReg {
		return nil
	}
	name := h.Name
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	switch {
	case name == "metadata.json":
		return decodeBounded(body, &s.meta)
	case name == "unicode.json":
		var raw json.RawMessage
		if err := decodeBounded(body, &raw); err != nil {
			return err
		}
		var err error
		s.subsetOrder, s.unicode, err = orderedObject(raw)
		return err
	case slices.Contains(licenseNames, name) && (s.license == "" || slices.Index(licenseNames, name) < slices.Index(licenseNames, s.license)):
		if s.license != "" {
			delete(s.files, s.license)
			os.Remove(filepath.Join(s.dir, s.license))
		}
		s.license = name
	case path.Dir(name) == "files":
		f, ok := parsePkgFile(s.id, path.Base(name))
		if !ok || !validFile(f.name) || s.files[f.name].Path != "" {
			return nil
		}
		s.fonts = append(s.fonts, f)
		name = f.name
	default:
		return nil
	}
	file, err := extract(s.dir, name, body, s.lim.MaxFileBytes)
	if err != nil {
		return err
	}
	s.files[name] = file
	return nil
}

// manifest checks what was read against the request, applies the selection (removing the
// files it leaves out) and describes the rest.
func (s *staged) manifest(family string, sel Selection) (Manifest, error) {
	switch {
	case s.meta.Family == "":
		return Manifest{}, fmt.Errorf("no metadata.json naming the family")
	case !strings.EqualFold(strings.Join(strings.Fields(family), " "), s.meta.Family) && family != s.id:
		return Manifest{}, fmt.Errorf("%w: %q (the package %s is the family %q)", ErrNotInCatalogue, family, packageScope+s.id, s.meta.Family)
	case s.license == "":
		return Manifest{}, fmt.Errorf("the package has no licence file (%s): not installed", strings.Join(licenseNames, ", "))
	case len(s.fonts) == 0:
		return Manifest{}, fmt.Errorf("the package has no WOFF2 font file")
	}
	subsets, err := s.subsets(sel.Subsets)
	if err != nil {
		return Manifest{}, err
	}
	var avail []face
	for _, f := range s.fonts {
		if subsets(f.subset) && !slices.Contains(avail, f.face) {
			avail = append(avail, f.face)
		}
	}
	faces := sel.faces(avail)
	m := Manifest{Format: manifestFormat, Family: s.meta.Family, ID: s.id, License: s.files[s.license]}
	for _, f := range s.fonts {
		if !subsets(f.subset) || !slices.Contains(faces, f.face) {
			if err := os.Remove(filepath.Join(s.dir, f.name)); err != nil {
				return Manifest{}, err
			}
			continue
		}
		m.Files = append(m.Files, FontFile{File: s.files[f.name], Weight: f.weight, Style: f.style, Subset: f.subset,
			UnicodeRange: s.unicodeRange(f.subset)})
	}
	// in the order of the package's @font-face rules: by style and weight, then subsets as
	// unicode.json lists them (a browser tries the rules of one face declared last first)
	sort.SliceStable(m.Files, func(i, j int) bool {
		a, b := m.Files[i], m.Files[j]
		if a.Style != b.Style {
			return a.Style < b.Style
		}
		if a.Weight != b.Weight {
			return a.Weight < b.Weight
		}
		return s.subsetIndex(a.Subset) < s.subsetIndex(b.Subset)
	})
	return m, nil
}

// subsets returns whether a file's subset is selected: without want, those of the package's
// default CSS (unicode.json's); else every named subset, which must be one of the
// package's. The numbered slices of large families (CJK: unicode.json's "[0]", "[1]"...)
// belong to the package's subsets that have no files of their own ("japanese"), so they are
// selected with all subsets or with such a subset.
func (s *staged) subsets(want []string) (func(string) bool, error) {
	if len(want) == 0 {
		// what the package's default CSS declares: the subsets unicode.json lists (a CJK
		// package's whole-script file, "japanese", is only in its own CSS, and would cover
		// every character the slices cover)
		return func(sub string) bool { return len(s.subsetOrder) == 0 || s.subsetIndex(sub) < len(s.subsetOrder) }, nil
	}
	have := map[string]bool{}
	for _, f := range s.fonts {
		have[f.subset] = true
	}
	numbered := false
	for _, w := range want {
		if !have[w] && !contains(s.meta.Subsets, w) {
			known := append([]string(nil), s.meta.Subsets...)
			sort.Strings(known)
			return nil, fmt.Errorf("the family has no subset %q (it has %s)", w, strings.Join(known, ", "))
		}
		if !have[w] {
			numbered = true
		}
	}
	return func(sub string) bool {
		if _, err := strconv.Atoi(sub); err == nil {
			return numbered
		}
		return contains(want, sub)
	}, nil
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }

// unicodeRange is a subset's unicode-range from unicode.json (numbered slices are keyed
// "[N]").
func (s *staged) unicodeRange(subset string) string {
	if r, ok := s.unicode[subset]; ok {
		return r
	}
	return s.unicode["["+subset+"]"]
}

// subsetIndex is a subset's position in unicode.json (after every listed one when absent).
func (s *staged) subsetIndex(subset string) int {
	for i, k := range s.subsetOrder {
		if k == subset || k == "["+subset+"]" {
			return i
		}
	}
	return len(s.subsetOrder)
}

// orderedObject reads a JSON object of strings keeping its keys' order.
func orderedObject(b []byte) ([]string, map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, fmt.Errorf("unicode.json is not a JSON object")
	}
	m := map[string]string{}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := t.(string)
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("unicode.json: %s: %w", k, err)
		}
		if _, dup := m[k]; !dup {
			keys = append(keys, k)
		}
		m[k] = v
	}
	return keys, m, nil
}

// decodeBounded decodes a JSON document of at most maxMetaBytes.
func decodeBounded(r io.Reader, v any) error {
	b, err := io.ReadAll(io.LimitReader(r, maxMetaBytes+1))
	if err != nil {
		return err
	}
	if len(b) > maxMetaBytes {
		return fmt.Errorf("%w: a JSON document larger than %d bytes", ErrTooLarge, maxMetaBytes)
	}
	return json.Unmarshal(b, v)
}
