package text

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
)

// embeddedFonts is read-only data compiled into the binary; it is not mutable state.
//
//go:embed fonts/*.ttf fonts/*.otf
var embeddedFonts embed.FS

// maxFontFileSize bounds the size of one font file the library reads into memory, and of
// the font a WOFF2 file decodes to.
const maxFontFileSize = 64 << 20

// fontFileExts are the extensions of the font files read from font directories.
var fontFileExts = []string{".ttf", ".otf", ".ttc", ".otc", ".woff", ".woff2"}

// LibraryOptions configures where a [Library] finds fonts besides the embedded set.
type LibraryOptions struct {
	// Dirs are font directories filled by the operator (for example `--fonts DIR`). They are
	// scanned recursively for .ttf, .otf, .ttc, .otc, .woff and .woff2 files. Their fonts win
	// over embedded and system fonts of the same family, weight and style.
	Dirs []string
	// IncludeSystem adds the system font directories (SystemDirs, or when empty
	// /usr/share/fonts, /usr/local/share/fonts, ~/.fonts and ~/.local/share/fonts).
	IncludeSystem bool
	// SystemDirs overrides the list of system font directories used when IncludeSystem is set.
	SystemDirs []string
	// CacheFile, when set, names a file that keeps the descriptions of the fonts found in
	// Dirs and the system directories between processes, so that a later library reads only
	// the files added or changed since (their size or modification time differ). A missing,
	// unreadable or outdated cache is rebuilt; one that cannot be written is not an error.
	CacheFile string
	// LayerCacheBytes bounds the memory of cached rendered layers; 0 means 128 MiB.
	LayerCacheBytes int64
	// MaskCacheBytes bounds the memory of cached glyph masks; 0 means 64 MiB.
	MaskCacheBytes int64
}

func (o LibraryOptions) layerCacheBytes() int64 {
	if o.LayerCacheBytes > 0 {
		return o.LayerCacheBytes
	}
	return 128 << 20
}

func (o LibraryOptions) maskCacheBytes() int64 {
	if o.MaskCacheBytes > 0 {
		return o.MaskCacheBytes
	}
	return 64 << 20
}

// layerCost is the memory a cached layer holds.
func layerCost(l *Layer) int64 {
	if l == nil || l.Image == nil {
		return 64
	}
	return int64(len(l.Image.Pix)) + 64
}

// maskCost is the memory a cached glyph mask holds.
func maskCost(m *mask) int64 {
	if m == nil || m.img == nil {
		return 16
	}
	return int64(len(m.img.Pix)) + 48
}

// source ranks where a face came from; a lower value wins among equal matches.
type source int

const (
	sourceAdded source = iota
	sourceDir
	sourceEmbedded
	sourceSystem
)

// faceEntry is one font face known to a Library. Its metadata is read when the file is
// scanned; the face itself is parsed on first use.
type faceEntry struct {
	id     int
	family string
	key    string
	weight int
	italic bool
	// stretch is the width as a fraction of normal (1).
	stretch float64
	src     source
	path    string
	index   int
	data    []byte
	// embedded names the file in embeddedFonts for embedded faces, read on first use.
	embedded string
	// root is the entry of LibraryOptions.Dirs the face was found under (sourceDir).
	root string
	// ranges is the face's CSS unicode-range (a web font subset); nil covers everything.
	ranges runeRanges
	// segment is the face's position among the subsets of one @font-face set (same family,
	// weight, style and source): a browser tries the faces declared last first.
	segment int
	// described is set when the face is described otherwise than its file does: by a
	// manifest.json beside it or AddFontFileAs (DescribedFaces).
	described bool
	// group is, for a face with ranges, its @font-face set: the faces of the same family,
	// source, weight, style and width with ranges, the last declared first. register sets
	// it under the write lock (faces added with AddFontFileAs join the set of faces already
	// rendered with), so it is read under the read lock (Library.segmentFace).
	group []*faceEntry

	once  sync.Once
	face  *font.Face
	err   error
	color bool

	// bitmapMu guards bitmapFace, a private Face used to read colour bitmap glyphs and their
	// extents (a Face caches extents and is not safe for concurrent use).
	bitmapMu   sync.Mutex
	bitmapFace *font.Face
}

// hasColorBitmaps reports whether the face draws glyphs from colour bitmap strikes (CBDT or
// sbix), like Noto Color Emoji.
func (e *faceEntry) hasColorBitmaps() bool {
	f, err := e.load()
	return err == nil && f != nil && e.color
}

// load parses the face once and returns it.
func (e *faceEntry) load() (*font.Face, error) {
	e.once.Do(func() {
		defer func() {
			// A malformed font must not take the process down.
			if r := recover(); r != nil {
				e.face, e.err = nil, errorf(ErrFontInvalid, "font %s: %v", e.path, r)
			}
		}()
		data := e.data
		if data == nil && e.embedded != "" {
			b, err := readEmbedded(e.embedded)
			if err != nil {
				e.err = err
				return
			}
			data = b
		}
		if data == nil {
			b, err := readFontFile(e.path)
			if err != nil {
				e.err = err
				return
			}
			data = b
		}
		data, err := sfntData(e.path, data)
		if err != nil {
			e.err = err
			return
		}
		faces, err := font.ParseTTC(bytes.NewReader(data))
		if err != nil {
			e.err = fmt.Errorf("text: parse font %s: %w", e.path, err)
			return
		}
		if e.index >= len(faces) {
			e.err = fmt.Errorf("text: font %s has no face %d", e.path, e.index)
			return
		}
		e.face = faces[e.index]
		e.color = len(e.face.BitmapSizes()) > 0
	})
	return e.face, e.err
}

// Library holds the fonts available to text rendering and the caches of shaped layouts,
// glyph masks and rendered layers. It is safe for concurrent use.
type Library struct {
	mu       sync.RWMutex
	entries  []*faceEntry
	byFamily map[string][]*faceEntry
	// fallback lists, per family key, the families tried in order when the requested
	// family lacks a glyph.
	fallback []string
	// fonts counts the font additions (fontsAdded): the caches of layouts, layers and
	// per-rune faces are keyed with it, so that a render that began before an addition and
	// ends after it does not leave what it made with the earlier fonts for later renders.
	fonts atomic.Uint64

	shapeMu sync.Mutex
	shaper  *shaperState

	layouts *lru[layoutKey, *layout]
	masks   *lru[maskKey, *mask]
	colors  *lru[maskKey, *colorGlyph]
	layers  *lru[layerKey, *Layer]

	runeFaces sync.Map // runeFaceKey -> *faceEntry
}

// defaultFallbackFamilies lists the families tried first, in order, before every other
// family the library knows.
func defaultFallbackFamilies() []string {
	return []string{
		"noto sans", "noto sans arabic", "noto sans hebrew", "noto sans devanagari",
		"noto sans cjk sc", "noto color emoji", "symbola", "noto serif", "noto sans mono",
	}
}

// embeddedFaces describes the faces of the embedded fonts, so that a library knows them
// without reading the files: a face's bytes are read (and parsed) on its first use only.
// TestEmbeddedFacesDescribeTheFiles checks it against the files.
var embeddedFaces = []struct {
	file string
	face faceRecord
}{
	{"fonts/NotoColorEmoji.ttf", faceRecord{"Noto Color Emoji", 400, false, 1, 0}},
	{"fonts/NotoSans-Bold.ttf", faceRecord{"Noto Sans", 700, false, 1, 0}},
	{"fonts/NotoSans-BoldItalic.ttf", faceRecord{"Noto Sans", 700, true, 1, 0}},
	{"fonts/NotoSans-Italic.ttf", faceRecord{"Noto Sans", 400, true, 1, 0}},
	{"fonts/NotoSans-Regular.ttf", faceRecord{"Noto Sans", 400, false, 1, 0}},
	{"fonts/NotoSans-SemiBold.ttf", faceRecord{"Noto Sans", 600, false, 1, 0}},
	{"fonts/NotoSansArabic-Bold.ttf", faceRecord{"Noto Sans Arabic", 700, false, 1, 0}},
	{"fonts/NotoSansArabic-Regular.ttf", faceRecord{"Noto Sans Arabic", 400, false, 1, 0}},
	{"fonts/NotoSansCJKsc-Subset-Bold.otf", faceRecord{"Noto Sans CJK SC", 700, false, 1, 0}},
	{"fonts/NotoSansCJKsc-Subset-Regular.otf", faceRecord{"Noto Sans CJK SC", 400, false, 1, 0}},
	{"fonts/NotoSansDevanagari-Bold.ttf", faceRecord{"Noto Sans Devanagari", 700, false, 1, 0}},
	{"fonts/NotoSansDevanagari-Regular.ttf", faceRecord{"Noto Sans Devanagari", 400, false, 1, 0}},
	{"fonts/NotoSansHebrew-Bold.ttf", faceRecord{"Noto Sans Hebrew", 700, false, 1, 0}},
	{"fonts/NotoSansHebrew-Regular.ttf", faceRecord{"Noto Sans Hebrew", 400, false, 1, 0}},
	{"fonts/NotoSansMono-Bold.ttf", faceRecord{"Noto Sans Mono", 700, false, 1, 0}},
	{"fonts/NotoSansMono-Regular.ttf", faceRecord{"Noto Sans Mono", 400, false, 1, 0}},
	{"fonts/NotoSerif-Bold.ttf", faceRecord{"Noto Serif", 700, false, 1, 0}},
	{"fonts/NotoSerif-Italic.ttf", faceRecord{"Noto Serif", 400, true, 1, 0}},
	{"fonts/NotoSerif-Regular.ttf", faceRecord{"Noto Serif", 400, false, 1, 0}},
	{"fonts/Symbola.ttf", faceRecord{"Symbola", 400, false, 0.875, 0}},
}

// genericFamilies maps CSS generic family names to embedded families.
func genericFamily(key string) string {
	switch key {
	case "sans-serif", "system-ui", "ui-sans-serif", "":
		return "noto sans"
	case "serif", "ui-serif":
		return "noto serif"
	case "monospace", "ui-monospace":
		return "noto sans mono"
	case "emoji":
		return "noto color emoji"
	}
	return key
}

// NewLibrary returns a Library with the embedded fonts, the fonts in opts.Dirs and, when
// opts.IncludeSystem is set, the system fonts. A directory that does not exist is skipped;
// a font file that cannot be parsed is skipped. Nothing makes it fail today (the embedded
// fonts are described in the binary); the error is kept for sources that may.
func NewLibrary(opts LibraryOptions) (*Library, error) {
	l := &Library{
		byFamily: map[string][]*faceEntry{},
		shaper:   newShaperState(),
		layouts:  newLRU[layoutKey, *layout](512, 0, nil),
		masks:    newLRU[maskKey](16384, opts.maskCacheBytes(), maskCost),
		layers:   newLRU[layerKey](256, opts.layerCacheBytes(), layerCost),
		colors: newLRU[maskKey](4096, opts.maskCacheBytes(), func(c *colorGlyph) int64 {
			if c == nil {
				return 16
			}
			return int64(len(c.img.Pix)) + 48
		}),
	}
	embedded := make([]*faceEntry, 0, len(embeddedFaces))
	for _, f := range embeddedFaces {
		e := f.face.entry(sourceEmbedded, "embedded:"+f.file)
		e.embedded = f.file
		embedded = append(embedded, e)
	}
	embedded = append(embedded, embeddedWebFaces()...)
	l.register(embedded)
	var cache *fontCache
	if opts.CacheFile != "" {
		cache = loadFontCache(opts.CacheFile)
		defer cache.save()
	}
	for _, dir := range opts.Dirs {
		l.scanDir(dir, sourceDir, cache)
	}
	if opts.IncludeSystem {
		dirs := opts.SystemDirs
		if len(dirs) == 0 {
			dirs = []string{"/usr/share/fonts", "/usr/local/share/fonts"}
			if home, err := os.UserHomeDir(); err == nil && home != "" {
				dirs = append(dirs, filepath.Join(home, ".fonts"), filepath.Join(home, ".local", "share", "fonts"))
			}
		}
		for _, dir := range dirs {
			l.scanDir(dir, sourceSystem, cache)
		}
	}
	l.rebuildFallback()
	return l, nil
}

// AddFontFile registers the font file at path (TTF, OTF, a TTC collection, WOFF or WOFF2),
// for example an uploaded font asset. Its faces win over every other source with the same family, weight
// and style. Cached layouts and layers are dropped, so later renders use the new faces.
func (l *Library) AddFontFile(path string) error { return l.AddFontFileAs(path, nil) }

// fontsAdded rebuilds the fallback order and forgets every layout, layer and per-rune face
// choice made with the fonts there were before.
func (l *Library) fontsAdded() {
	l.rebuildFallback()
	l.fonts.Add(1)
	l.layouts.clear()
	l.layers.clear()
	l.runeFaces.Range(func(k, _ any) bool { l.runeFaces.Delete(k); return true })
}

// Additions counts the font additions since the library was built: a drawing of text
// kept outside the library (a prepared compositor) is stale once it changed.
func (l *Library) Additions() uint64 { return l.fonts.Load() }

// AddFontData registers a font from memory (TTF, OTF, TTC, WOFF or WOFF2 bytes); name
// identifies it in errors. It behaves like [Library.AddFontFile].
func (l *Library) AddFontData(name string, data []byte) error {
	if err := l.addData(bytes.Clone(data), name, sourceAdded, nil); err != nil {
		return err
	}
	l.fontsAdded()
	return nil
}

// Families returns the family names the library knows, sorted case-insensitively, each once
// (the families of [Library.FamilyInfos]).
func (l *Library) Families() []string {
	infos := l.FamilyInfos()
	out := make([]string, 0, len(infos))
	for _, fi := range infos {
		out = append(out, fi.Family)
	}
	return out
}

// readFontFile reads a font file with a size cap.
func readFontFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("text: font file: %w", err)
	}
	if st.Size() > maxFontFileSize {
		return nil, errorf(ErrFontTooLarge, "font file %s is larger than %d bytes", path, maxFontFileSize)
	}
	return os.ReadFile(path)
}

// addData registers every face of a font file held in memory, parsed on first use; the
// faces as names by index are described so (AddFontFileAs), the others as the file does.
func (l *Library) addData(data []byte, name string, src source, as map[int]packFace) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errorf(ErrFontInvalid, "%s: %v", name, r)
		}
	}()
	sfnt, err := sfntData(name, data)
	if err != nil {
		return err
	}
	lds, err := ot.NewLoaders(bytes.NewReader(sfnt))
	if err != nil {
		return errorf(ErrFontInvalid, "%s is not a TrueType/OpenType/WOFF/WOFF2 font: %v", name, err)
	}
	var added []*faceEntry
	for i, ld := range lds {
		desc, _ := font.Describe(ld, nil)
		if desc.Family == "" {
			continue
		}
		e := newEntry(desc, src, name, i)
		e.data = sfnt
		if p, ok := as[i]; ok {
			e.describe(p)
		}
		added = append(added, e)
	}
	if len(added) == 0 {
		return errorf(ErrFontInvalid, "%s has no usable face", name)
	}
	for i := range as {
		if !slices.ContainsFunc(added, func(e *faceEntry) bool { return e.index == i }) {
			return errorf(ErrFontInvalid, "%s has no usable face %d to describe", name, i)
		}
	}
	l.register(added)
	return nil
}

// newEntry builds a face entry from a font description.
func newEntry(desc font.Description, src source, path string, index int) *faceEntry {
	w := int(desc.Aspect.Weight + 0.5)
	if w <= 0 {
		w = 400
	}
	stretch := float64(desc.Aspect.Stretch)
	if stretch <= 0 {
		stretch = 1
	}
	return &faceEntry{
		stretch: stretch,
		family:  desc.Family,
		key:     familyKey(desc.Family),
		weight:  w,
		italic:  desc.Aspect.Style == font.StyleItalic,
		src:     src,
		path:    path,
		index:   index,
	}
}

// familyKey normalises a family name for matching: case-insensitive, surrounding quotes and
// spaces removed, inner runs of spaces collapsed.
func familyKey(s string) string {
	s = strings.TrimSpace(s)
	s = strings.Trim(s, `"'`)
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// register adds entries under the write lock.
func (l *Library) register(entries []*faceEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range entries {
		e.id = len(l.entries)
		l.entries = append(l.entries, e)
		list := append(l.byFamily[e.key], e)
		sort.SliceStable(list, func(i, j int) bool { return list[i].src < list[j].src })
		l.byFamily[e.key] = list
	}
	for _, e := range entries {
		if e.ranges != nil {
			e.group = nil
			for _, o := range l.byFamily[e.key] {
				if o.ranges != nil && o.src == e.src && o.weight == e.weight && o.italic == e.italic && o.stretch == e.stretch {
					e.group = append(e.group, o)
				}
			}
			sort.SliceStable(e.group, func(i, j int) bool { return e.group[i].segment > e.group[j].segment })
			for _, o := range e.group {
				o.group = e.group
			}
		}
	}
}

// scanDir registers every font file under dir, described through cache when it is not nil;
// faces are parsed lazily.
func (l *Library) scanDir(dir string, src source, cache *fontCache) {
	if cache != nil {
		cache.scanning(dir)
	}
	var entries []*faceEntry
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && path != dir {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		ext := strings.ToLower(filepath.Ext(path))
		if !slices.Contains(fontFileExts, ext) {
			return nil
		}
		if cache != nil {
			entries = append(entries, cache.describe(path, d, src)...)
		} else {
			entries = append(entries, describeFile(path, src)...)
		}
		return nil
	})
	for _, e := range entries {
		e.root = dir
	}
	applyPackManifests(entries)
	if len(entries) > 0 {
		l.register(entries)
	}
}

// describeFile reads the metadata of the faces in one font file; it returns nothing when the
// file is not a usable font.
func describeFile(path string, src source) (out []*faceEntry) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() > maxFontFileSize {
		return nil
	}
	var res font.Resource = f
	var magic [4]byte
	if _, err := f.ReadAt(magic[:], 0); err == nil && isWOFF2(magic[:]) {
		// WOFF2 is compressed as a whole: decode it to read its names
		b, err := io.ReadAll(io.LimitReader(f, maxFontFileSize+1))
		if err != nil {
			return nil
		}
		sfnt, err := sfntData(path, b)
		if err != nil {
			return nil
		}
		res = bytes.NewReader(sfnt)
	}
	lds, err := ot.NewLoaders(res)
	if err != nil {
		return nil
	}
	for i, ld := range lds {
		desc, _ := font.Describe(ld, nil)
		if desc.Family == "" {
			continue
		}
		out = append(out, newEntry(desc, src, path, i))
	}
	return out
}

// rebuildFallback orders the families tried for glyphs the requested family lacks: the
// embedded script families first, then runtime-added and operator fonts, then system fonts.
func (l *Library) rebuildFallback() {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[string]bool{}
	var order []string
	for _, k := range defaultFallbackFamilies() {
		if _, ok := l.byFamily[k]; ok && !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	var rest []string
	for k := range l.byFamily {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Slice(rest, func(i, j int) bool {
		si, sj := l.byFamily[rest[i]][0].src, l.byFamily[rest[j]][0].src
		if si != sj {
			return si < sj
		}
		return rest[i] < rest[j]
	})
	l.fallback = append(order, rest...)
}

// matchFamily returns the best face of a family for weight and italic following the CSS font
// matching algorithm, or nil when the family is unknown or none of its faces loads.
func (l *Library) matchFamily(key string, weight int, italic bool) *faceEntry {
	l.mu.RLock()
	list := l.byFamily[key]
	l.mu.RUnlock()
	if len(list) == 0 {
		return nil
	}
	// CSS matches font-stretch first: the normal width, else the nearest narrower one,
	// else the nearest wider one.
	best := math.Inf(1)
	for _, e := range list {
		best = math.Min(best, stretchRank(e.stretch))
	}
	var widths []*faceEntry
	for _, e := range list {
		if stretchRank(e.stretch) == best {
			widths = append(widths, e)
		}
	}
	// Then style: italic faces when italic is asked and any exist, else normal faces.
	var cands []*faceEntry
	for _, pass := range []bool{italic, !italic} {
		for _, e := range widths {
			if e.italic == pass {
				cands = append(cands, e)
			}
		}
		if len(cands) > 0 {
			break
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		ri, rj := weightRank(weight, cands[i].weight), weightRank(weight, cands[j].weight)
		if ri != rj {
			return ri < rj
		}
		if cands[i].src != cands[j].src {
			return cands[i].src < cands[j].src
		}
		// Among the subsets of one @font-face set, the primary font (line metrics) is the
		// first whose unicode-range holds the space, as in Chromium.
		si, sj := cands[i].ranges.contains(' '), cands[j].ranges.contains(' ')
		if si != sj {
			return si
		}
		return cands[i].segment > cands[j].segment
	})
	for _, e := range cands {
		if _, err := e.load(); err == nil {
			return e
		}
	}
	return nil
}

// stretchRank orders widths for font-stretch: normal: lower is better.
func stretchRank(s float64) float64 {
	if s <= 1 {
		return 1 - s
	}
	return 10 + s - 1
}

// weightRank orders available weights for a desired weight as CSS Fonts 4 §5.2 does: a lower
// rank is a better match.
func weightRank(desired, w int) int {
	d := w - desired
	if d == 0 {
		return 0
	}
	abs := d
	if abs < 0 {
		abs = -abs
	}
	switch {
	case desired >= 400 && desired <= 500:
		// Heavier up to 500 first, then lighter (nearest first), then heavier than 500.
		if d > 0 && w <= 500 {
			return abs
		}
		if d < 0 {
			return 1000 + abs
		}
		return 2000 + abs
	case desired < 400:
		if d < 0 {
			return abs
		}
		return 1000 + abs
	default:
		if d > 0 {
			return abs
		}
		return 1000 + abs
	}
}

// primaryFace resolves a style's family (or the default sans family) to a face.
func (l *Library) primaryFace(family string, weight int, italic bool) *faceEntry {
	for _, part := range strings.Split(family, ",") {
		key := genericFamily(familyKey(part))
		if e := l.matchFamily(key, weight, italic); e != nil {
			return e
		}
	}
	if e := l.matchFamily("noto sans", weight, italic); e != nil {
		return e
	}
	l.mu.RLock()
	keys := append([]string(nil), l.fallback...)
	l.mu.RUnlock()
	for _, k := range keys {
		if e := l.matchFamily(k, weight, italic); e != nil {
			return e
		}
	}
	return nil
}

// runeFaceKey identifies a cached fallback decision.
type runeFaceKey struct {
	fonts   uint64 // Library.fonts
	primary int
	weight  int
	italic  bool
	r       rune
}

// faceForRune returns the face used for r: the primary face when it has a glyph for r,
// otherwise the first fallback family (best weight and style) that has one, otherwise the
// primary face (which then shows its missing-glyph box).
func (l *Library) faceForRune(primary *faceEntry, weight int, italic bool, r rune) *faceEntry {
	if primary.ranges == nil && hasGlyph(primary, r) && !preferEmojiFont(r) {
		return primary
	}
	k := runeFaceKey{l.fonts.Load(), primary.id, weight, italic, r}
	if v, ok := l.runeFaces.Load(k); ok {
		return v.(*faceEntry)
	}
	l.mu.RLock()
	keys := append([]string(nil), l.fallback...)
	l.mu.RUnlock()
	found := (*faceEntry)(nil)
	if preferEmojiFont(r) {
		for _, fam := range emojiFamilies() {
			if found = l.segmentFace(l.matchFamily(fam, weight, italic), r); found != nil {
				break
			}
		}
	}
	if found == nil {
		found = l.segmentFace(primary, r)
	}
	for _, key := range keys {
		if found != nil {
			break
		}
		found = l.segmentFace(l.matchFamily(key, weight, italic), r)
	}
	if found == nil {
		found = primary
	}
	l.runeFaces.Store(k, found)
	return found
}

// emojiFamilies lists the emoji families preferred for emoji code points, colour first: Noto
// Color Emoji (embedded; an operator's or uploaded font of that family wins over it), then
// Symbola's monochrome outlines for what it lacks.
func emojiFamilies() []string {
	return []string{"noto color emoji", "symbola"}
}

// segmentFace returns the face that draws r for the @font-face set e belongs to, as a
// browser chooses it: the first face, the last declared first, whose unicode-range holds r
// and whose font has a glyph for it; for a face without ranges, e itself when it has the
// glyph. Nil when none has.
func (l *Library) segmentFace(e *faceEntry, r rune) *faceEntry {
	if e == nil || e.ranges == nil {
		if hasGlyph(e, r) {
			return e
		}
		return nil
	}
	l.mu.RLock()
	group := e.group // register builds a new slice, never changes one
	l.mu.RUnlock()
	for _, o := range group {
		if o.ranges.contains(r) && hasGlyph(o, r) {
			return o
		}
	}
	return nil
}

// hasGlyph reports whether the entry's face maps r to a glyph.
func hasGlyph(e *faceEntry, r rune) bool {
	if e == nil {
		return false
	}
	f, err := e.load()
	if err != nil {
		return false
	}
	_, ok := f.NominalGlyph(r)
	return ok
}

// preferEmojiFont reports whether r is an emoji that should come from the emoji font even when
// the text font has a glyph for it: the supplementary emoji blocks, and below them the
// characters whose Emoji_Presentation is Yes (emoji-data.txt, Unicode 15). Text-default
// symbols (☺, ☂, ♞, ❤ without VS16) stay with the text font when it has them, as in Chromium.
func preferEmojiFont(r rune) bool {
	if r >= 0x1F000 && r <= 0x1FAFF {
		return true
	}
	if r < 0x231A || r > 0x2B55 {
		return false
	}
	// the BMP ranges with Emoji_Presentation=Yes
	ranges := [...][2]rune{
		{0x231A, 0x231B}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0}, {0x23F3, 0x23F3}, {0x25FD, 0x25FE},
		{0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F}, {0x2693, 0x2693}, {0x26A1, 0x26A1},
		{0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5}, {0x26CE, 0x26CE}, {0x26D4, 0x26D4},
		{0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5}, {0x26FA, 0x26FA}, {0x26FD, 0x26FD},
		{0x2705, 0x2705}, {0x270A, 0x270B}, {0x2728, 0x2728}, {0x274C, 0x274C}, {0x274E, 0x274E},
		{0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797}, {0x27B0, 0x27B0}, {0x27BF, 0x27BF},
		{0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55},
	}
	for _, rg := range ranges {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

// FamilyFiles returns the files of the faces the library has from added files and font
// directories (not embedded or system fonts) whose family is one of families (compared
// without case), each once. The cluster's coordinator sends them to workers, which have
// their own embedded and system fonts; the library scanned them already, so only the
// matching files are looked at (still there).
func (l *Library) FamilyFiles(families []string) []string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var out []string
	for _, e := range l.entries {
		if (e.src != sourceAdded && e.src != sourceDir) || slices.Contains(out, e.path) {
			continue
		}
		for _, f := range families {
			// a face added from memory (AddFontData) has a name, not a file
			if strings.EqualFold(e.family, f) {
				if st, err := os.Stat(e.path); err == nil && st.Mode().IsRegular() {
					out = append(out, e.path)
				}
				break
			}
		}
	}
	return out
}
