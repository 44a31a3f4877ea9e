package text

import (
	"cmp"
	"slices"
	"strings"
)

// Source says where a font face of a [Library] comes from.
type Source string

// The sources of font faces, from the most preferred to the least: among faces that match a
// style equally well, an uploaded face wins over an operator directory's, which wins over an
// embedded one, which wins over a system font.
const (
	// SourceUploaded is a face registered at run time (AddFontFile, AddFontData): an
	// uploaded font asset.
	SourceUploaded Source = "uploaded"
	// SourceDir is a face found in one of LibraryOptions.Dirs (the data dir's fonts
	// directory, --fonts); FaceInfo.Dir names which.
	SourceDir Source = "dir"
	// SourceEmbedded is a face compiled into the binary.
	SourceEmbedded Source = "embedded"
	// SourceSystem is a face from a system font directory.
	SourceSystem Source = "system"
)

// String returns the source's name.
func (s source) String() string { return string(s.public()) }

func (s source) public() Source {
	switch s {
	case sourceAdded:
		return SourceUploaded
	case sourceDir:
		return SourceDir
	case sourceEmbedded:
		return SourceEmbedded
	default:
		return SourceSystem
	}
}

// FaceInfo describes one font face a [Library] can draw with.
type FaceInfo struct {
	// Family is the family name as the face declares it (for embedded web fonts, as their
	// @font-face rules do).
	Family string
	// Weight is the CSS weight, 1..1000.
	Weight int
	// Italic is true for an italic or oblique face.
	Italic bool
	// Stretch is the width as a fraction of normal (1).
	Stretch float64
	// Source says where the face comes from.
	Source Source
	// Dir is the entry of LibraryOptions.Dirs (as given) the face was found under, for
	// SourceDir; empty otherwise.
	Dir string
	// Path is the font file: a file path, the name given to AddFontData, or
	// "embedded:fonts/<file>" for an embedded face.
	Path string
	// UnicodeRange is the CSS unicode-range the face is used for (a web font subset, for
	// example "U+0000-00FF,U+0131"), empty for a face used for every character it has.
	UnicodeRange string
}

// FamilyInfo describes one font family a [Library] knows and the faces it has.
type FamilyInfo struct {
	// Family is the family name (of its most preferred face).
	Family string
	// Faces are the family's faces, ordered by source (uploaded, dir, embedded, system),
	// then weight, then normal before italic.
	Faces []FaceInfo
}

// Weights returns the distinct weights of the family's faces, ascending.
func (f FamilyInfo) Weights() []int {
	var out []int
	for _, fc := range f.Faces {
		out = append(out, fc.Weight)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Styles returns the family's distinct styles: "normal" and/or "italic", in that order.
func (f FamilyInfo) Styles() []string {
	var normal, italic bool
	for _, fc := range f.Faces {
		normal = normal || !fc.Italic
		italic = italic || fc.Italic
	}
	var out []string
	if normal {
		out = append(out, "normal")
	}
	if italic {
		out = append(out, "italic")
	}
	return out
}

// Sources returns the family's distinct sources, most preferred first.
func (f FamilyInfo) Sources() []Source {
	var out []Source
	for _, fc := range f.Faces {
		if !slices.Contains(out, fc.Source) {
			out = append(out, fc.Source)
		}
	}
	return out
}

// FamilyInfos returns every family the library knows with its faces, sorted by family name
// case-insensitively. It reads only what the library recorded when it found the fonts; no
// font file is opened.
func (l *Library) FamilyInfos() []FamilyInfo {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]FamilyInfo, 0, len(l.byFamily))
	for _, list := range l.byFamily {
		if len(list) == 0 {
			continue
		}
		fi := FamilyInfo{Family: list[0].family, Faces: make([]FaceInfo, 0, len(list))}
		for _, e := range list {
			fi.Faces = append(fi.Faces, e.info())
		}
		slices.SortStableFunc(fi.Faces, func(a, b FaceInfo) int {
			return cmp.Or(cmp.Compare(sourceRank(a.Source), sourceRank(b.Source)), cmp.Compare(a.Weight, b.Weight),
				boolRank(a.Italic, b.Italic), cmp.Compare(a.Stretch, b.Stretch))
		})
		out = append(out, fi)
	}
	slices.SortFunc(out, func(a, b FamilyInfo) int {
		return cmp.Compare(strings.ToLower(a.Family), strings.ToLower(b.Family))
	})
	return out
}

// HasFamily reports whether the library has a face of the family a style names: name is a
// single family (compared without case, quotes and extra spaces) or a CSS generic family
// (sans-serif, serif, monospace, system-ui, emoji), which the embedded fonts always provide.
func (l *Library) HasFamily(name string) bool {
	key := genericFamily(familyKey(name))
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.byFamily[key]) > 0
}

// info is the public description of a face entry.
func (e *faceEntry) info() FaceInfo {
	return FaceInfo{Family: e.family, Weight: e.weight, Italic: e.italic, Stretch: e.stretch, Source: e.src.public(),
		Dir: e.root, Path: e.path, UnicodeRange: e.ranges.String()}
}

func sourceRank(s Source) int {
	return slices.Index([]Source{SourceUploaded, SourceDir, SourceEmbedded, SourceSystem}, s)
}

func boolRank(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
