package server_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/internal/imagetest"
	"github.com/cutroom/cutroom/internal/svgtest"
)

// complexity asserts a 422 ASSET_TOO_COMPLEX naming measure and limit in its errors.
func complexity(t *testing.T, r response, measure string, limit float64) {
	t.Helper()
	p := r.Problem(422, "ASSET_TOO_COMPLEX")
	errs, _ := p["errors"].([]any)
	if len(errs) != 1 {
		t.Fatalf("errors: %s", r.Body)
	}
	d, _ := errs[0].(map[string]any)
	if d["measure"] != measure || d["limit"] != limit {
		t.Fatalf("errors[0] = %v, want measure %s limit %v", d, measure, limit)
	}
	if !strings.Contains(p["detail"].(string), "too complex") {
		t.Fatalf("detail: %s", p["detail"])
	}
}

// TestUploadSVGBudget: the ~1 KB nested-use SVG of issue 15 was stored (201) and blew up at
// render; it is refused at upload, as is any document over the budget, whatever its size.
func TestUploadSVGBudget(t *testing.T) {
	e := newEnv(t)
	bomb := svgtest.NestedUse(5, 10)
	if len(bomb) > 1200 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	complexity(t, upload(e, e.keyA, "bomb.svg", "image/svg+xml", bomb), "svg.elements", 20000)
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Fatalf("refusing the bomb allocated %d MB", grew>>20)
	}
	complexity(t, upload(e, e.keyA, "bomb9.svg", "", svgtest.NestedUse(9, 10)), "svg.elements", 20000)
	deep := []byte(`<svg width="9" height="9">` + strings.Repeat("<g>", 100) + strings.Repeat("</g>", 100) + `</svg>`)
	complexity(t, upload(e, e.keyA, "deep.svg", "", deep), "svg.depth", 64)
	points := []byte(`<svg width="9" height="9"><defs><path id="p" d="` + strings.Repeat("1 ", 5000) + `"/></defs>` +
		strings.Repeat(`<use href="#p"/>`, 500) + `</svg>`)
	complexity(t, upload(e, e.keyA, "points.svg", "", points), "svg.pathPoints", 2_000_000)
	// A <use> cycle would recurse in the SVG library until the stack overflows.
	cyclic := []byte(`<svg width="9" height="9"><defs><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></defs><use href="#a"/></svg>`)
	p := upload(e, e.keyA, "cycle.svg", "", cyclic).Problem(422, "ASSET_INVALID")
	if !strings.Contains(p["detail"].(string), "cycle") {
		t.Fatalf("detail: %s", p["detail"])
	}
	upload(e, e.keyA, "broken.svg", "", []byte(`<svg width="9" height="9"><g></svg>`)).Problem(422, "ASSET_INVALID")
	assertNoFiles(t, e, 0)
	// Within the budget the same structure is taken, and a configured budget applies.
	a := mustUpload(e, "small.svg", "", svgtest.NestedUse(2, 10))
	if a["width"] != 64.0 {
		t.Fatalf("small: %v", a)
	}
	tight := newAssetEnv(t, func(c *assets.Config) { c.Limits.SVG.MaxElements = 100 })
	complexity(t, upload(tight, tight.keyA, "small.svg", "", svgtest.NestedUse(2, 10)), "svg.elements", 100)
}

// truncatedPNG returns a PNG cut to its signature and IHDR (header only), or with its IDAT
// cut short (the file ends within it).
func truncatedPNG(t *testing.T, headerOnly bool) []byte {
	full := imagetest.NoisePNG(t, 64, 64)
	// signature (8) + IHDR chunk (4+4+13+4)
	if headerOnly {
		return full[:8+25]
	}
	off := 8 + 25
	for off+8 <= len(full) {
		n := int(binary.BigEndian.Uint32(full[off:]))
		if string(full[off+4:off+8]) == "IDAT" {
			return full[:off+8+n/2]
		}
		off += 12 + n
	}
	t.Fatal("no IDAT")
	return nil
}

// TestUploadTruncatedImages: a raster image whose header is sound but whose pixel data is
// cut short or corrupt was stored (201) and failed at its first export; it is decoded in
// full at upload and refused with 422 ASSET_INVALID, as docs/api.md promises.
func TestUploadTruncatedImages(t *testing.T) {
	e := newEnv(t)
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, imagetest.Noise(256, 256), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	jpg := jb.Bytes()
	webp := testdata(t, "image.webp")
	// a 4x4 frame whose LZW data holds one pixel: the block structure is intact
	shortGIF := []byte("GIF89a\x04\x00\x04\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\x2c\x00\x00\x00\x00\x04\x00\x04\x00\x00\x02\x02\x44\x01\x00\x3b")
	corruptPNG := imagetest.NoisePNG(t, 64, 64)
	corruptPNG[len(corruptPNG)/2] ^= 0xff
	for name, body := range map[string][]byte{
		"header-only.png": truncatedPNG(t, true),
		"short-idat.png":  truncatedPNG(t, false),
		"corrupt.png":     corruptPNG,
		"short.jpg":       jpg[:len(jpg)*2/3],
		"short.webp":      webp[:len(webp)*2/3],
		"short.gif":       shortGIF,
	} {
		p := upload(e, e.keyA, name, "", body).Problem(422, "ASSET_INVALID")
		if !strings.Contains(p["detail"].(string), "broken") && !strings.Contains(p["detail"].(string), "truncated") {
			t.Errorf("%s: detail %s", name, p["detail"])
		}
	}
	assertNoFiles(t, e, 0)
	for name, body := range map[string][]byte{"ok.png": imagetest.NoisePNG(t, 64, 64), "ok.jpg": jpg, "ok.webp": webp, "ok.gif": encodeGIF(t, 4, 4, 10, 10)} {
		mustUpload(e, name, "", body)
	}
}

// manyFrameGIF encodes n frames of w x h.
func manyFrameGIF(t *testing.T, w, h, n int) []byte {
	pal := color.Palette{color.Black, color.White}
	g := &gif.GIF{}
	fr := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	for i := 0; i < n; i++ {
		g.Image = append(g.Image, fr)
		g.Delay = append(g.Delay, 2)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestUploadGIFBudget: a GIF's frames are bounded in number and, all together, by the pixel
// limit (rendering decodes every frame).
func TestUploadGIFBudget(t *testing.T) {
	e := newEnv(t)
	complexity(t, upload(e, e.keyA, "many.gif", "", manyFrameGIF(t, 1, 1, 5001)), "gif.frames", 5000)
	small := newAssetEnv(t, func(c *assets.Config) { c.Limits.MaxImagePixels = 100_000 })
	complexity(t, upload(small, small.keyA, "big.gif", "", manyFrameGIF(t, 100, 100, 20)), "gif.framePixels", 100_000)
	mustUpload(small, "ok.gif", "", manyFrameGIF(t, 100, 100, 10))
	a := mustUpload(e, "ok.gif", "", manyFrameGIF(t, 1, 1, 5000))
	if a["duration"] != 100.0 {
		t.Fatalf("5000 frames of 2/100 s: %v", a["duration"])
	}
}

// nestedLottie returns a Lottie animation whose top composition uses precomp level levels
// per times, each level using the one below per times; level 0 holds one shape layer.
func nestedLottie(levels, per int) []byte {
	var b strings.Builder
	layer := func(ref string) string { return `{"ty":0,"refId":"` + ref + `","ks":{},"ip":0,"op":60}` }
	b.WriteString(`{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":64,"h":64,"assets":[{"id":"c0","layers":[{"ty":4,"shapes":[]}]}`)
	for l := 1; l <= levels; l++ {
		fmt.Fprintf(&b, `,{"id":"c%d","layers":[`, l)
		for i := 0; i < per; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(layer(fmt.Sprintf("c%d", l-1)))
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`],"layers":[`)
	for i := 0; i < per; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(layer(fmt.Sprintf("c%d", levels)))
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// hostileLottie is one of the hostile documents of package lottiebudget's tests.
func hostileLottie(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../lottiebudget/testdata/hostile/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUploadLottieBudget: Lottie uploads are bounded in layers after precomp expansion,
// precomp nesting, keyframes, frames, shapes after repeater copies and embedded images'
// pixels; a parameter out of its range is ASSET_INVALID naming it.
func TestUploadLottieBudget(t *testing.T) {
	e := newEnv(t)
	bomb := nestedLottie(5, 10)
	if len(bomb) > 4096 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	complexity(t, upload(e, e.keyA, "bomb.json", "application/json", bomb), "lottie.layers", 10_000)
	complexity(t, upload(e, e.keyA, "deep.json", "", nestedLottie(40, 1)), "lottie.depth", 32)
	long := strings.Replace(lottieJSON, `"op":90`, `"op":1e9`, 1)
	complexity(t, upload(e, e.keyA, "long.json", "", []byte(long)), "lottie.frames", 216_000)
	cyclic := `{"v":"5","fr":30,"ip":0,"op":60,"assets":[{"id":"a","layers":[{"ty":0,"refId":"b"}]},{"id":"b","layers":[{"ty":0,"refId":"a"}]}],"layers":[{"ty":0,"refId":"a"}]}`
	p := upload(e, e.keyA, "cycle.json", "", []byte(cyclic)).Problem(422, "ASSET_INVALID")
	if !strings.Contains(p["detail"].(string), "cycle") {
		t.Fatalf("detail: %s", p["detail"])
	}
	// keyframes: every object of an animated property's "k" array
	kf := func(n int) []byte {
		var b strings.Builder
		b.WriteString(`{"v":"5","fr":30,"ip":0,"op":60,"w":64,"h":64,"layers":[{"ty":4,"ks":{"p":{"a":1,"k":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"t":%d,"s":[0,0]}`, i)
		}
		b.WriteString(`]}}}]}`)
		return []byte(b.String())
	}
	tight := newAssetEnv(t, func(c *assets.Config) { c.Limits.MaxLottieKeyframes = 50 })
	complexity(t, upload(tight, tight.keyA, "kf.json", "", kf(51)), "lottie.keyframes", 50)
	mustUpload(tight, "kf.json", "", kf(50))
	assertNoFiles(t, e, 0)
	// issue 26: what rlottie reads, budgeted as rlottie reads it
	complexity(t, upload(e, e.keyA, "ids.json", "", hostileLottie(t, "precomp-numeric-ids")), "lottie.layers", 10_000)
	complexity(t, upload(e, e.keyA, "copies.json", "", hostileLottie(t, "repeater-million")), "lottie.shapes", 100_000)
	complexity(t, upload(e, e.keyA, "precomps.json", "", hostileLottie(t, "repeater-in-precomps")), "lottie.shapes", 100_000)
	complexity(t, upload(e, e.keyA, "bomb.json", "", hostileLottie(t, "image-png-bomb")), "lottie.imagePixels", 100_000_000)
	image, err := os.ReadFile("../lottie/testdata/corpus/image.json") // a 40x40 PNG embedded
	if err != nil {
		t.Fatal(err)
	}
	small := newAssetEnv(t, func(c *assets.Config) { c.Limits.MaxImagePixels = 1599 })
	complexity(t, upload(small, small.keyA, "image.json", "", image), "lottie.imagePixels", 1599)
	for name, words := range map[string]string{
		"polystar-outer-roundness": `layer 1 ("Stars"), shape "Star": a polystar's outer roundness (os) is 2147483648`,
		"dash-negative-gap":        "a stroke dash's length or gap is -5",
	} {
		p := upload(e, e.keyA, "x.json", "", hostileLottie(t, name)).Problem(422, "ASSET_INVALID")
		if !strings.Contains(fmt.Sprint(p["detail"]), words) {
			t.Errorf("%s: detail %q lacks %q", name, p["detail"], words)
		}
	}
	a := mustUpload(e, "ok.json", "", nestedLottie(2, 10)) // 2,110 layers once expanded
	if a["type"] != "lottie" || a["duration"] != 2.0 {
		t.Fatalf("nested 2x10: %v", a)
	}
}

// TestUploadLottieUndrawable: a Lottie file within the budgets that the renderer does not
// draw is refused at upload, naming why, instead of failing its first export.
func TestUploadLottieUndrawable(t *testing.T) {
	e := newEnv(t)
	cases := map[string]struct{ doc, detail string }{
		"file image": {`{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":64,"h":64,"assets":[{"id":"i","w":8,"h":8,"u":"images/","p":"a.png"}],"layers":[{"ty":2,"refId":"i"}]}`, "not embedded"},
		"url image":  {`{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":64,"h":64,"assets":[{"id":"i","w":8,"h":8,"u":"","p":"http://127.0.0.1:1/a.png"}],"layers":[{"ty":2,"refId":"i"}]}`, "not embedded"},
		"text layer": {`{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":64,"h":64,"layers":[{"ty":5,"t":{}}]}`, "text layers"},
		"no size":    {`{"v":"5.7.4","fr":30,"ip":0,"op":60,"layers":[{"ty":4,"shapes":[]}]}`, "size"},
		"no frames":  {`{"v":"5.7.4","fr":30,"ip":60,"op":60,"w":64,"h":64,"layers":[{"ty":4,"shapes":[]}]}`, "op > ip"},
		// rlottie takes an asset whose "p" comes after its "layers" for an image, and reads u + p
		"layers first": {string(hostileLottie(t, "image-layers-before-p")), `image asset "image_0" is not embedded: "hostname"`},
		"unmeasurable": {string(hostileLottie(t, "image-unmeasurable")), "cannot be measured"},
		"broken png": {`{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":64,"h":64,"assets":[{"id":"i","w":1,"h":1,"e":1,"u":"","p":"data:image/png;base64,iVBORw0KGgo="}],"layers":[{"ty":2,"refId":"i"}]}`,
			"cannot be measured"},
	}
	for name, c := range cases {
		p := upload(e, e.keyA, "x.json", "", []byte(c.doc)).Problem(422, "ASSET_UNSUPPORTED")
		if !strings.Contains(p["detail"].(string), c.detail) {
			t.Errorf("%s: detail %q lacks %q", name, p["detail"], c.detail)
		}
	}
	assertNoFiles(t, e, 0)
	embedded := `{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":64,"h":64,"assets":[{"id":"i","w":1,"h":1,"e":1,"u":"",` +
		`"p":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII="}],"layers":[{"ty":2,"refId":"i"}]}`
	if a := mustUpload(e, "ok.json", "", []byte(embedded)); a["type"] != "lottie" {
		t.Fatalf("embedded image: %v", a)
	}
}
