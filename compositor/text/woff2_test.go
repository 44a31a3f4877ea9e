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

// woff2Encode writes a WOFF2 file of the given tables with no transforms (glyf and loca
// stored as they are, transform version 3), the stream compressed with brotli; declared,
// when not nil, replaces each table's declared length (to build hostile files).
func woff2Encode(t testing.TB, flavor uint32, tags []string, tables map[string][]byte, stream []byte, declared func(tag string, n uint32) uint32) []byte {
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
		if tag == "glyf" || tag == "loca" {
			flags |= 3 << 6
		}
		dir = append(dir, flags)
		if idx < 0 {
			dir = append(dir, tag...)
		}
		n := uint32(len(tables[tag]))
		if declared != nil {
			n = declared(tag, n)
		}
		dir = appendBase128(dir, n)
		raw = append(raw, tables[tag]...)
	}
	sfntSize := 12 + 16*len(tags) + len(raw)
	if stream != nil {
		raw = stream
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
	return ttf, woff2Encode(t, flavor, tags, tables, nil, nil)
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
	huge := woff2Encode(t, flavor, tags, tables, nil, func(tag string, n uint32) uint32 {
		if tag == "glyf" {
			return 1 << 30
		}
		return n
	})
	// a brotli bomb: the directory declares the real tables, the stream expands to 256 MiB
	bomb := woff2Encode(t, flavor, tags, tables, make([]byte, 256<<20), nil)
	short := woff2Encode(t, flavor, tags, tables, nil, func(tag string, n uint32) uint32 {
		if tag == "glyf" {
			return n + 10
		}
		return n
	})
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

// FuzzWOFF2 feeds arbitrary bytes to the WOFF2 decoder and renders with what it accepts: an
// uploaded WOFF2 font is untrusted input, and its decoding must be bounded and never panic.
func FuzzWOFF2(f *testing.F) {
	_, w := notoWOFF2(f, "NotoSansHebrew-Regular.ttf")
	f.Add(w)
	f.Add(w[:200])
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
		copy(data, woff2Signature)
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
