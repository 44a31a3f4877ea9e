package text

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FaceDescription is how a [Library] describes one face of a font file when it describes it
// otherwise than the file's own tables do: a web font subset installed by `cutroom fonts
// add` takes the family, weight, style, unicode-range and rule order of its @font-face rule
// from the family's manifest.json (the file may name itself "TikTok Sans Light" at every
// weight, and covers only part of the characters). [Library.DescribedFaces] reads them; a
// library that has the file without its manifest (a cluster worker) registers it with
// [Library.AddFontFileAs] to describe its faces alike.
type FaceDescription struct {
	// Index is the face's index in the file (0 but for a collection).
	Index int
	// Family is the family the face is matched by.
	Family string
	// Weight is the CSS weight, 1..1000.
	Weight int
	// Italic is true for an italic or oblique face.
	Italic bool
	// UnicodeRange is the CSS unicode-range of the characters the face draws
	// ("U+0000-00FF,U+0131"); empty for every character.
	UnicodeRange string
	// Segment is the face's position among the @font-face rules of its family: among the
	// subsets of one weight and style, the last declared is tried first.
	Segment int
}

// The bounds of a FaceDescription that AddFontFileAs takes (descriptions come from another
// process: a cluster job).
const (
	// maxDescribedFaces bounds the descriptions of one file.
	maxDescribedFaces = 256
	// maxDescribedFamily bounds a described family name, in bytes.
	maxDescribedFamily = 256
	// maxDescribedRange bounds a described unicode-range, in bytes (a CJK subset's is a few
	// KiB; the 100 subsets of a fontsource CJK family hold about 16k ranges in all).
	maxDescribedRange = 64 << 10
	// maxDescribedSegment bounds a described rule position.
	maxDescribedSegment = 1 << 16
)

// DescribedFaces returns the faces of the font file at path (added with AddFontFile or
// AddFontFileAs, or found in a font directory) that the library describes otherwise than
// the file does, in index order: the subsets of a family installed with its manifest.json,
// and faces added with AddFontFileAs. Nil when there is none: the file describes itself.
func (l *Library) DescribedFaces(path string) []FaceDescription {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var out []FaceDescription
	for _, e := range l.entries {
		if e.described && e.path == path && (e.src == sourceAdded || e.src == sourceDir) {
			out = append(out, FaceDescription{Index: e.index, Family: e.family, Weight: e.weight, Italic: e.italic,
				UnicodeRange: e.ranges.String(), Segment: e.segment})
		}
	}
	slices.SortFunc(out, func(a, b FaceDescription) int { return a.Index - b.Index })
	return out
}

// AddFontFileAs registers the font file at path as [Library.AddFontFile] does, describing
// each face faces names (by Index) as faces says rather than as the file does; a face of
// the file that faces does not name describes itself. Descriptions are checked: at most 256,
// each index once and a face of the file, a family of 1..256 bytes of printable UTF-8, a
// weight of 1..1000, a unicode-range that parses (at most 64 KiB) and a segment of
// 0..65536; anything else fails with ErrFontInvalid and registers nothing.
func (l *Library) AddFontFileAs(path string, faces []FaceDescription) error {
	as, err := checkDescriptions(faces)
	if err != nil {
		return errorf(ErrFontInvalid, "%s: %v", path, err)
	}
	data, err := readFontFile(path)
	if err != nil {
		return err
	}
	if err := l.addData(data, path, sourceAdded, as); err != nil {
		return err
	}
	l.fontsAdded()
	return nil
}

// checkDescriptions checks faces against the bounds of AddFontFileAs and returns them by
// index.
func checkDescriptions(faces []FaceDescription) (map[int]packFace, error) {
	if len(faces) > maxDescribedFaces {
		return nil, fmt.Errorf("%d face descriptions, at most %d", len(faces), maxDescribedFaces)
	}
	out := make(map[int]packFace, len(faces))
	for i, f := range faces {
		_, twice := out[f.Index]
		switch {
		case f.Index < 0 || twice:
			return nil, fmt.Errorf("face description %d: index %d is negative or described twice", i, f.Index)
		case len(f.Family) > maxDescribedFamily || !utf8.ValidString(f.Family) || familyKey(f.Family) == "" ||
			strings.ContainsFunc(f.Family, func(r rune) bool { return !unicode.IsPrint(r) }):
			return nil, fmt.Errorf("face description %d: family %.40q is empty, longer than %d bytes or not printable UTF-8",
				i, f.Family, maxDescribedFamily)
		case f.Weight < 1 || f.Weight > 1000:
			return nil, fmt.Errorf("face description %d: weight %d is not 1..1000", i, f.Weight)
		case f.Segment < 0 || f.Segment > maxDescribedSegment:
			return nil, fmt.Errorf("face description %d: segment %d is not 0..%d", i, f.Segment, maxDescribedSegment)
		case len(f.UnicodeRange) > maxDescribedRange:
			return nil, fmt.Errorf("face description %d: unicode-range of %d bytes, at most %d", i, len(f.UnicodeRange), maxDescribedRange)
		}
		p := packFace{family: f.Family, weight: f.Weight, italic: f.Italic, segment: f.Segment}
		if f.UnicodeRange != "" {
			var err error
			if p.ranges, err = parseUnicodeRange(f.UnicodeRange); err != nil {
				return nil, fmt.Errorf("face description %d: %v", i, err)
			}
		}
		out[f.Index] = p
	}
	return out, nil
}
