package text

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image/color"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

// sfntTables returns the tables of a TrueType/OpenType file by tag.
func sfntTables(t testing.TB, b []byte) (flavor uint32, tags []string, tables map[string][]byte) {
	t.Helper()
	n := int(binary.BigEndian.Uint16(b[4:]))
	tables = map[string][]byte{}
	for i := 0; i < n; i++ {
		rec := b[12+16*i:]
		tag := string(rec[:4])
		off, length := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
		tags = append(tags, tag)
		tables[tag] = b[off : off+length]
	}
	return binary.BigEndian.Uint32(b), tags, tables
}

// appendBase128 writes v as a WOFF2 UIntBase128.
func appendBase128(out []byte, v uint32) []byte {
	var tmp []byte
	for {
		tmp = append([]byte{byte(v & 0x7F)}, tmp...)
		v >>= 7
		if v == 0 {
			break
		}
	}
	for i := range tmp[:len(tmp)-1] {
		tmp[i] |= 0x80
	}
	return append(out, tmp...)
}

// woff2Options varies what woff2Encode writes.
type woff2Options struct {
	// stream, when set, replaces the tables' bytes in the compressed stream.
	stream []byte
	// declared, when set, gives each table's declared length from its real one.
	declared func(tag string, n uint32) uint32
	// transformed names the tables given already transformed (glyf, loca), with their
	// original lengths.
	transformed map[string]uint32
}

// woff2Encode writes a WOFF2 file of the given tables, the stream compressed with brotli:
// glyf and loca as they are (transform version 3) unless o.transformed names them.
func woff2Encode(t testing.TB, flavor uint32, tags []string, tables map[string][]byte, o woff2Options) []byte {
	t.Helper()
	var dir []byte
	var raw []byte
	for _, tag := range tags {
		idx := -1
		for i, k := range woff2KnownTags {
			if k == tag {
				idx = i
			}
		}
		flags := byte(63)
		if idx >= 0 {
			flags = byte(idx)
		}
		orig, transformed := o.transformed[tag]
		if (tag == "glyf" || tag == "loca") && !transformed {
			flags |= 3 << 6
		}
		dir = append(dir, flags)
		if idx < 0 {
			dir = append(dir, tag...)
		}
		n := uint32(len(tables[tag]))
		if o.declared != nil {
			n = o.declared(tag, n)
		}
		if transformed {
			dir = appendBase128(dir, orig)
		}
		dir = appendBase128(dir, n)
		raw = append(raw, tables[tag]...)
	}
	sfntSize := 12 + 16*len(tags) + len(raw)
	if o.stream != nil {
		raw = o.stream
	}
	var z bytes.Buffer
	w := brotli.NewWriterLevel(&z, 5)
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h := make([]byte, 48)
	copy(h, woff2Signature)
	binary.BigEndian.PutUint32(h[4:], flavor)
	binary.BigEndian.PutUint16(h[12:], uint16(len(tags)))
	binary.BigEndian.PutUint32(h[16:], uint32(sfntSize))
	binary.BigEndian.PutUint32(h[20:], uint32(z.Len()))
	out := append(append(h, dir...), z.Bytes()...)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)))
	return out
}

// notoWOFF2 returns an embedded Noto font and the same font as WOFF2.
func notoWOFF2(t testing.TB, name string) (ttf, woff2 []byte) {
	t.Helper()
	ttf, err := embeddedFonts.ReadFile("fonts/" + name)
	if err != nil {
		t.Fatal(err)
	}
	flavor, tags, tables := sfntTables(t, ttf)
	return ttf, woff2Encode(t, flavor, tags, tables, woff2Options{})
}

func TestWOFF2DecodesToTheSameTables(t *testing.T) {
	ttf, w := notoWOFF2(t, "NotoSansHebrew-Bold.ttf")
	out, err := decodeWOFF2(w, maxFontFileSize)
	if err != nil {
		t.Fatal(err)
	}
	_, wantTags, want := sfntTables(t, ttf)
	_, gotTags, got := sfntTables(t, out)
	if strings.Join(gotTags, ",") != strings.Join(wantTags, ",") {
		t.Fatalf("tables %v, want %v", gotTags, wantTags)
	}
	for tag, b := range want {
		if tag == "head" {
			b = append([]byte(nil), b...)
			copy(b[8:12], got[tag][8:12]) // checkSumAdjustment is recomputed
		}
		if !bytes.Equal(got[tag], b) {
			t.Errorf("table %s differs", tag)
		}
	}
	if s := sfntChecksum(out); s != 0xB1B0AFBA {
		t.Errorf("whole-font checksum %#x, want 0xB1B0AFBA", s)
	}
}

// TestWOFF2FontsRenderLikeTheirTTF adds the same font as TTF to one library and as a WOFF2
// file (through a font directory and as an added file) to others, and compares renders.
func TestWOFF2FontsRenderLikeTheirTTF(t *testing.T) {
	ttf, w := notoWOFF2(t, "NotoSerif-Italic.ttf")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "serif.woff2"), w, 0o644); err != nil {
		t.Fatal(err)
	}
	tx := Text{Content: "Quick brown fox, jumps!", BoxWidth: 400, Style: Style{Family: "Noto Serif", Italic: true, Size: 30,
		LineHeight: 1.2, Color: color.NRGBA{0, 0, 0, 255}}}
	render := func(lib *Library) *Layer {
		l, err := lib.Render(tx)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	fromTTF := newTestLibrary(t)
	if err := fromTTF.AddFontData("serif.ttf", ttf); err != nil {
		t.Fatal(err)
	}
	want := render(fromTTF)

	fromDir, err := NewLibrary(LibraryOptions{Dirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	fi := familyInfo(t, fromDir, "Noto Serif")
	if fi.Faces[0].Source != SourceDir || !strings.HasSuffix(fi.Faces[0].Path, ".woff2") || !fi.Faces[0].Italic {
		t.Fatalf("the WOFF2 file in the font directory was not found: %+v", fi.Faces[0])
	}
	fromFile := newTestLibrary(t)
	if err := fromFile.AddFontFile(filepath.Join(dir, "serif.woff2")); err != nil {
		t.Fatal(err)
	}
	for name, lib := range map[string]*Library{"dir": fromDir, "file": fromFile} {
		got := render(lib)
		if !bytes.Equal(got.Image.Pix, want.Image.Pix) || got.Image.Rect != want.Image.Rect {
			t.Errorf("%s: the WOFF2 render differs from the TTF render", name)
		}
	}
}

func TestWOFF2RefusesHostileFiles(t *testing.T) {
	ttf, good := notoWOFF2(t, "NotoSansHebrew-Regular.ttf")
	flavor, tags, tables := sfntTables(t, ttf)
	huge := woff2Encode(t, flavor, tags, tables, woff2Options{declared: func(tag string, n uint32) uint32 {
		if tag == "glyf" {
			return 1 << 30
		}
		return n
	}})
	// a brotli bomb: the directory declares the real tables, the stream expands to 256 MiB
	bomb := woff2Encode(t, flavor, tags, tables, woff2Options{stream: make([]byte, 256<<20)})
	short := woff2Encode(t, flavor, tags, tables, woff2Options{declared: func(tag string, n uint32) uint32 {
		if tag == "glyf" {
			return n + 10
		}
		return n
	}})
	collection := append([]byte(nil), good...)
	copy(collection[4:], "ttcf")
	for name, c := range map[string]struct {
		data []byte
		msg  string
	}{
		"huge table":       {huge, "more than"},
		"brotli bomb":      {bomb, "the tables declare"},
		"short stream":     {short, "the tables declare"},
		"truncated":        {good[:len(good)-100], "the file has"},
		"collection":       {collection, "collections are not supported"},
		"header only":      {good[:48], "the file has"},
		"bad length field": {append(append([]byte(nil), good...), 0, 0, 0, 0), "the file has"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := sfntData(name, c.data)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrFontInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want ErrFontInvalid saying %q", name, err, c.msg)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 48<<20 {
			t.Errorf("%s: decoding allocated %d MiB", name, alloc>>20)
		}
	}
	lib := newTestLibrary(t)
	if err := lib.AddFontData("bomb.woff2", bomb); !errors.Is(err, ErrFontInvalid) {
		t.Errorf("AddFontData(bomb) = %v, want ErrFontInvalid", err)
	}
}

// transformedGlyf is a glyf table in WOFF2's transformed form (spec §5.1) with three
// glyphs: a triangle (points as triplets of 1, 4 and 1 bytes), a composite of it moved by
// (50, 10) with an explicit bounding box, and an empty glyph.
func transformedGlyf() []byte {
	u16 := func(b []byte, v ...uint16) []byte {
		for _, x := range v {
			b = binary.BigEndian.AppendUint16(b, x)
		}
		return b
	}
	nContours := u16(nil, 1, 0xFFFF, 0)
	nPoints := []byte{3}
	flags := []byte{11, 127, 10}                      // +dx; +dx +dy (4 bytes); -dx
	glyphs := []byte{100, 0, 100, 0x01, 0x2C, 200, 0} // the triplets, then 0 instructions
	composite := u16(nil, 0x0003, 0, 50, 10)          // words, x/y values; glyph 0 at (50, 10)
	bbox := append([]byte{0x40, 0, 0, 0}, u16(nil, 50, 10, 250, 310)...)
	var out []byte
	out = u16(out, 0, 0, 3, 0) // version, options, numGlyphs, short loca
	for _, s := range [][]byte{nContours, nPoints, flags, glyphs, composite, bbox, nil} {
		out = binary.BigEndian.AppendUint32(out, uint32(len(s)))
	}
	for _, s := range [][]byte{nContours, nPoints, flags, glyphs, composite, bbox} {
		out = append(out, s...)
	}
	return out
}

// TestWOFF2RebuildsTransformedGlyf decodes a WOFF2 whose glyf and loca are transformed and
// checks the glyf and loca written, byte for byte.
func TestWOFF2RebuildsTransformedGlyf(t *testing.T) {
	w := woff2Encode(t, 0x00010000, []string{"glyf", "loca"}, map[string][]byte{"glyf": transformedGlyf(), "loca": nil},
		woff2Options{transformed: map[string]uint32{"glyf": 0, "loca": 8}})
	out, err := decodeWOFF2(w, maxFontFileSize)
	if err != nil {
		t.Fatal(err)
	}
	_, _, tables := sfntTables(t, out)
	simple := []byte{
		0, 1, 0, 0, 0, 0, 0, 200, 1, 44, // one contour; box (0,0)-(200,300)
		0, 2, 0, 0, // last point 2; no instructions
		0x33, 0x13, 0x23, // on curve: x +short / y same; x +short / y long; x -short / y same
		100, 100, 200, // x deltas
		0x01, 0x2C, // y delta 300
	}
	comp := []byte{0xFF, 0xFF, 0, 50, 0, 10, 0, 250, 1, 54, 0, 3, 0, 0, 0, 50, 0, 10}
	if want := append(append([]byte(nil), simple...), comp...); !bytes.Equal(tables["glyf"], want) {
		t.Errorf("glyf\n% x\nwant\n% x", tables["glyf"], want)
	}
	if want := []byte{0, 0, 0, 11, 0, 20, 0, 20}; !bytes.Equal(tables["loca"], want) {
		t.Errorf("loca % x, want % x", tables["loca"], want)
	}
	// a composite without its bounding box, and point data cut short, are refused
	noBox := transformedGlyf()
	noBox[len(noBox)-12] = 0
	short := transformedGlyf()
	binary.BigEndian.PutUint32(short[8+12:], 3) // the glyph stream loses its last bytes
	for name, g := range map[string][]byte{"composite without box": noBox, "short glyph stream": short} {
		w := woff2Encode(t, 0x00010000, []string{"glyf", "loca"}, map[string][]byte{"glyf": g, "loca": nil},
			woff2Options{transformed: map[string]uint32{"glyf": 0, "loca": 8}})
		if _, err := sfntData(name, w); !errors.Is(err, ErrFontInvalid) {
			t.Errorf("%s: %v, want ErrFontInvalid", name, err)
		}
	}
}

// FuzzWOFF2 feeds arbitrary bytes to the WOFF2 decoder and renders with what it accepts: an
// uploaded WOFF2 font is untrusted input, and its decoding must be bounded and never panic.
func FuzzWOFF2(f *testing.F) {
	_, w := notoWOFF2(f, "NotoSansHebrew-Regular.ttf")
	f.Add(w)
	f.Add(w[:200])
	f.Add(woff2Encode(f, 0x00010000, []string{"glyf", "loca"}, map[string][]byte{"glyf": transformedGlyf(), "loca": nil},
		woff2Options{transformed: map[string]uint32{"glyf": 0, "loca": 8}}))
	for _, name := range webFontTestFiles(f, "woff2") {
		if strings.Contains(name, "-latin-400-") { // a transformed glyf and loca
			if b, err := readEmbedded(name); err == nil {
				f.Add(b)
			}
		}
	}
	lib, err := NewLibrary(LibraryOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		if !isWOFF2(data) { // the signature is not worth the fuzzer's time
			data = append([]byte(woff2Signature), data[4:]...)
		}
		out, err := decodeWOFF2(data, 8<<20)
		if err != nil {
			return
		}
		if len(out) > 8<<20 {
			t.Fatalf("decoded %d bytes past the limit", len(out))
		}
		if lib.AddFontData("fuzz.woff2", data) == nil {
			_, _ = lib.Render(Text{Content: "Fuzz שלום", BoxWidth: 200, Style: Style{Family: "Noto Sans Hebrew", Size: 20,
				LineHeight: 1.2, Color: color.NRGBA{0, 0, 0, 255}}})
		}
	})
}

// TestWOFF2WithManyTablesEnds decodes a file of 40,000 empty tables: the sfnt header's
// search fields are computed without wrapping 16 bits (they looped for ever at 32,768
// tables or more, found by FuzzWOFF2).
func TestWOFF2WithManyTablesEnds(t *testing.T) {
	tables := map[string][]byte{}
	var tags []string
	for i := 0; i < 40000; i++ {
		tag := string([]byte{'z', 0, byte(i >> 8), byte(i)})
		tags = append(tags, tag)
		tables[tag] = nil
	}
	done := make(chan error, 1)
	go func() {
		_, err := decodeWOFF2(woff2Encode(t, 0x00010000, tags, tables, woff2Options{}), maxFontFileSize)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("decoding 40,000 tables did not end in 20 s")
	}
}
