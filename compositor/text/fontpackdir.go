package text

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
)

// maxManifestBytes bounds the manifest.json read from a font directory.
const maxManifestBytes = 4 << 20

// packManifest is what the library reads of the manifest.json that `cutroom fonts add` and
// `cutroom fonts import` (package fontpack) write beside a web font family's files: the
// family and, per file, the weight, style and unicode-range of its @font-face rule, in the
// order of the family's rules.
type packManifest struct {
	Family string `json:"family"`
	Files  []struct {
		Path         string `json:"path"`
		Weight       int    `json:"weight"`
		Style        string `json:"style"`
		UnicodeRange string `json:"unicodeRange"`
	} `json:"files"`
}

// packFace is what a manifest says of one file: the family, weight and style its
// @font-face rule declares, its unicode-range and its position among the family's rules.
type packFace struct {
	family  string
	weight  int
	italic  bool
	ranges  runeRanges
	segment int
}

// applyPackManifests describes the faces of files that a manifest.json in their directory
// lists as the manifest's @font-face rules do, as the embedded web fonts are described from
// their package (webFontFaces) and as a browser loading the same rules sees them: the
// family, weight and style the rule declares (a static web font file may name itself
// otherwise, "TikTok Sans Light"), its unicode-range and its position among the rules, so
// that the family resolves per character by unicode-range (without them every subset file
// would be a face covering everything, and the first one found would be drawn). A manifest
// that cannot be read, or a file whose rule does not parse, leaves the faces as the files
// describe them.
func applyPackManifests(entries []*faceEntry) {
	byDir := map[string]map[string]packFace{}
	for _, e := range entries {
		dir := filepath.Dir(e.path)
		files, ok := byDir[dir]
		if !ok {
			files = readPackManifest(dir)
			byDir[dir] = files
		}
		if p, ok := files[filepath.Base(e.path)]; ok && e.index == 0 {
			e.family, e.key, e.weight, e.italic = p.family, familyKey(p.family), p.weight, p.italic
			e.ranges, e.segment = p.ranges, p.segment
		}
	}
}

// readPackManifest returns the ranges and positions of the files dir's manifest.json lists
// with a unicode-range; nil without one.
func readPackManifest(dir string) map[string]packFace {
	f, err := os.Open(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var m packManifest
	if err := json.NewDecoder(io.LimitReader(f, maxManifestBytes)).Decode(&m); err != nil {
		return nil
	}
	out := map[string]packFace{}
	if familyKey(m.Family) == "" {
		return nil
	}
	for i, file := range m.Files {
		var rs runeRanges
		if file.UnicodeRange != "" {
			var err error
			if rs, err = parseUnicodeRange(file.UnicodeRange); err != nil {
				continue
			}
		}
		if file.Weight < 1 || file.Weight > 1000 || (file.Style != "normal" && file.Style != "italic" && file.Style != "oblique") {
			continue
		}
		out[file.Path] = packFace{family: m.Family, weight: file.Weight, italic: file.Style != "normal", ranges: rs, segment: i}
	}
	return out
}
