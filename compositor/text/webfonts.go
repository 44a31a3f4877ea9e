package text

import (
	"bytes"
	"embed"
	"encoding/json"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// webFonts holds the web fonts fetched at build time by scripts/fonts.sh: one directory per
// fontsource package (webfonts/<id>/) with its metadata.json, unicode.json, LICENSE and the
// WOFF2 files of the embedded subsets. Without them it holds only webfonts/README.md, and
// the library has no web fonts (WebFontsMissing says which). Read-only data, not state.
//
//go:embed webfonts
var webFonts embed.FS

// webFontFamilies lists the families the build embeds, by fontsource id (the package
// name), in the order of scripts/webfonts.sha256 (TestWebFontPinsMatchTheFamilies).
var webFontFamilies = []struct{ id, family string }{
	{"inter", "Inter"},
	{"tiktok-sans", "TikTok Sans"},
}

// WebFontsMissing returns the web font families this binary was meant to embed and does
// not (built without scripts/fonts.sh, as a plain `go build` does): a text item naming one
// is drawn with the fallback. Empty for a complete build.
func WebFontsMissing() []string {
	var out []string
	for _, f := range webFontFamilies {
		if faces, err := webFontFaces(f.id); err != nil || len(faces) == 0 {
			out = append(out, f.family)
		}
	}
	return out
}

// WebFontsEmbedded returns the web font families embedded in this binary.
func WebFontsEmbedded() []string {
	var out []string
	for _, f := range webFontFamilies {
		if faces, err := webFontFaces(f.id); err == nil && len(faces) > 0 {
			out = append(out, f.family)
		}
	}
	return out
}

// webFontMeta is what the library reads of a fontsource package's metadata.json.
type webFontMeta struct {
	Family string `json:"family"`
}

// webFontFaces describes the faces of one embedded fontsource package as its CSS declares
// them: the family of metadata.json, weight and style from each file's name
// (<id>-<subset>-<weight>-<normal|italic>.woff2), the subset's unicode-range from
// unicode.json, and its position there, which is the order of fontsource's @font-face rules
// (a browser tries the rules declared last first).
func webFontFaces(id string) ([]*faceEntry, error) {
	dir := path.Join("webfonts", id)
	mb, err := webFonts.ReadFile(path.Join(dir, "metadata.json"))
	if err != nil {
		return nil, err
	}
	var meta webFontMeta
	if err := json.Unmarshal(mb, &meta); err != nil || meta.Family == "" {
		return nil, errorf(ErrFontInvalid, "%s/metadata.json names no family: %v", dir, err)
	}
	ub, err := webFonts.ReadFile(path.Join(dir, "unicode.json"))
	if err != nil {
		return nil, err
	}
	subsets, ranges, err := orderedRanges(ub)
	if err != nil {
		return nil, errorf(ErrFontInvalid, "%s/unicode.json: %v", dir, err)
	}
	files, err := fs.Glob(webFonts, path.Join(dir, id+"-*.woff2"))
	if err != nil {
		return nil, err
	}
	var out []*faceEntry
	for _, file := range files {
		parts := strings.Split(strings.TrimSuffix(path.Base(file), ".woff2"), "-")
		if len(parts) < 3 {
			continue
		}
		style, weightS := parts[len(parts)-1], parts[len(parts)-2]
		subset := strings.TrimPrefix(strings.Join(parts[:len(parts)-2], "-"), id+"-")
		weight, err := strconv.Atoi(weightS)
		seg := slices.Index(subsets, subset)
		if err != nil || weight < 1 || weight > 1000 || seg < 0 || (style != "normal" && style != "italic") {
			return nil, errorf(ErrFontInvalid, "%s: not <id>-<subset>-<weight>-<style>.woff2 of a subset in unicode.json", file)
		}
		out = append(out, &faceEntry{family: meta.Family, key: familyKey(meta.Family), weight: weight, italic: style == "italic",
			stretch: 1, src: sourceEmbedded, path: "embedded:" + file, embedded: file, ranges: ranges[seg], segment: seg})
	}
	return out, nil
}

// orderedRanges reads unicode.json ({"subset": "U+...", ...}) keeping its order.
func orderedRanges(b []byte) (names []string, ranges []runeRanges, err error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errorf(ErrFontInvalid, "not a JSON object")
	}
	for dec.More() {
		var name, value string
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ = t.(string)
		if err := dec.Decode(&value); err != nil {
			return nil, nil, err
		}
		rs, err := parseUnicodeRange(value)
		if err != nil {
			return nil, nil, err
		}
		names, ranges = append(names, name), append(ranges, rs)
	}
	return names, ranges, nil
}

// embeddedWebFaces returns the faces of every embedded web font family; a family whose
// files are absent adds none.
func embeddedWebFaces() []*faceEntry {
	var out []*faceEntry
	for _, f := range webFontFamilies {
		faces, err := webFontFaces(f.id)
		if err == nil {
			out = append(out, faces...)
		}
	}
	return out
}

// readEmbedded returns the bytes of an embedded font file (fonts/ or webfonts/).
func readEmbedded(name string) ([]byte, error) {
	if strings.HasPrefix(name, "webfonts/") {
		return webFonts.ReadFile(name)
	}
	return embeddedFonts.ReadFile(name)
}
