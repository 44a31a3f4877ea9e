package assets

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/fuzzseed"
)

// fuzzStore is a store with no records, enough to run the probes.
func fuzzStore(t testing.TB) *Store {
	return &Store{lim: DefaultLimits(), now: time.Now}
}

// FuzzProbe feeds arbitrary bytes through sniffing and every probe: nothing may panic or
// hang, whatever the bytes claim about themselves.
func FuzzProbe(f *testing.F) {
	for _, name := range []string{"video.mp4", "video.mov", "video.webm", "video.mkv", "audio.mp3", "audio.wav",
		"audio.m4a", "audio.aac", "audio.ogg", "audio.opus", "audio.flac", "audio-only.webm", "image.webp", "font.ttf"} {
		if b, err := os.ReadFile(filepath.Join("..", "server", "testdata", "media", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"v":"5","fr":30,"ip":0,"op":60,"layers":[[[{}]]]}`))
	f.Add([]byte(`{"captions":[{"text":"a","startMs":0,"endMs":1}]}`))
	f.Add([]byte("1\n00:00:01,000 --> 00:00:02,000\nx\n"))
	f.Add([]byte("WEBVTT\n\n00:01.000 --> 00:02.000\nx\n"))
	f.Add([]byte(`<svg width="10" height="20"/>`))
	f.Add([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00\x3b"))
	s := fuzzStore(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		format, ok := Sniff(b[:min(len(b), sniffLen)])
		if !ok {
			return
		}
		Compatible("image/png", format)
		p := filepath.Join(dir, "in")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = s.probe(context.Background(), fh, int64(len(b)), format)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("probing %d bytes of %s takes over 5 s", len(b), format.Name)
		}
	})
}

// FuzzLottie feeds arbitrary JSON to the Lottie/captions probe with small budgets: nothing
// may panic or run long, and an accepted Lottie animation is within the budgets (its
// layers, counted again here by a plain decode, are at most the limit). Seeds include
// lottiebudget's hostile documents.
func FuzzLottie(f *testing.F) {
	fuzzseed.Files(f, "../lottiebudget/testdata/hostile/*.json")
	f.Add([]byte(`{"v":"5","fr":30,"ip":0,"op":60,"w":9,"h":9,"layers":[{"ty":4,"ks":{"o":{"a":1,"k":[{"t":0,"s":[0]},{"t":9,"s":[100]}]}}}],"assets":[]}`))
	f.Add([]byte(`{"v":"5","fr":30,"ip":0,"op":60,"assets":[{"id":"a","layers":[{"ty":0,"refId":"a"}]}],"layers":[{"ty":0,"refId":"a"}]}`))
	f.Add([]byte(`{"captions":[{"text":"a","startMs":0,"endMs":1}]}`))
	lim := DefaultLimits()
	lim.MaxLottieLayers, lim.MaxLottieDepth, lim.MaxLottieKeyframes, lim.MaxLottieFrames = 50, 4, 50, 1000
	f.Fuzz(func(t *testing.T, b []byte) {
		start := time.Now()
		info, err := classifyJSON(bytes.NewReader(b), lim)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("classifying %d bytes took %v", len(b), d)
		}
		if err != nil || info.format.Type != TypeLottie {
			return
		}
		var doc struct {
			Layers []json.RawMessage `json:"layers"`
			IP, OP float64
		}
		if json.Unmarshal(b, &doc) == nil && (len(doc.Layers) > 50 || doc.OP-doc.IP > 1000) {
			t.Fatalf("accepted %d layers, frames %v..%v", len(doc.Layers), doc.IP, doc.OP)
		}
	})
}

func TestSniffTable(t *testing.T) {
	for _, tc := range []struct {
		head string
		want string
	}{
		{"\x89PNG\r\n\x1a\n", "png"}, {"\xff\xd8\xff\xe0", "jpeg"}, {"GIF89a", "gif"},
		{"RIFF\x00\x00\x00\x00WEBPVP8 ", "webp"}, {"RIFF\x00\x00\x00\x00WAVEfmt ", "wav"},
		{"\x00\x00\x00\x18ftypmp42", "mp4"}, {"\x00\x00\x00\x18ftypqt  ", "mov"}, {"\x00\x00\x00\x18ftypM4A ", "m4a"},
		{"\x00\x00\x00\x18ftypheic", ""}, {"fLaC", "flac"}, {"ID3\x04\x00\x00\x00\x00\x00\x00", "mp3"},
		{"\xff\xfb\x90\x00", "mp3"}, {"\xff\xf1\x50\x80", "aac"}, {"wOFF", "woff"}, {"wOF2", "woff2"},
		{"OTTO", "otf"}, {"\x00\x01\x00\x00\x00\x10\x01\x00\x00\x04\x00\x00", "ttf"},
		{"\xef\xbb\xbf  {\"v\":1}", "json"}, {"[]", "json"}, {"WEBVTT\n", "vtt"}, {"WEBVTTX", ""},
		{"1\n00:00:00,000 --> 00:00:01,000\n", "srt"}, {"<?xml version=\"1.0\"?><svg>", "svg"}, {"<html>", ""},
		{"%PDF-1.7", ""}, {"", ""}, {"OggS\x00\x02" + string(bytes.Repeat([]byte{0}, 22)) + "\x01\x1e\x80theora", ""},
	} {
		f, ok := Sniff([]byte(tc.head))
		if (tc.want == "") == ok || (ok && f.Name != tc.want) {
			t.Errorf("Sniff(%q) = %q %v, want %q", tc.head, f.Name, ok, tc.want)
		}
	}
}

func TestCleanFileName(t *testing.T) {
	for in, want := range map[string]string{
		"../../etc/passwd": "passwd", "a\x00b": "ab", "": "file", "...": "file", "dir/": "file",
		"x%2F..%2Fy.png": "y.png", "100%.png": "100%.png", "\xff\xfe.png": "\uFFFD.png",
	} {
		if got := CleanFileName(in); got != want {
			t.Errorf("CleanFileName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"résumé final.png": "r_sum__final.png", ".htaccess": "htaccess", "ü": "file", "a/b": "a_b"} {
		if got := diskName(in); got != want {
			t.Errorf("diskName(%q) = %q, want %q", in, got, want)
		}
	}
}
