package lottiebudget_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	_ "image/gif" // registered in the server by package assets: the format is refused, not unknown
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/fuzzseed"
	"github.com/cutroom/cutroom/lottiebudget"
)

// pngURI is a data URI of a real w x h PNG.
func pngURI(t testing.TB, w, h int) string {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

// pngHeaderURI is a data URI of a PNG header (signature and IHDR) saying w x h: all that
// is read of an image to measure it.
func pngHeaderURI(w, h uint32) string {
	ihdr := binary.BigEndian.AppendUint32([]byte("IHDR"), w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	b := []byte("\x89PNG\r\n\x1a\n")
	b = binary.BigEndian.AppendUint32(b, 13)
	b = append(b, ihdr...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(ihdr))
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b)
}

// TestCheckBytes: the measures, the facts found, and the errors.
func TestCheckBytes(t *testing.T) {
	doc := `{"v":"5","fr":25,"ip":0,"op":50,"w":64,"h":32,"assets":[` +
		`{"id":"d","p":"` + pngURI(t, 2, 2) + `","e":1},{"id":"c","layers":[{"ty":5}]}],` +
		`"layers":[{"ty":0,"refId":"c"},{"ty":4,"shapes":[{"ty":"sh","ks":{"a":1,"k":[{"t":0,"s":[{"v":[[0,0],[1,1]]}]},{"t":9,"s":[{"v":[[0,0],[1,1]]}]}]}}]}]}`
	info, err := lottiebudget.CheckBytes([]byte(doc), lottiebudget.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if info.W != 64 || info.H != 32 || info.FR != 25 || info.OP != 50 || info.TextLayers != 1 || info.Layers != 3 || info.Shapes != 1 {
		t.Fatalf("info %+v", info)
	}
	for name, c := range map[string]struct {
		lim     lottiebudget.Limits
		measure string
	}{
		"points":      {lottiebudget.Limits{MaxPoints: 3}, "points"},
		"keyframes":   {lottiebudget.Limits{MaxKeyframes: 1}, "keyframes"},
		"layers":      {lottiebudget.Limits{MaxLayers: 2}, "layers"},
		"depth":       {lottiebudget.Limits{MaxDepth: 1}, "depth"},
		"frames":      {lottiebudget.Limits{MaxFrames: 49}, "frames"},
		"imagePixels": {lottiebudget.Limits{MaxImagePixels: 3}, "imagePixels"},
		"imageSide":   {lottiebudget.Limits{MaxImageSide: 1}, "imageSide"},
		"imageBytes":  {lottiebudget.Limits{MaxImageBytes: 10}, "imageBytes"},
	} {
		_, err := lottiebudget.CheckBytes([]byte(doc), c.lim)
		var tc *lottiebudget.TooComplexError
		if !errors.As(err, &tc) || tc.Measure != c.measure {
			t.Errorf("%s: %v, want a %s TooComplexError", name, err, c.measure)
		}
	}
	cycle := `{"fr":1,"ip":0,"op":1,"w":1,"h":1,"layers":[{"ty":0,"refId":"a"}],"assets":[{"id":"a","layers":[{"ty":0,"refId":"a"}]}]}`
	if _, err := lottiebudget.CheckBytes([]byte(cycle), lottiebudget.Limits{}); !errors.Is(err, lottiebudget.ErrCycle) {
		t.Errorf("cycle: %v", err)
	}
	for _, bad := range []string{`{"fr":1`, `[]`, `{"fr":1,"ip":0,"op":1,"w":1,"h":1}`, `{"fr":1,"ip":0,"op":1,"w":1,"h":1,"layers":[]} x`} {
		if _, err := lottiebudget.CheckBytes([]byte(bad), lottiebudget.Limits{}); !errors.Is(err, lottiebudget.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", bad, err)
		}
	}
}

// hostile is what each document of testdata/hostile (each a finding of the security
// review of issue 26, and each accepted before its fix) is refused for: a budget's
// measure, or ErrOutOfRange or ErrUndrawable, and words of the error.
var hostile = map[string]struct {
	measure string
	kind    error
	words   string
}{
	"precomp-numeric-ids":      {measure: "layers"},
	"dash-negative-gap":        {kind: lottiebudget.ErrOutOfRange, words: `layer 1 ("Dashed"): a stroke dash's length or gap is -5; it must be from 0 to 100000`},
	"dash-negative-length":     {kind: lottiebudget.ErrOutOfRange, words: "a stroke dash's length or gap is -10"},
	"dash-all-zero":            {kind: lottiebudget.ErrOutOfRange, words: "lengths and gaps add up to 0"},
	"dash-too-many":            {kind: lottiebudget.ErrOutOfRange, words: "a stroke dash has 40 entries; it may have at most 16"},
	"dash-animated-negative":   {kind: lottiebudget.ErrOutOfRange, words: "a stroke dash's length or gap reaches -2 (its keyframes with their easing)"},
	"image-png-bomb":           {measure: "imagePixels", words: `image asset "image_0" is 16000x16000 pixels`},
	"image-unmeasurable":       {kind: lottiebudget.ErrUndrawable, words: `image asset "image_0" cannot be measured`},
	"image-layers-before-p":    {kind: lottiebudget.ErrUndrawable, words: `image asset "image_0" is not embedded: "hostname"`},
	"repeater-million":         {measure: "shapes", words: `layer 1 ("Copies"): its shapes, with their repeaters' copies, are more than 100000`},
	"repeater-nested":          {measure: "shapes"},
	"repeater-animated":        {measure: "shapes"},
	"repeater-in-precomps":     {measure: "shapes", words: "its precomps expand to more than 100000 shapes"},
	"repeater-scale-growth":    {kind: lottiebudget.ErrOutOfRange, words: `shape "Repeater": a repeater's copies grow`},
	"polystar-outer-roundness": {kind: lottiebudget.ErrOutOfRange, words: `layer 1 ("Stars"), shape "Star": a polystar's outer roundness (os) is 2147483648; it must be from -1000 to 1000`},
	"ellipse-size":             {kind: lottiebudget.ErrOutOfRange, words: `shape "Ellipse": an ellipse's size (s) is 2147483648`},
	"path-coordinates":         {kind: lottiebudget.ErrOutOfRange, words: `shape "Path": a path's coordinate is 2147483648`},
	"stroke-width":             {kind: lottiebudget.ErrOutOfRange, words: "a stroke's width (w) is 2147483648"},
	"transform-scale":          {kind: lottiebudget.ErrOutOfRange, words: `layer 1 ("Zoom"): its scale (ks.s) is 10000000000`},
}

// TestHostileDocuments: every hostile document is refused, for its reason, naming where.
func TestHostileDocuments(t *testing.T) {
	paths, _ := filepath.Glob("testdata/hostile/*.json")
	if len(paths) != len(hostile) {
		t.Errorf("%d hostile documents, %d expectations", len(paths), len(hostile))
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		t.Run(name, func(t *testing.T) {
			want, ok := hostile[name]
			if !ok {
				t.Fatal("no expectation")
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			_, err = lottiebudget.CheckBytes(b, lottiebudget.Limits{})
			var tc *lottiebudget.TooComplexError
			switch {
			case err == nil:
				t.Fatal("accepted")
			case want.measure != "" && (!errors.As(err, &tc) || tc.Measure != want.measure):
				t.Fatalf("%v, want a %s TooComplexError", err, want.measure)
			case want.kind != nil && !errors.Is(err, want.kind):
				t.Fatalf("%v, want %v", err, want.kind)
			case !strings.Contains(err.Error(), want.words):
				t.Fatalf("%v, want it to say %s", err, want.words)
			}
		})
	}
}

// doc is a 32x32 document of one shape layer "L" with these shapes (and these assets).
func doc(shapes, assets string) string {
	return `{"v":"5","fr":30,"ip":0,"op":10,"w":32,"h":32,"assets":[` + assets + `],"layers":[{"ty":4,"nm":"L","shapes":[` + shapes + `]}]}`
}

// TestShapeCounts: the shapes rlottie builds: a repeater repeats, as a group each time,
// everything before it in its array (earlier repeaters included), through nesting and
// precomp uses; an animated copy count counts its greatest keyframe.
func TestShapeCounts(t *testing.T) {
	rect := `{"ty":"rc","s":{"k":[1,1]}}`
	fill := `{"ty":"fl"}`
	rp := func(c string) string { return `{"ty":"rp","c":` + c + `}` }
	for name, c := range map[string]struct {
		shapes, assets string
		want           int64
	}{
		"plain":    {rect + `,` + fill, ``, 2},
		"repeater": {rect + `,` + fill + `,` + rp(`{"k":3}`), ``, 3*3 + 1},
		// [rect, fill] x3 as 3 groups, +1 the first repeater, x4 as 4 groups, +1
		"sequence":  {rect + `,` + fill + `,` + rp(`{"k":3}`) + `,` + rp(`{"k":4}`), ``, (10+1)*4 + 1},
		"nested":    {`{"ty":"gr","it":[` + rect + `,` + rp(`{"k":5}`) + `]},` + rp(`{"k":2}`), ``, ((2*5+1)+1+1)*2 + 1},
		"animated":  {rect + `,` + rp(`{"a":1,"k":[{"t":0,"s":[2],"i":{"x":[0.5],"y":[1]},"o":{"x":[0.5],"y":[0]}},{"t":5,"s":[7]}]}`), ``, 2*7 + 1},
		"no copies": {rect + `,` + rp(`{"k":0}`), ``, 1},
		"precomp": {`{"ty":"gr"}`, `{"id":1,"layers":[{"ty":0,"refId":"2"},{"ty":0,"refId":"2"}]},` +
			`{"id":2,"layers":[{"ty":4,"shapes":[` + rect + `,` + rp(`{"k":10}`) + `]}]}`, 1},
	} {
		info, err := lottiebudget.CheckBytes([]byte(doc(c.shapes, c.assets)), lottiebudget.Limits{})
		if err != nil || info.Shapes != c.want {
			t.Errorf("%s: %d shapes, %v; want %d", name, info.Shapes, err, c.want)
		}
	}
	// a precomp layer counts its asset's shapes each time it is used
	used := `{"v":"5","fr":30,"ip":0,"op":10,"w":32,"h":32,"assets":[{"id":1,"layers":[{"ty":0,"refId":"2"},{"ty":0,"refId":"2"}]},` +
		`{"id":2,"layers":[{"ty":4,"shapes":[` + rect + `,` + rp(`{"k":10}`) + `]}]}],"layers":[{"ty":0,"refId":"1"},{"ty":0,"refId":"1"},{"ty":0,"refId":"1"}]}`
	info, err := lottiebudget.CheckBytes([]byte(used), lottiebudget.Limits{})
	if err != nil || info.Shapes != 3*2*21 || info.Layers != 3+3*2+3*2*1 {
		t.Errorf("precomp uses: %d shapes, %d layers, %v; want %d, %d", info.Shapes, info.Layers, err, 3*2*21, 3+6+6)
	}
	_, err = lottiebudget.CheckBytes([]byte(used), lottiebudget.Limits{MaxShapes: 3*2*21 - 1})
	var tc *lottiebudget.TooComplexError
	if !errors.As(err, &tc) || tc.Measure != "shapes" || tc.Limit != 3*2*21-1 {
		t.Errorf("one under: %v", err)
	}
}

// TestAssetIDs: rlottie files an asset with a numeric id under its decimal digits, which a
// string refId names, so its layers count at every use.
func TestAssetIDs(t *testing.T) {
	for _, c := range []struct{ id, ref string }{{`7`, `"7"`}, {`-0`, `"0"`}, {`"7"`, `7`}, {`"x"`, `"x"`}, {`""`, `""`}} {
		d := `{"v":"5","fr":30,"ip":0,"op":10,"w":32,"h":32,"assets":[{"id":` + c.id + `,"layers":[{"ty":3},{"ty":3}]}],` +
			`"layers":[{"ty":0,"refId":` + c.ref + `},{"ty":0,"refId":` + c.ref + `}]}`
		info, err := lottiebudget.CheckBytes([]byte(d), lottiebudget.Limits{})
		if err != nil || info.Layers != 2+2*2 {
			t.Errorf("id %s, refId %s: %d layers, %v; want 6", c.id, c.ref, info.Layers, err)
		}
	}
}

// TestParameterRanges: parameters within their ranges pass, static or keyframed; out of
// them, or keyframed so that their easing takes them out, they are refused naming the
// layer, the shape and the parameter.
func TestParameterRanges(t *testing.T) {
	kf := func(a, b, y string) string {
		return `{"a":1,"k":[{"t":0,"s":[` + a + `],"i":{"x":[0.3],"y":[` + y + `]},"o":{"x":[0.7],"y":[0]}},{"t":5,"s":[` + b + `]}]}`
	}
	star := func(member string) string {
		return `{"ty":"sr","nm":"S","pt":{"k":5},"ir":{"k":5},"or":{"k":10},"is":{"k":0},"os":{"k":0},` + member + `}`
	}
	ok := map[string]string{
		"star":           star(`"r":{"k":1e9}`), // rotation is not bounded
		"star keyframed": star(`"os":` + kf("0", "100", "1")),
		"overshoot":      star(`"os":` + kf("0", "100", "1.5")), // reaches 150
		"dash":           `{"ty":"st","w":{"k":1},"d":[{"n":"d","v":{"k":2}},{"n":"g","v":` + kf("0", "3", "1") + `},{"n":"o","v":{"k":-50}}]}`,
		"no dash":        `{"ty":"st","w":{"k":1},"d":[]}`,
		"scale":          `{"ty":"gr","it":[{"ty":"tr","s":{"k":[10000,-10000]}}]}`,
		"gradient":       `{"ty":"gf","g":{"p":3,"k":{"k":[0,1,1,1,0.5,1,1,1,1,1,1,1]}}}`,
		"repeater":       `{"ty":"rc","s":{"k":[1,1]}},{"ty":"rp","c":{"k":20},"o":{"k":-3},"tr":{"s":{"k":[120,120]}}}`,
		"path":           `{"ty":"sh","ks":{"k":{"i":[[0,0]],"o":[[0,0]],"v":[[100000,-100000]],"c":true}}}`,
	}
	for name, shapes := range ok {
		if _, err := lottiebudget.CheckBytes([]byte(doc(shapes, "")), lottiebudget.Limits{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	refused := map[string]struct{ shapes, words string }{
		"overshoot":        {star(`"os":` + kf("0", "800", "1.5")), `layer 1 ("L"), shape "S": a polystar's outer roundness (os) reaches 1200 (its keyframes with their easing); it must be from -1000 to 1000`},
		"easing x":         {star(`"os":{"a":1,"k":[{"t":0,"s":[0],"i":{"x":[3],"y":[1]},"o":{"x":[0],"y":[0]}},{"t":5,"s":[1]}]}`), "an easing whose x is 3"},
		"points":           {star(`"pt":{"k":1e6}`), "a polystar's points (pt) is 1000000"},
		"too large":        {star(`"ir":{"k":1e999}`), "a polystar's inner radius (ir) is a number too large"},
		"missing end":      {`{"ty":"st","d":[{"v":{"k":0.05}},{"v":{"a":1,"k":[{"t":0,"s":[5],"i":{"x":0,"y":0},"o":{"x":1,"y":1}}]}}]}`, "add up to 0.05 at their least"}, // rlottie ends the last keyframe at 0
		"single dash":      {`{"ty":"st","d":[{"n":"d","v":{"k":3}}]}`, "a stroke dash needs a length and a gap"},
		"name ignored":     {`{"ty":"st","d":[{"n":"o","v":{"k":-3}},{"n":"d","v":{"k":3}},{"n":"g","v":{"k":3}}]}`, "length or gap is -3"},
		"ty last":          {`{"os":{"k":5000},"nm":"Late","ty":"sr"}`, `shape "Late": a polystar's outer roundness (os) is 5000`},
		"nested":           {`{"ty":"gr","nm":"G","it":[{"ty":"gr","it":[{"ty":"el","s":{"k":[1e6,1]}}]}]}`, `shape "G": an ellipse's size (s) is 1000000`},
		"miter":            {`{"ty":"st","ml":5000}`, "a stroke's miter limit (ml) is 5000"},
		"gradient stops":   {`{"ty":"gs","g":{"p":100000,"k":{"k":[0]}}}`, "a gradient stroke's colour stops (g.p) is 100000"},
		"trim":             {`{"ty":"tm","s":{"k":0},"e":{"k":1e6}}`, "a trim's end (e) is 1000000"},
		"repeater shrinks": {`{"ty":"rc"},{"ty":"rp","c":{"k":10},"o":{"k":-40},"tr":{"s":{"k":[50,50]}}}`, "a repeater's copies grow 1099511627776 times"},
	}
	for name, c := range refused {
		_, err := lottiebudget.CheckBytes([]byte(doc(c.shapes, "")), lottiebudget.Limits{})
		if !errors.Is(err, lottiebudget.ErrOutOfRange) || !strings.Contains(err.Error(), c.words) {
			t.Errorf("%s: %v, want ErrOutOfRange saying %s", name, err, c.words)
		}
	}
	// a layer's own parameters, and where: in a precomp
	for name, c := range map[string]struct{ layer, words string }{
		"stretch":   {`{"ty":3,"nm":"N","sr":0}`, `layer 1 ("N"): its time stretch (sr) is 0; it must be from -100 to 100, and not between -0.01 and 0.01`},
		"remap":     {`{"ty":0,"tm":{"a":1,"k":[{"t":0,"s":[0],"h":1},{"t":9,"s":[1e6],"h":1}]}}`, "layer 1: its time remapping (tm) reaches 1000000"},
		"in point":  {`{"ty":3,"ip":-1e300}`, "its in point (ip) is -1e+300"},
		"solid":     {`{"ty":1,"sw":1e9,"sh":10}`, "its solid width (sw) is 1000000000"},
		"precomp":   {`{"ty":0,"refId":"p"}],"assets":[{"id":"p","layers":[{"ty":3},{"ty":3,"nm":"In","st":1e8}]}`, `precomp "p", layer 2 ("In"): its start time (st) is 100000000`},
		"mask path": {`{"ty":3,"masksProperties":[{"pt":{"k":{"v":[[0,5e5]],"i":[[0,0]],"o":[[0,0]]}}}]}`, "layer 1: a path's coordinate is 500000"},
	} {
		d := `{"v":"5","fr":30,"ip":0,"op":10,"w":32,"h":32,"layers":[` + c.layer + `]}`
		_, err := lottiebudget.CheckBytes([]byte(d), lottiebudget.Limits{})
		if !errors.Is(err, lottiebudget.ErrOutOfRange) || !strings.Contains(err.Error(), c.words) {
			t.Errorf("%s: %v, want ErrOutOfRange saying %s", name, err, c.words)
		}
	}
}

// TestEmbeddedImages: an image asset (any asset with "p", whatever else it has and in
// whatever order) is a padded base64 data:image/ URI of a PNG or JPEG, with no
// folder; it is measured from its header against the image limits.
func TestEmbeddedImages(t *testing.T) {
	with := func(asset string) string {
		return `{"v":"5","fr":30,"ip":0,"op":10,"w":32,"h":32,"assets":[` + asset + `],"layers":[{"ty":2,"refId":"i"}]}`
	}
	one := pngURI(t, 3, 2)
	if _, err := lottiebudget.CheckBytes([]byte(with(`{"id":"i","u":"","p":"`+one+`","e":1}`)), lottiebudget.Limits{}); err != nil {
		t.Fatal(err)
	}
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 5, 4)), nil); err != nil {
		t.Fatal(err)
	}
	jpegURI := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpg.Bytes())
	if _, err := lottiebudget.CheckBytes([]byte(with(`{"id":"i","p":"`+jpegURI+`"}`)), lottiebudget.Limits{}); err != nil {
		t.Fatalf("jpeg: %v", err)
	}
	gif := "data:image/gif;base64," + base64.StdEncoding.EncodeToString([]byte("GIF89a\x02\x00\x02\x00\x00\x00\x00;"))
	webp := "data:image/webp;base64," + base64.StdEncoding.EncodeToString([]byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"))
	for name, c := range map[string]struct {
		asset string
		kind  error
		words string
	}{
		"file":           {`{"id":"i","u":"","p":"a.png"}`, lottiebudget.ErrUndrawable, `image asset "i" is not embedded: "a.png"`},
		"p not a string": {`{"id":"i","p":{"x":1}}`, lottiebudget.ErrUndrawable, "not embedded: an object or array"},
		"layers first":   {`{"id":"i","layers":[],"p":"hostname"}`, lottiebudget.ErrUndrawable, "not embedded"},
		"p twice":        {`{"id":"i","p":"` + one + `","p":"/etc/hostname"}`, lottiebudget.ErrUndrawable, "not embedded"},
		"folder":         {`{"id":"i","u":"/tmp/","p":"` + one + `"}`, lottiebudget.ErrUndrawable, `has a folder (u) "/tmp/"`},
		"newline":        {`{"id":"i","p":"` + one[:40] + `\n` + one[40:] + `"}`, lottiebudget.ErrUndrawable, "not padded base64"},
		"url alphabet":   {`{"id":"i","p":"` + one[:22] + strings.NewReplacer("+", "-", "/", "_").Replace(one[22:]) + `-"}`, lottiebudget.ErrUndrawable, "not padded base64"},
		"webp":           {`{"id":"i","p":"` + webp + `"}`, lottiebudget.ErrUndrawable, "cannot be measured: image: unknown format"},
		"gif":            {`{"id":"i","p":"` + gif + `"}`, lottiebudget.ErrUndrawable, "cannot be measured: it is a GIF image, which is not drawn"},
		"no comma":       {`{"id":"i","p":"data:image/png"}`, lottiebudget.ErrUndrawable, "cannot be measured"},
		"wide":           {`{"id":"i","p":"` + pngHeaderURI(16385, 1) + `"}`, nil, `image asset "i" is 16385x1 pixels, more than 16384 on a side`},
		"pixels":         {`{"id":"i","p":"` + pngHeaderURI(12000, 9000) + `"}`, nil, "is 12000x9000 pixels, more than the limit of 100000000"},
		"all together": {`{"id":"i","p":"` + pngHeaderURI(8000, 8000) + `"},{"id":"j","p":"` + pngHeaderURI(8000, 8000) + `"}`,
			nil, "its embedded images are more than 100000000 pixels in all"},
	} {
		_, err := lottiebudget.CheckBytes([]byte(with(c.asset)), lottiebudget.Limits{})
		var tc *lottiebudget.TooComplexError
		if err == nil || (c.kind != nil && !errors.Is(err, c.kind)) || (c.kind == nil && !errors.As(err, &tc)) || !strings.Contains(err.Error(), c.words) {
			t.Errorf("%s: %v, want %v saying %s", name, err, c.kind, c.words)
		}
	}
}

// TestDrawable: the facts the renderer needs.
func TestDrawable(t *testing.T) {
	good := lottiebudget.Info{W: 10, H: 10, FR: 30, IP: 0, OP: 10}
	if err := good.Drawable(); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(*lottiebudget.Info){
		"text":     func(i *lottiebudget.Info) { i.TextLayers = 1 },
		"slow":     func(i *lottiebudget.Info) { i.FR = 0.5 },
		"fast":     func(i *lottiebudget.Info) { i.FR = 1001 },
		"backward": func(i *lottiebudget.Info) { i.OP = -1 },
		"far":      func(i *lottiebudget.Info) { i.IP, i.OP = 1e300, 1e300+1e290 },
		"wide":     func(i *lottiebudget.Info) { i.W = lottiebudget.MaxSide + 1 },
	} {
		i := good
		f(&i)
		if err := i.Drawable(); !errors.Is(err, lottiebudget.ErrUndrawable) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzCheckBytes: the scan never panics and what it accepts is within its limits. Seeds:
// the hostile documents.
func FuzzCheckBytes(f *testing.F) {
	f.Add([]byte(`{"fr":1,"ip":0,"op":1,"w":1,"h":1,"layers":[{"ty":0,"refId":"a"}],"assets":[{"id":"a","layers":[{"ty":4}]}]}`))
	f.Add([]byte(`{"fr":1,"ip":0,"op":1,"w":1,"h":1,"layers":[{"ty":4,"shapes":[{"ks":{"k":{"v":[[0,0]]}}}]}]}`))
	fuzzseed.Files(f, "testdata/hostile/*.json")
	lim := lottiebudget.Limits{MaxLayers: 20, MaxDepth: 3, MaxKeyframes: 20, MaxPoints: 20, MaxFrames: 100, MaxShapes: 50}
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := lottiebudget.CheckBytes(b, lim)
		if err == nil && (info.OP-info.IP > 100 || info.Layers > 20 || info.Shapes > 50) {
			t.Fatalf("accepted %v frames, %d layers, %d shapes", info.OP-info.IP, info.Layers, info.Shapes)
		}
	})
}

func ExampleCheckBytes() {
	d := `{"v":"5","fr":30,"ip":0,"op":10,"w":32,"h":32,"layers":[{"ty":4,"nm":"Stars","shapes":[` +
		`{"ty":"sr","nm":"Star 1","pt":{"k":5},"or":{"k":10},"os":{"k":2147483648}}]}]}`
	_, err := lottiebudget.CheckBytes([]byte(d), lottiebudget.Limits{})
	fmt.Println(err)
	// Output: the Lottie animation has a value out of range: layer 1 ("Stars"), shape "Star 1": a polystar's outer roundness (os) is 2147483648; it must be from -1000 to 1000
}
