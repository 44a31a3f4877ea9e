package server_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/imagetest"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/server"
)

const publicURL = "http://127.0.0.1:8787"

func upload(e *env, key, name, ctype string, body []byte, hdr ...string) response {
	e.t.Helper()
	h := append([]string{"x-file-name", name}, hdr...)
	if ctype != "" {
		h = append(h, "Content-Type", ctype)
	}
	return e.do("POST", "/v1/uploads", key, body, h...)
}

func mustUpload(e *env, name, ctype string, body []byte, hdr ...string) map[string]any {
	e.t.Helper()
	r := upload(e, e.keyA, name, ctype, body, hdr...)
	if r.Status != http.StatusCreated {
		e.t.Fatalf("upload %s: %d %s", name, r.Status, r.Body)
	}
	return r.Data()
}

// fetch requests a file link without an API key.
func (e *env) fetch(link string, hdr ...string) response {
	e.t.Helper()
	if !strings.HasPrefix(link, publicURL+"/files/") {
		e.t.Fatalf("link %q is not under %s/files/", link, publicURL)
	}
	return e.do("GET", strings.TrimPrefix(link, publicURL), "", nil, hdr...)
}

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "media", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func encodePNG(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withOrientation inserts an EXIF APP1 segment with the given orientation after the SOI
// of a JPEG (big-endian TIFF, one IFD0 entry).
func withOrientation(t *testing.T, jpg []byte, orientation int) []byte {
	tiff := []byte{'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, byte(orientation), 0, 0, 0, 0, 0, 0, 0, 0}
	seg := append([]byte("Exif\x00\x00"), tiff...)
	app1 := append([]byte{0xff, 0xe1, byte((len(seg) + 2) >> 8), byte(len(seg) + 2)}, seg...)
	return append(append(append([]byte{}, jpg[:2]...), app1...), jpg[2:]...)
}

func encodeGIF(t *testing.T, w, h int, delays ...int) []byte {
	pal := color.Palette{color.Black, color.White}
	g := &gif.GIF{}
	for i, d := range delays {
		fr := image.NewPaletted(image.Rect(0, 0, w, h), pal)
		fr.Pix[i%len(fr.Pix)] = 1
		g.Image = append(g.Image, fr)
		g.Delay = append(g.Delay, d)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const (
	lottieJSON  = `{"v":"5.7.4","fr":30,"ip":0,"op":90,"w":512,"h":256,"nm":"x","layers":[{"ty":4,"ks":{"o":{"a":0,"k":100}},"shapes":[[1,2,{"a":[3]}]]}],"assets":[]}`
	captionJSON = `{"type":"caption","captions":[{"text":"hi","startMs":0,"endMs":1500},{"text":"there","startMs":1500,"endMs":2750,"confidence":null}],"timingGranularity":"line"}`
	captionArr  = `[{"text":"a","startMs":0,"endMs":500},{"text":"b","startMs":500,"endMs":1250}]`
	srtText     = "1\r\n00:00:00,000 --> 00:00:01,500\r\nHello\r\n\r\n2\r\n00:00:01,500 --> 00:00:04,250\r\nWorld\r\n"
	vttText     = "WEBVTT\n\n00:00.000 --> 00:02.000 align:start\nHi\n\n00:02.000 --> 01:03.500\nBye\n"
	svgSized    = `<?xml version="1.0" encoding="UTF-8"?><!-- a comment --><svg xmlns="http://www.w3.org/2000/svg" width="120px" height="80"><rect width="10" height="10"/></svg>`
	svgViewBox  = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 150"><circle r="4"/></svg>`
)

func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

// TestUploadKinds uploads one small real file of every kind, checks the detected type and
// the probed values, and fetches each back through its signed link.
func TestUploadKinds(t *testing.T) {
	e := newEnv(t)
	type want struct {
		typ, mime string
		w, h      int     // 0: null
		dur       float64 // <0: null
	}
	cases := []struct {
		name, ctype string
		body        []byte
		want        want
	}{
		{"a.png", "image/png", encodePNG(t, 30, 20), want{"image", "image/png", 30, 20, -1}},
		{"a.jpg", "image/jpeg", encodeJPEG(t, 33, 17), want{"image", "image/jpeg", 33, 17, -1}},
		{"portrait.jpg", "image/jpeg", withOrientation(t, encodeJPEG(t, 33, 17), 6), want{"image", "image/jpeg", 17, 33, -1}},
		{"upright.jpg", "image/jpeg", withOrientation(t, encodeJPEG(t, 33, 17), 3), want{"image", "image/jpeg", 33, 17, -1}},
		{"a.webp", "image/webp", testdata(t, "image.webp"), want{"image", "image/webp", 40, 30, -1}},
		{"still.gif", "image/gif", encodeGIF(t, 10, 12, 0), want{"gif", "image/gif", 10, 12, -1}},
		{"anim.gif", "image/gif", encodeGIF(t, 10, 12, 20, 30, 50), want{"gif", "image/gif", 10, 12, 1.0}},
		{"a.svg", "image/svg+xml", []byte(svgSized), want{"image", "image/svg+xml", 120, 80, -1}},
		{"vb.svg", "", []byte(svgViewBox), want{"image", "image/svg+xml", 300, 150, -1}},
		{"v.mp4", "video/mp4", testdata(t, "video.mp4"), want{"video", "video/mp4", 64, 48, 1.0}},
		{"portrait.mp4", "video/mp4", testdata(t, "video-rot90.mp4"), want{"video", "video/mp4", 48, 64, 1.0}},
		{"v.mov", "video/quicktime", testdata(t, "video.mov"), want{"video", "video/quicktime", 64, 48, 1.0}},
		{"v.webm", "video/webm", testdata(t, "video.webm"), want{"video", "video/webm", 64, 48, 1.0}},
		{"v.mkv", "application/octet-stream", testdata(t, "video.mkv"), want{"video", "video/x-matroska", 80, 60, 2.0}},
		// curl --data-binary's default Content-Type declares nothing about the file
		{"curl.mp4", "application/x-www-form-urlencoded", testdata(t, "video.mp4"), want{"video", "video/mp4", 64, 48, 1.0}},
		{"a.mp3", "audio/mpeg", testdata(t, "audio.mp3"), want{"audio", "audio/mpeg", 0, 0, 1.0}},
		{"a.wav", "audio/wav", testdata(t, "audio.wav"), want{"audio", "audio/wav", 0, 0, 1.0}},
		{"a.m4a", "audio/mp4", testdata(t, "audio.m4a"), want{"audio", "audio/mp4", 0, 0, 1.0}},
		{"a.aac", "audio/aac", testdata(t, "audio.aac"), want{"audio", "audio/aac", 0, 0, 1.0}},
		{"a.ogg", "audio/ogg", testdata(t, "audio.ogg"), want{"audio", "audio/ogg", 0, 0, 1.0}},
		{"a.opus", "audio/opus", testdata(t, "audio.opus"), want{"audio", "audio/ogg", 0, 0, 1.0}},
		{"a.flac", "audio/flac", testdata(t, "audio.flac"), want{"audio", "audio/flac", 0, 0, 1.0}},
		{"a.webm", "audio/webm", testdata(t, "audio-only.webm"), want{"audio", "audio/webm", 0, 0, 1.0}},
		{"f.ttf", "font/ttf", testdata(t, "font.ttf"), want{"font", "font/ttf", 0, 0, -1}},
		{"f.otf", "font/otf", testdata(t, "font.otf"), want{"font", "font/otf", 0, 0, -1}},
		{"f.woff", "font/woff", testdata(t, "font.woff"), want{"font", "font/woff", 0, 0, -1}},
		{"f.woff2", "font/woff2", testdata(t, "font.woff2"), want{"font", "font/woff2", 0, 0, -1}},
		{"anim.json", "application/json", []byte(lottieJSON), want{"lottie", "application/json", 512, 256, 3.0}},
		{"cap.json", "application/json", []byte(captionJSON), want{"caption", "application/json", 0, 0, 2.75}},
		{"arr.json", "", []byte(captionArr), want{"caption", "application/json", 0, 0, 1.25}},
		{"a.srt", "application/x-subrip", []byte(srtText), want{"caption", "application/x-subrip", 0, 0, 4.25}},
		{"a.vtt", "text/vtt", []byte(vttText), want{"caption", "text/vtt", 0, 0, 63.5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := mustUpload(e, tc.name, tc.ctype, tc.body)
			if d["type"] != tc.want.typ || d["mimetype"] != tc.want.mime || d["source"] != "upload" || d["filename"] != tc.name {
				t.Fatalf("type/mimetype/source/filename %v/%v/%v/%v, want %s/%s/upload/%s", d["type"], d["mimetype"], d["source"], d["filename"], tc.want.typ, tc.want.mime, tc.name)
			}
			if size, _ := num(d["size"]); int(size) != len(tc.body) {
				t.Fatalf("size %v, want %d", d["size"], len(tc.body))
			}
			for _, k := range []string{"width", "height", "duration"} {
				if _, present := d[k]; !present {
					t.Fatalf("member %s missing: %v", k, d)
				}
			}
			if tc.want.w == 0 {
				if d["width"] != nil || d["height"] != nil {
					t.Fatalf("width/height %v/%v, want null", d["width"], d["height"])
				}
			} else if w, _ := num(d["width"]); int(w) != tc.want.w {
				t.Fatalf("width %v, want %d", d["width"], tc.want.w)
			} else if h, _ := num(d["height"]); int(h) != tc.want.h {
				t.Fatalf("height %v, want %d", d["height"], tc.want.h)
			}
			if tc.want.dur < 0 {
				if d["duration"] != nil {
					t.Fatalf("duration %v, want null", d["duration"])
				}
			} else if dur, ok := num(d["duration"]); !ok || math.Abs(dur-tc.want.dur) > 0.1 {
				t.Fatalf("duration %v, want %.3f±0.1", d["duration"], tc.want.dur)
			}
			key := d["fileKey"].(string)
			if !strings.HasPrefix(key, "assets/"+e.wsA+"/"+d["assetId"].(string)+"/") {
				t.Fatalf("fileKey %q", key)
			}
			f := e.fetch(d["fileUrl"].(string))
			if f.Status != 200 || !bytes.Equal(f.Body, tc.body) {
				t.Fatalf("fetch: %d, %d bytes (want %d)", f.Status, len(f.Body), len(tc.body))
			}
			if f.Header.Get("Content-Type") != tc.want.mime || f.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("served as %q nosniff=%q", f.Header.Get("Content-Type"), f.Header.Get("X-Content-Type-Options"))
			}
			// GET /v1/assets/{id} answers the same record.
			g := e.do("GET", "/v1/assets/"+d["assetId"].(string), e.keyA, nil).Data()
			if g["fileKey"] != key || g["type"] != d["type"] || fmt.Sprint(g["duration"]) != fmt.Sprint(d["duration"]) {
				t.Fatalf("detail %v differs from upload %v", g, d)
			}
		})
	}
}

func TestUploadTypeChecks(t *testing.T) {
	e := newEnv(t)
	mp3 := testdata(t, "audio.mp3")
	p := upload(e, e.keyA, "x.png", "image/png", mp3).Problem(422, "ASSET_TYPE_MISMATCH")
	if d := p["detail"].(string); !strings.Contains(d, "image/png") || !strings.Contains(d, "audio/mpeg") {
		t.Fatalf("mismatch detail does not name both types: %s", d)
	}
	upload(e, e.keyA, "x.mp4", "video/mp4", encodePNG(t, 4, 4)).Problem(422, "ASSET_TYPE_MISMATCH")
	upload(e, e.keyA, "x.json", "font/woff2", []byte(lottieJSON)).Problem(422, "ASSET_TYPE_MISMATCH")
	upload(e, e.keyA, "x.ttf", "image/png", testdata(t, "font.ttf")).Problem(422, "ASSET_TYPE_MISMATCH")
	// Lenient within a family: a PNG declared as JPEG is stored as the PNG it is.
	if d := mustUpload(e, "y.png", "image/jpeg", encodePNG(t, 4, 4)); d["mimetype"] != "image/png" {
		t.Fatalf("mimetype %v", d["mimetype"])
	}
	// A container declared as the other medium is fine (audio/mp4 vs video/mp4).
	if d := mustUpload(e, "v.mp4", "audio/mp4", testdata(t, "video.mp4")); d["type"] != "video" {
		t.Fatalf("type %v", d["type"])
	}
	p = upload(e, e.keyA, "x.bin", "application/pdf", []byte("%PDF-1.7\n1 0 obj\n")).Problem(422, "ASSET_TYPE_UNKNOWN")
	if !strings.Contains(p["detail"].(string), "application/pdf") {
		t.Fatalf("unknown detail does not name the declared type: %s", p["detail"])
	}
	upload(e, e.keyA, "x.bin", "", bytes.Repeat([]byte{0x42}, 5000)).Problem(422, "ASSET_TYPE_UNKNOWN")
	upload(e, e.keyA, "x.json", "application/json", []byte(`{"hello":"world","n":[1,2]}`)).Problem(422, "ASSET_TYPE_UNKNOWN")
	upload(e, e.keyA, "x.json", "application/json", []byte(`{"captions":[{"text":"a","startMs":5,"endMs":1}]}`)).Problem(422, "ASSET_INVALID")
	upload(e, e.keyA, "x.json", "application/json", []byte(`{"v":"5","fr":30,"ip":0,"op":`)).Problem(422, "ASSET_INVALID")
	upload(e, e.keyA, "x.png", "image/png", encodePNG(t, 4, 4)[:20]).Problem(422, "ASSET_INVALID")
	upload(e, e.keyA, "x.mp4", "video/mp4", testdata(t, "video.mp4")[:600]).Problem(422, "ASSET_INVALID")
	upload(e, e.keyA, "x.png", "image/png", nil).Problem(400, "BODY_REQUIRED")
	assertNoFiles(t, e, 2)
}

// assertNoFiles checks that the files area holds no temp file and exactly n asset files.
func assertNoFiles(t *testing.T, e *env, n int) {
	t.Helper()
	tmp, err := os.ReadDir(filepath.Join(e.files, "tmp"))
	if err != nil || len(tmp) != 0 {
		t.Fatalf("temp files left: %v %v", tmp, err)
	}
	count := 0
	_ = filepath.WalkDir(filepath.Join(e.files, "assets"), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			count++
		}
		return nil
	})
	if count != n {
		t.Fatalf("%d asset files stored, want %d", count, n)
	}
}

func TestUploadCaps(t *testing.T) {
	e := newAssetEnv(t, func(c *assets.Config) {
		c.Limits = assets.Limits{Audio: 10 << 10, Image: 2 << 10, Caption: 300, Lottie: 100 << 10, Video: 100 << 10}
	})
	wav := testdata(t, "audio.wav") // 16 KB > 10 KiB audio cap
	p := upload(e, e.keyA, "a.wav", "audio/wav", wav).Problem(413, "PAYLOAD_TOO_LARGE")
	if !strings.Contains(p["detail"].(string), "10 KiB") {
		t.Fatalf("detail does not name the cap: %s", p["detail"])
	}
	upload(e, e.keyA, "a.png", "", imagetest.NoisePNG(t, 64, 64)).Problem(413, "PAYLOAD_TOO_LARGE")
	// Without a declared length (chunked), the cap is enforced while streaming.
	req := httptest.NewRequest("POST", "/v1/uploads", io.MultiReader(bytes.NewReader(wav)))
	req.ContentLength = -1
	req.Host = "127.0.0.1:8787"
	req.Header.Set("x-api-key", e.keyA)
	req.Header.Set("x-file-name", "chunked.wav")
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	response{t: t, Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}.Problem(413, "PAYLOAD_TOO_LARGE")
	// JSON is capped by the larger JSON cap while streaming, then by its own kind's.
	big := `{"captions":[` + strings.Repeat(`{"text":"x","startMs":0,"endMs":1},`, 20) + `{"text":"x","startMs":0,"endMs":1}]}`
	upload(e, e.keyA, "c.json", "", []byte(big)).Problem(413, "PAYLOAD_TOO_LARGE")
	assertNoFiles(t, e, 0)
	// Under the caps everything is taken.
	mustUpload(e, "small.png", "", encodePNG(t, 2, 2))
	mustUpload(e, "a.mp3", "", testdata(t, "audio.mp3"))
	assertNoFiles(t, e, 2)
}

// bombPNG returns a valid 1-bit PNG of w x h pixels, all black, which compresses to a few
// tens of KB but would decode into w*h bytes.
func bombPNG(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 1, 0 // 1-bit greyscale
	chunk("IHDR", ihdr)
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	row := make([]byte, 1+(w+7)/8)
	for i := 0; i < h; i++ {
		_, _ = zw.Write(row)
	}
	_ = zw.Close()
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return b.Bytes()
}

func TestImageBombRefused(t *testing.T) {
	e := newEnv(t)
	bomb := bombPNG(t, 20000, 20000)
	if len(bomb) > 1<<20 {
		t.Fatalf("bomb is %d bytes", len(bomb))
	}
	// The bomb is a real image: the standard decoder's header read agrees on its size.
	if cfg, err := png.DecodeConfig(bytes.NewReader(bomb)); err != nil || cfg.Width != 20000 {
		t.Fatalf("bomb header: %v %v", cfg, err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p := upload(e, e.keyA, "bomb.png", "image/png", bomb).Problem(422, "IMAGE_TOO_LARGE")
	runtime.ReadMemStats(&after)
	if !strings.Contains(p["detail"].(string), "20000x20000") {
		t.Fatalf("detail: %s", p["detail"])
	}
	// Decoding would allocate 400 MB; refusing from the header allocates next to nothing.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Fatalf("refusing the bomb allocated %d MB", grew>>20)
	}
	// The side limit alone, and a configurable pixel limit.
	upload(e, e.keyA, "wide.png", "", bombPNG(t, 17000, 8)).Problem(422, "IMAGE_TOO_LARGE")
	small := newAssetEnv(t, func(c *assets.Config) { c.Limits.MaxImagePixels = 1000 })
	upload(small, small.keyA, "p.png", "", encodePNG(t, 40, 30)).Problem(422, "IMAGE_TOO_LARGE")
	mustUpload(small, "p.png", "", encodePNG(t, 40, 25))
	assertNoFiles(t, e, 0)
}

func TestUploadFileNames(t *testing.T) {
	e := newEnv(t)
	png4 := encodePNG(t, 4, 4)
	for _, tc := range []struct{ sent, want string }{
		{"../../etc/passwd", "passwd"},
		{`..\..\windows\win.ini`, "win.ini"},
		{"a\x00b\x01c\x7f.png", "abc.png"},
		{"/", "file"},
		{"..", "file"},
		{"  spaced name.png  ", "spaced name.png"},
		{"r%C3%A9sum%C3%A9.png", "résumé.png"},
		{"evil\u202egnp.exe", "evilgnp.exe"},
		{"a\u200eb\u00adc\u2066d\u061c\u200b.png", "abcd.png"},
		{"\U0001F468\u200d\U0001F469 \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.png", "\U0001F468\u200d\U0001F469 \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.png"},
	} {
		d := mustUpload(e, tc.sent, "image/png", png4)
		if d["filename"] != tc.want {
			t.Fatalf("%q: filename %q, want %q", tc.sent, d["filename"], tc.want)
		}
		key := d["fileKey"].(string)
		parts := strings.Split(key, "/")
		if len(parts) != 4 || parts[0] != "assets" || strings.ContainsAny(parts[3], "\\\x00") || strings.HasPrefix(parts[3], ".") {
			t.Fatalf("%q: fileKey %q", tc.sent, key)
		}
		// The file is inside the files area, nowhere else.
		if _, err := os.Stat(filepath.Join(e.files, filepath.FromSlash(key))); err != nil {
			t.Fatalf("%q: %v", tc.sent, err)
		}
	}
	upload(e, e.keyA, strings.Repeat("n", 600), "", png4).Problem(422, "FIELD_TOO_LONG")
	if d := mustUpload(e, strings.Repeat("é", 512), "", png4); len([]rune(d["filename"].(string))) != 512 {
		t.Fatalf("a 512-character name is kept whole")
	}
	e.do("POST", "/v1/uploads", e.keyA, png4).Problem(400, "FIELD_REQUIRED")
	upload(e, e.keyA, "a.png", "", png4, "x-project-id", "not-a-uuid").Problem(400, "INVALID_HEADER")
	// Content-Disposition carries the exact name as RFC 5987 filename*.
	d := mustUpload(e, "ünï \"q\".png", "", png4)
	cd := e.fetch(d["fileUrl"].(string)).Header.Get("Content-Disposition")
	if !strings.HasPrefix(cd, "inline; ") || !strings.Contains(cd, "filename*=UTF-8''%C3%BCn%C3%AF%20%22q%22.png") || !strings.Contains(cd, `filename="_n_ _q_.png"`) {
		t.Fatalf("Content-Disposition %q", cd)
	}
	svg := mustUpload(e, "x.svg", "", []byte(svgSized))
	if f := e.fetch(svg["fileUrl"].(string)); !strings.HasPrefix(f.Header.Get("Content-Disposition"), "attachment;") || !strings.Contains(f.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("svg served inline or without sandbox: %v", f.Header)
	}
	// Without runtime access or a key, no uploads.
	upload(e, e.keyOff, "a.png", "", png4).Problem(403, "OPEN_API_RUNTIME_ACCESS_FORBIDDEN")
	upload(e, "", "a.png", "", png4).Problem(401, "OPEN_API_KEY_INVALID")
}

func TestSignedLinks(t *testing.T) {
	e := newEnv(t)
	body := testdata(t, "video.mp4")
	d := mustUpload(e, "v.mp4", "video/mp4", body)
	link := d["fileUrl"].(string)
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if exp := q.Get("exp"); exp != fmt.Sprint(e.clock.Now().Add(24*time.Hour).Unix()) {
		t.Fatalf("exp %s, want now+24h", exp)
	}
	if f := e.fetch(link); f.Status != 200 || f.Header.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("fetch: %d %v", f.Status, f.Header)
	}
	// Range requests.
	r := e.fetch(link, "Range", "bytes=100-199")
	if r.Status != 206 || r.Header.Get("Content-Range") != fmt.Sprintf("bytes 100-199/%d", len(body)) || !bytes.Equal(r.Body, body[100:200]) {
		t.Fatalf("range: %d %q %d bytes", r.Status, r.Header.Get("Content-Range"), len(r.Body))
	}
	if r := e.fetch(link, "Range", fmt.Sprintf("bytes=%d-", len(body)+10)); r.Status != 416 {
		t.Fatalf("unsatisfiable range: %d", r.Status)
	}
	// HEAD works too.
	if h := e.do("HEAD", strings.TrimPrefix(link, publicURL), "", nil); h.Status != 200 || h.Header.Get("Content-Length") != fmt.Sprint(len(body)) {
		t.Fatalf("HEAD: %d %v", h.Status, h.Header)
	}
	// Tampering with any part.
	sig, exp := q.Get("sig"), q.Get("exp")
	other := mustUpload(e, "o.png", "", encodePNG(t, 2, 2))
	otherPath := strings.SplitN(strings.TrimPrefix(other["fileUrl"].(string), publicURL), "?", 2)[0]
	flip := func(s string) string {
		if s[0] == '0' {
			return "1" + s[1:]
		}
		return "0" + s[1:]
	}
	for _, bad := range []string{
		u.Path + "?exp=" + exp + "&sig=" + flip(sig),
		u.Path + "?exp=" + fmt.Sprint(e.clock.Now().Add(48*time.Hour).Unix()) + "&sig=" + sig,
		otherPath + "?exp=" + exp + "&sig=" + sig,
		strings.TrimSuffix(u.Path, "v.mp4") + "x.mp4?exp=" + exp + "&sig=" + sig,
		u.Path + "?exp=" + exp,
		u.Path + "?sig=" + sig,
		u.Path,
		u.Path + "?exp=abc&sig=" + sig,
		u.Path + "?exp=" + exp + "&sig=" + strings.ToUpper(sig),
	} {
		e.fetch(publicURL+bad).Problem(403, "LINK_INVALID")
	}
	// Expiry: the clock passes exp.
	e.clock.Advance(24*time.Hour + time.Second)
	e.fetch(link).Problem(403, "LINK_EXPIRED")
	// A fresh link from the API works again; links survive a restart (the secret is in the
	// database): a new store over the same database verifies the same link.
	fresh := e.do("GET", "/v1/assets/"+d["assetId"].(string), e.keyA, nil).Data()["fileUrl"].(string)
	if fresh == link || e.fetch(fresh).Status != 200 {
		t.Fatalf("fresh link does not work")
	}
	store2, err := assets.NewStore(assets.Config{Dir: e.files, PublicURL: publicURL, Now: e.clock.Now}, e.db, teststore.FileLinkSigner(t, e.db, e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	h2 := checkAPI(t, server.New(server.Config{Now: e.clock.Now, PublicURL: publicURL}, server.Deps{Accounts: e.db, Projects: e.db, Idempotency: e.db, Assets: store2, Files: store2}).Handler())
	req := httptest.NewRequest("GET", strings.TrimPrefix(fresh, publicURL), nil)
	rec := httptest.NewRecorder()
	h2.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("link after restart: %d %s", rec.Code, rec.Body)
	}
}

// stateWithAsset is a minimal state whose assets map holds one image asset.
func stateWithAsset(key, id, remoteURL, remoteKey string) string {
	return fmt.Sprintf(`{"compositionWidth":1920,"compositionHeight":1080,"timebaseTicksPerSecond":240000,"tracks":[{"id":"t","items":[],"hidden":false,"muted":false}],`+
		`"assets":{%q:{"id":%q,"type":"image","filename":"a.png","size":1,"mimeType":"image/png","width":4,"height":4,"remoteUrl":%q,"remoteKey":%q}},`+
		`"items":{},"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`, key, id, remoteURL, remoteKey)
}

func TestAssetGetAndDelete(t *testing.T) {
	e := newEnv(t)
	d := mustUpload(e, "a.png", "image/png", encodePNG(t, 4, 4))
	id, key, link := d["assetId"].(string), d["fileKey"].(string), d["fileUrl"].(string)
	e.do("GET", "/v1/assets/"+id, e.keyB, nil).Problem(404, "ASSET_NOT_FOUND")
	e.do("DELETE", "/v1/assets/"+id, e.keyB, nil).Problem(404, "ASSET_NOT_FOUND")
	e.do("GET", "/v1/assets/not-a-uuid", e.keyA, nil).Problem(400, "INVALID_PATH_PARAMETER")
	e.do("GET", "/v1/assets/00000000-0000-0000-0000-000000000000", e.keyA, nil).Problem(404, "ASSET_NOT_FOUND")

	// Referenced by a project's current state, in each of the ways an editor refers.
	pid := createProject(t, e, e.keyA, "p")
	for _, st := range []string{
		stateWithAsset(id, "local-1", "", ""),
		stateWithAsset("k", id, "", ""),
		stateWithAsset("k", "x", "", key),
		stateWithAsset("k", "x", "https://cdn.example/proxy"+strings.SplitN(strings.TrimPrefix(link, publicURL), "?", 2)[0]+"?exp=1&sig=2", ""),
		strings.Replace(minimalState, `{"type":"none"}`, `{"type":"image","imageAssetId":null,"imageUrl":"`+link+`","source":"custom"}`, 1),
	} {
		if r := e.do("POST", "/v1/projects/"+pid+"/sync", e.keyA, `{"editorState":`+st+`}`); r.Status != 200 {
			t.Fatalf("sync: %d %s", r.Status, r.Body)
		}
		p := e.do("DELETE", "/v1/assets/"+id, e.keyA, nil).Problem(409, "ASSET_REFERENCED")
		if !strings.Contains(p["detail"].(string), pid) {
			t.Fatalf("detail does not name the project: %s", p["detail"])
		}
	}
	// Another workspace's project referencing it does not count; a state without it frees it.
	pb := createProject(t, e, e.keyB, "b")
	if r := e.do("POST", "/v1/projects/"+pb+"/sync", e.keyB, `{"editorState":`+stateWithAsset(id, id, link, key)+`}`); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if r := e.do("POST", "/v1/projects/"+pid+"/sync", e.keyA, `{"editorState":`+stateWithAsset("other", "other", publicURL+"/files/assets/x/y/z.png", "assets/x/y/z.png")+`}`); r.Status != 200 {
		t.Fatal(r.Status)
	}
	// An active export holds it.
	e.refs.set(id, true)
	e.do("DELETE", "/v1/assets/"+id, e.keyA, nil).Problem(409, "ASSET_REFERENCED")
	e.refs.set(id, false)

	r := e.do("DELETE", "/v1/assets/"+id, e.keyA, nil)
	if r.Status != 200 || r.Data()["deleted"] != true || r.Data()["assetId"] != id {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	e.do("GET", "/v1/assets/"+id, e.keyA, nil).Problem(404, "ASSET_NOT_FOUND")
	e.do("DELETE", "/v1/assets/"+id, e.keyA, nil).Problem(404, "ASSET_NOT_FOUND")
	e.fetch(link).Problem(404, "ASSET_NOT_FOUND")
	// Soft delete: the record and file stay (the sweep keeps them).
	if n, err := e.store.Recover(); err != nil || n != 0 {
		t.Fatalf("recover removed %d: %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(e.files, filepath.FromSlash(key))); err != nil {
		t.Fatal(err)
	}
}

func TestProjectAssetBindings(t *testing.T) {
	e := newEnv(t)
	pid := createProject(t, e, e.keyA, "p")
	pb := createProject(t, e, e.keyB, "b")
	upload(e, e.keyA, "a.png", "", encodePNG(t, 2, 2), "x-project-id", pb).Problem(404, "PROJECT_NOT_FOUND")
	assertNoFiles(t, e, 0)
	var ids []string
	for i := 0; i < 5; i++ {
		d := mustUpload(e, fmt.Sprintf("%d.png", i), "", encodePNG(t, 2+i, 2), "x-project-id", pid)
		ids = append(ids, d["assetId"].(string))
		e.clock.Advance(time.Second)
	}
	loose := mustUpload(e, "loose.png", "", encodePNG(t, 3, 3))["assetId"].(string)

	list := func(q string) ([]string, string) {
		r := e.do("GET", "/v1/projects/"+pid+"/assets"+q, e.keyA, nil)
		if r.Status != 200 {
			t.Fatalf("list: %d %s", r.Status, r.Body)
		}
		m := r.JSON()
		var got []string
		for _, a := range m["data"].([]any) {
			rec := a.(map[string]any)
			if rec["fileUrl"] == nil || rec["type"] != "image" {
				t.Fatalf("list item is not an asset record: %v", rec)
			}
			got = append(got, rec["assetId"].(string))
		}
		next, _ := m["meta"].(map[string]any)["nextPageCursor"].(string)
		return got, next
	}
	var all []string
	page, next := list("?pageSize=2")
	all = append(all, page...)
	for next != "" {
		page, next = list("?pageSize=2&pageCursor=" + url.QueryEscape(next))
		all = append(all, page...)
	}
	if len(all) != 5 || all[0] != ids[4] || all[4] != ids[0] {
		t.Fatalf("pages %v, want newest first of %v", all, ids)
	}
	if got, next := list(""); len(got) != 5 || next != "" {
		t.Fatalf("default page: %d %q", len(got), next)
	}
	e.do("GET", "/v1/projects/"+pid+"/assets?pageSize=101", e.keyA, nil).Problem(400, "INVALID_QUERY_PARAMETER")
	e.do("GET", "/v1/projects/"+pid+"/assets?pageSize=0", e.keyA, nil).Problem(400, "INVALID_QUERY_PARAMETER")
	e.do("GET", "/v1/projects/"+pid+"/assets", e.keyB, nil).Problem(404, "PROJECT_NOT_FOUND")

	// Bind: 201, and again 201 without a duplicate.
	for i := 0; i < 2; i++ {
		r := e.do("POST", "/v1/projects/"+pid+"/assets", e.keyA, `{"assetId":"`+loose+`"}`)
		if r.Status != 201 || r.Data()["assetId"] != loose || r.Data()["projectId"] != pid {
			t.Fatalf("bind: %d %s", r.Status, r.Body)
		}
	}
	if got, _ := list(""); len(got) != 6 || got[0] != loose {
		t.Fatalf("after bind: %v", got)
	}
	e.do("POST", "/v1/projects/"+pid+"/assets", e.keyA, `{"assetId":"00000000-0000-0000-0000-000000000000"}`).Problem(404, "ASSET_NOT_FOUND")
	e.do("POST", "/v1/projects/"+pid+"/assets", e.keyA, `{}`).Problem(400, "FIELD_REQUIRED")
	e.do("POST", "/v1/projects/"+pid+"/assets", e.keyA, `{"assetId":"nope"}`).Problem(400, "INVALID_FIELD")
	e.do("POST", "/v1/projects/"+pb+"/assets", e.keyB, `{"assetId":"`+loose+`"}`).Problem(404, "ASSET_NOT_FOUND")
	e.do("POST", "/v1/projects/"+pb+"/assets", e.keyA, `{"assetId":"`+loose+`"}`).Problem(404, "PROJECT_NOT_FOUND")
	// Binding does not change the asset.
	before := e.do("GET", "/v1/assets/"+loose, e.keyA, nil).Data()
	// Unbind removes only the binding.
	r := e.do("DELETE", "/v1/projects/"+pid+"/assets/"+loose, e.keyA, nil)
	if r.Status != 200 || r.Data()["deleted"] != true || r.Data()["assetId"] != loose || r.Data()["projectId"] != pid {
		t.Fatalf("unbind: %d %s", r.Status, r.Body)
	}
	e.do("DELETE", "/v1/projects/"+pid+"/assets/"+loose, e.keyA, nil).Problem(404, "ASSET_NOT_BOUND")
	after := e.do("GET", "/v1/assets/"+loose, e.keyA, nil).Data()
	if before["fileKey"] != after["fileKey"] || before["filename"] != after["filename"] || before["size"] != after["size"] {
		t.Fatalf("asset changed: %v -> %v", before, after)
	}
	// A soft-deleted asset drops out of the list.
	if r := e.do("DELETE", "/v1/assets/"+ids[2], e.keyA, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if got, _ := list(""); len(got) != 4 {
		t.Fatalf("after delete: %v", got)
	}
	// Deleting the project removes its bindings; the assets stay.
	if r := e.do("DELETE", "/v1/projects/"+pid, e.keyA, nil); r.Status != 200 {
		t.Fatal(r.Status)
	}
	e.do("GET", "/v1/projects/"+pid+"/assets", e.keyA, nil).Problem(404, "PROJECT_NOT_FOUND")
	if r := e.do("GET", "/v1/assets/"+ids[0], e.keyA, nil); r.Status != 200 {
		t.Fatalf("asset gone with its project: %d", r.Status)
	}
}

func TestRecoverAfterCrash(t *testing.T) {
	e := newEnv(t)
	kept := mustUpload(e, "k.png", "", encodePNG(t, 2, 2))
	// What a crash leaves: a temp file mid-upload, a renamed file whose record never
	// committed, and a stray file beside a recorded one.
	tmp := filepath.Join(e.files, "tmp", "upload-123.part")
	orphanDir := filepath.Join(e.files, "assets", e.wsA, "11111111-2222-3333-4444-555555555555")
	stray := filepath.Join(e.files, filepath.FromSlash(kept["fileKey"].(string))+".old")
	for _, p := range []string{tmp, filepath.Join(orphanDir, "x.png"), stray} {
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("partial"), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	n, err := e.store.Recover()
	if err != nil || n != 3 {
		t.Fatalf("recover: %d %v", n, err)
	}
	for _, p := range []string{tmp, orphanDir, stray} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s survived the sweep", p)
		}
	}
	assertNoFiles(t, e, 1)
	if f := e.fetch(kept["fileUrl"].(string)); f.Status != 200 {
		t.Fatalf("kept file: %d", f.Status)
	}
}

func TestResolve(t *testing.T) {
	e := newEnv(t)
	d := mustUpload(e, "a.png", "", encodePNG(t, 2, 2))
	id, key, link := d["assetId"].(string), d["fileKey"].(string), d["fileUrl"].(string)
	want := filepath.Join(e.files, filepath.FromSlash(key))
	for _, a := range []*editor.Asset{
		{ID: "local", RemoteKey: key},
		{ID: id},
		{ID: "local", RemoteURL: link},
		{ID: "local", RemoteURL: "https://elsewhere.example/base/files/" + key},
	} {
		p, err := e.store.Resolve(e.wsA, a)
		if err != nil || p != want {
			t.Fatalf("resolve %+v: %q %v", a, p, err)
		}
	}
	wsB, _ := e.db.Workspace("b")
	for _, a := range []*editor.Asset{{ID: id}, {RemoteKey: key}, {RemoteURL: link}} {
		if _, err := e.store.Resolve(wsB.ID, a); err == nil {
			t.Fatalf("another workspace resolved %+v", a)
		}
	}
	if _, err := e.store.Resolve(e.wsA, &editor.Asset{ID: "x", RemoteURL: "https://example.com/a.png"}); err == nil {
		t.Fatal("a remote URL resolved locally")
	}
}

// TestProbeFallbacks covers the paths where the Go parsers need help: a CBR MP3 without a
// Xing header (every frame header is walked) and a fragmented MP4 whose movie header has
// no duration (ffprobe when configured, else a null duration).
func TestProbeFallbacks(t *testing.T) {
	e := newEnv(t)
	d := mustUpload(e, "n.mp3", "audio/mpeg", testdata(t, "audio-noxing.mp3"))
	if dur, _ := num(d["duration"]); math.Abs(dur-2.0) > 0.1 {
		t.Fatalf("frame-scanned mp3 duration %v, want 2±0.1", d["duration"])
	}
	d = mustUpload(e, "live.webm", "video/webm", testdata(t, "video-live.webm"))
	if dur, _ := num(d["duration"]); math.Abs(dur-3.0) > 0.15 || d["width"] != 64.0 {
		t.Fatalf("live webm without Duration: %v, want 64 wide and 3±0.15 s from the last block", d)
	}
	frag := testdata(t, "video-frag.mp4")
	d = mustUpload(e, "frag.mp4", "video/mp4", frag)
	if w, _ := num(d["width"]); w != 64 || d["duration"] != nil {
		t.Fatalf("without ffprobe: width %v duration %v, want 64 and null", d["width"], d["duration"])
	}
	ffprobe, err := exec.LookPath("ffprobe")
	if err != nil {
		t.Skip("ffprobe not installed")
	}
	withProbe := newAssetEnv(t, func(c *assets.Config) { c.FFprobe = ffprobe })
	d = mustUpload(withProbe, "frag.mp4", "video/mp4", frag)
	if dur, _ := num(d["duration"]); math.Abs(dur-1.0) > 0.1 || d["width"] != 64.0 || d["height"] != 48.0 {
		t.Fatalf("with ffprobe: %v", d)
	}
}

// TestAssetDeleteRacingSync: a project sync that commits while a delete is checking the
// states (after they were read, before the delete commits) is seen: a sync that adds a
// reference makes the delete fail with ASSET_REFERENCED, one that does not only makes it
// check again, and states that keep changing make it fail with ASSET_BUSY (503, retryable)
// without deleting anything.
func TestAssetDeleteRacingSync(t *testing.T) {
	e := newEnv(t)
	d := mustUpload(e, "a.png", "image/png", encodePNG(t, 4, 4))
	id := d["assetId"].(string)
	pid := createProject(t, e, e.keyA, "p")
	sync := func(state string) {
		if r := e.do("POST", "/v1/projects/"+pid+"/sync", e.keyA, `{"editorState":`+state+`}`); r.Status != 200 {
			t.Errorf("sync: %d %s", r.Status, r.Body)
		}
	}
	unrelated := func(n int) string {
		return stateWithAsset(fmt.Sprintf("other-%d", n), "other", publicURL+"/files/assets/x/y/z.png", "assets/x/y/z.png")
	}
	checks := 0
	race := func(state func(check int) string) func() {
		return func() {
			checks++
			if s := state(checks); s != "" {
				sync(s)
			}
		}
	}

	// a sync adding the reference lands during the first check
	e.refs.during = race(func(n int) string {
		if n == 1 {
			return stateWithAsset(id, id, "", "")
		}
		return ""
	})
	// (the reference only exists after the first check read the states: the check that
	// refuses is the second, which stops at the project before asking the exports)
	e.do("DELETE", "/v1/assets/"+id, e.keyA, nil).Problem(409, "ASSET_REFERENCED")
	if checks != 1 {
		t.Fatalf("%d export checks, want 1", checks)
	}
	sync(unrelated(0))

	// syncs that keep changing the states: busy, and nothing deleted
	checks = 0
	e.refs.during = race(unrelated)
	e.do("DELETE", "/v1/assets/"+id, e.keyA, nil).Problem(503, "ASSET_BUSY")
	if checks != 5 {
		t.Fatalf("%d checks before giving up, want 5", checks)
	}
	if r := e.do("GET", "/v1/assets/"+id, e.keyA, nil); r.Status != 200 {
		t.Fatalf("the busy delete deleted the asset: %d", r.Status)
	}

	// one unrelated sync during the first check: checked again, then deleted
	checks = 0
	e.refs.during = race(func(n int) string {
		if n == 1 {
			return unrelated(100)
		}
		return ""
	})
	if r := e.do("DELETE", "/v1/assets/"+id, e.keyA, nil); r.Status != 200 || checks != 2 {
		t.Fatalf("delete after one racing sync: %d %s after %d checks", r.Status, r.Body, checks)
	}
	e.do("GET", "/v1/assets/"+id, e.keyA, nil).Problem(404, "ASSET_NOT_FOUND")
}

// TestUploadFormRefusedWithHint: a multipart/form-data body (curl -F, an HTML form) is not
// an upload; with or without x-file-name it is ASSET_TYPE_UNKNOWN with a detail that says
// how to send the file instead, and nothing is stored.
func TestUploadFormRefusedWithHint(t *testing.T) {
	e := newEnv(t)
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, err := mw.CreateFormFile("file", "logo.png")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(encodePNG(t, 4, 4))
	_ = mw.Close()
	for _, r := range []response{
		upload(e, e.keyA, "logo.png", mw.FormDataContentType(), form.Bytes()),
		e.do("POST", "/v1/uploads", e.keyA, form.Bytes(), "Content-Type", mw.FormDataContentType()),
	} {
		p := r.Problem(422, "ASSET_TYPE_UNKNOWN")
		if d := p["detail"].(string); !strings.Contains(d, "multipart/form-data") || !strings.Contains(d, "--data-binary") {
			t.Errorf("the detail does not say how to upload: %s", d)
		}
	}
	assertNoFiles(t, e, 0)
}
