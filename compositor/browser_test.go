package compositor

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/imagetest"
)

// The browser reference check lays each test case out as an HTML/CSS page (the way the
// editor's preview draws a state), screenshots all of them with headless Chromium in one
// page of iframes, and requires SSIM >= browserSSIM between each screenshot and our frame.
// Easing is left to the browser: every animation and transition is a CSS animation paused
// at the frame's time, so the page checks our cubic-bezier solver too.

const browserSSIM = 0.97

// browserMAD bounds the mean absolute per-channel difference (0..255) as well, since SSIM
// forgives a uniform colour shift in flat areas.
const browserMAD = 4.0

// meanAbsDiff is the mean absolute difference of the R, G and B channels.
func meanAbsDiff(a, b *image.RGBA) float64 {
	sum, n := 0, 0
	for y := 0; y < a.Rect.Dy(); y++ {
		for x := 0; x < a.Rect.Dx(); x++ {
			i, j := a.PixOffset(x, y), b.PixOffset(x, y)
			for c := 0; c < 3; c++ {
				d := int(a.Pix[i+c]) - int(b.Pix[j+c])
				if d < 0 {
					d = -d
				}
				sum += d
				n++
			}
		}
	}
	return float64(sum) / float64(n)
}

func TestBrowserReference(t *testing.T) {
	bin := imagetest.Chromium()
	if bin == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium, or scripts/install-deps.sh --test): browser reference check skipped")
	}
	if testing.Short() {
		t.Skip("browser reference check skipped in -short mode")
	}
	dir := t.TempDir()
	files := testFiles(t)
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var cases []testCase
	for _, tc := range testCases() {
		if tc.noBrowser == "" {
			cases = append(cases, tc)
		}
	}
	for _, tc := range textCases() {
		if tc.noBrowser == "" {
			cases = append(cases, tc)
		}
	}
	const cols = 6
	rows := (len(cases) + cols - 1) / cols
	var index bytes.Buffer
	index.WriteString(`<!doctype html><html><head><style>html,body{margin:0;background:#000}iframe{position:absolute;border:0;width:160px;height:90px;overflow:hidden}</style></head><body>`)
	ours := make([]*image.RGBA, len(cases))
	for i, tc := range cases {
		raw := tc.b.json()
		st, err := editor.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if tc.text {
			ours[i] = renderTextState(t, raw, tc.frame)
		} else {
			ours[i] = renderState(t, raw, tc.frame, files)
		}
		page := htmlFrame(t, st, st.FrameTicks(tc.frame, fps), dir, files)
		name := fmt.Sprintf("case%02d.html", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&index, `<iframe scrolling="no" src="%s" style="left:%dpx;top:%dpx"></iframe>`, name, (i%cols)*tW, (i/cols)*tH)
	}
	index.WriteString(`</body></html>`)
	indexPath := filepath.Join(dir, "index.html")
	if err := os.WriteFile(indexPath, index.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ww, wh := max(cols*tW, 400), max(rows*tH, 300)
	full := imagetest.Screenshot(t, bin, imagetest.Shot{Page: indexPath, Width: ww, Height: wh})
	keep := os.Getenv("CUTROOM_BROWSER_OUT") // a directory to keep both renders in, for a look
	for i, tc := range cases {
		x, y := (i%cols)*tW, (i/cols)*tH
		ref := image.NewRGBA(image.Rect(0, 0, tW, tH))
		for yy := 0; yy < tH; yy++ {
			copy(ref.Pix[yy*ref.Stride:(yy+1)*ref.Stride], full.Pix[full.PixOffset(x, y+yy):full.PixOffset(x+tW, y+yy)])
		}
		s := imagetest.SSIM(ours[i], ref)
		mad := meanAbsDiff(ours[i], ref)
		want := browserSSIM
		if tc.ssim > 0 {
			want = tc.ssim
		}
		if keep != "" {
			imagetest.WritePNG(t, filepath.Join(keep, tc.name+".browser.png"), ref)
			imagetest.WritePNG(t, filepath.Join(keep, tc.name+".ours.png"), ours[i])
		}
		switch {
		case s < want:
			t.Errorf("%s: SSIM %.4f against Chromium, want >= %.2f (mean abs diff %.2f)", tc.name, s, want, mad)
		case mad > browserMAD:
			t.Errorf("%s: mean abs channel difference %.2f against Chromium, want <= %.1f (SSIM %.4f)", tc.name, mad, browserMAD, s)
		default:
			t.Logf("%s: SSIM %.4f, mean abs diff %.2f", tc.name, s, mad)
		}
	}
}

// htmlFrame writes the CSS layout of state st at tick t.
func htmlFrame(t testing.TB, st *editor.State, tick int64, dir string, files map[string][]byte) string {
	var b strings.Builder
	W, H := st.CompositionWidth, st.CompositionHeight
	b.WriteString(`<!doctype html><html><head><style>
@property --p { syntax: '<number>'; inherits: true; initial-value: 0; }
html,body{margin:0;background:#000;overflow:hidden}
.root{position:absolute;left:0;top:0;overflow:hidden;isolation:isolate}
.o,.v,.c,.w,.fx{position:absolute}
.v{overflow:hidden}
.w,.fx{left:0;top:0;right:0;bottom:0}
img.c{display:block}
`)
	b.WriteString(browserFontFaces(t))
	var anims strings.Builder
	nAnim := 0
	// animate returns an animation declaration running the given keyframes, paused at
	// `at` seconds after its start.
	animate := func(frames string, durSec, atSec float64, easing editor.Easing) string {
		nAnim++
		name := fmt.Sprintf("k%d", nAnim)
		fmt.Fprintf(&anims, "@keyframes %s {%s}\n", name, frames)
		tf := string(easing)
		if tf == "" {
			tf = "linear"
		}
		return fmt.Sprintf("animation:%s %.6fs %s %.6fs 1 normal both paused;", name, durSec, tf, -atSec)
	}
	secs := func(ticks int64) float64 { return float64(ticks) / float64(st.TimebaseTicksPerSecond) }

	bg := st.GlobalBackground
	rootStyle := fmt.Sprintf("width:%dpx;height:%dpx;background:#000;", W, H)
	switch bg.Type {
	case editor.BackgroundColor:
		rootStyle += "background-color:" + bg.Color + ";"
		if bg.Gradient != "" {
			rootStyle += "background-image:" + bg.Gradient + ";"
		}
	case editor.BackgroundImage:
		a := st.Asset(bg.ImageAssetID)
		rootStyle += fmt.Sprintf("background:#000 url(%s) center / cover no-repeat;", a.RemoteKey)
	}
	var body strings.Builder

	itemHTML := func(it *editor.Item, lt int64, wrapper string) string {
		var s strings.Builder
		L, T := it.Left.At(lt), it.Top.At(lt)
		w, h := it.Width.At(lt), it.Height.At(lt)
		cl, ct, cr, cb := it.CropLeft.At(lt), it.CropTop.At(lt), it.CropRight.At(lt), it.CropBottom.At(lt)
		vw, vh := w*(1-cl-cr), h*(1-ct-cb)
		outer := fmt.Sprintf("left:%.4fpx;top:%.4fpx;width:%.4fpx;height:%.4fpx;transform:scale(%.6f,%.6f);",
			L, T, w, h, it.ScaleX.At(lt), it.ScaleY.At(lt))
		for _, ap := range []struct {
			spec *editor.AnimationSpec
			in   bool
		}{{it.Animations.In, true}, {it.Animations.Out, false}} {
			sp := ap.spec
			if sp == nil {
				continue
			}
			var away string
			switch sp.Type {
			case "fade":
				away = "opacity:0"
			case "slide-left", "slide-right", "slide-up", "slide-down":
				horiz := sp.Type == "slide-left" || sp.Type == "slide-right"
				d := float64(H)
				if horiz {
					d = float64(W)
				}
				d = paramFloat(sp.Params, "distance", d)
				if sp.Type == "slide-left" || sp.Type == "slide-up" {
					d = -d
				}
				if ap.in {
					d = -d
				}
				if horiz {
					away = fmt.Sprintf("translate:%.4fpx 0px", d)
				} else {
					away = fmt.Sprintf("translate:0px %.4fpx", d)
				}
			case "zoom-in", "zoom-out":
				v := 0.0
				switch {
				case sp.Type == "zoom-in" && ap.in:
					v = paramFloat(sp.Params, "from", 0)
				case sp.Type == "zoom-in":
					v = paramFloat(sp.Params, "to", 2)
				case ap.in:
					v = paramFloat(sp.Params, "from", 2)
				default:
					v = paramFloat(sp.Params, "to", 0)
				}
				away = fmt.Sprintf("scale:%.6f", v)
			}
			rest := strings.Replace(strings.Replace(strings.Replace(away, "opacity:0", "opacity:1", 1), "translate:", "translate:0px 0px;x:", 1), "scale:", "scale:1;x:", 1)
			rest = strings.SplitN(rest, ";", 2)[0]
			if ap.in {
				outer += animate(fmt.Sprintf("from{%s}to{%s}", away, rest), secs(sp.DurationTicks), secs(lt), sp.Easing)
			} else {
				outer += animate(fmt.Sprintf("from{%s}to{%s}", rest, away), secs(sp.DurationTicks), secs(lt-(it.DurationTicks-sp.DurationTicks)), sp.Easing)
			}
		}
		inner := fmt.Sprintf("left:%.4fpx;top:%.4fpx;width:%.4fpx;height:%.4fpx;border-radius:%.4fpx;transform:rotate(%.6fdeg);opacity:%.6f;",
			cl*w, ct*h, vw, vh, it.BorderRadius.At(lt), it.Rotation.At(lt), it.Opacity.At(lt))
		box := fmt.Sprintf("left:%.4fpx;top:%.4fpx;width:%.4fpx;height:%.4fpx;", -cl*w, -ct*h, w, h)
		var content string
		switch it.Type {
		case editor.ItemSolid:
			extra := ""
			switch it.Solid.Shape {
			case "circle":
				extra = "border-radius:50%;"
			case "triangle", "star":
				var pts []string
				for _, p := range shapePolygon(it.Solid.Shape) {
					pts = append(pts, fmt.Sprintf("%.5f%% %.5f%%", p[0]*100, p[1]*100))
				}
				extra = "clip-path:polygon(" + strings.Join(pts, ",") + ");"
			}
			content = fmt.Sprintf(`<div class="c" style="%sbackground:%s;%s"></div>`, box, it.Solid.Color, extra)
		case editor.ItemIllustration:
			svg, _ := testIllustrations(it.Illustration.Name)
			svgs := strings.Replace(string(svg), "<svg ", fmt.Sprintf(`<svg class="c" width="%.4f" height="%.4f" style="%scolor:%s" `, w, h, box, it.Illustration.Color), 1)
			content = svgs
		case editor.ItemImage:
			a := st.Asset(it.AssetID)
			content = fmt.Sprintf(`<img class="c" src="%s" style="%s">`, a.RemoteKey, box)
		case editor.ItemCaptions:
			content = captionsHTML(t, it, lt, st.TimebaseTicksPerSecond, box)
		case editor.ItemTextTemplate:
			content = templateHTML(t, it, lt, box)
		case editor.ItemChart:
			content = chartHTML(t, it, lt, box)
		case editor.ItemGif:
			a := st.Asset(it.AssetID)
			g, err := (&testMedia{files: files}).GIF(nil, a)
			if err != nil {
				t.Fatal(err)
			}
			anim, err := decodeGIF(g, a, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			mt := it.Media.StartFromSeconds + secs(lt)*it.Media.PlaybackRate
			frame := anim.frameAt(mt)
			name := fmt.Sprintf("gif-%s-%d.png", it.ID, lt)
			imagetest.WritePNG(t, filepath.Join(dir, name), frame)
			content = fmt.Sprintf(`<img class="c" src="%s" style="%s">`, name, box)
		}
		fmt.Fprintf(&s, `<div class="o" style="%s"><div class="v" style="%s">%s</div></div>`, outer, inner, content)
		if wrapper != "" {
			return fmt.Sprintf(`<div class="w" style="%s">%s</div>`, wrapper, s.String())
		}
		return s.String()
	}

	transitionHTML := func(tr *editor.Transition, from, to *editor.Item) string {
		d := tr.DurationTicks
		start := from.EndTicks() - d/2
		at := secs(tick - start)
		dur := secs(d)
		anim := func(frames string) string { return animate(frames, dur, at, tr.Easing) }
		fl, tl := tick-from.StartTicks, tick-to.StartTicks
		dir := tr.Params["direction"]
		switch tr.Type {
		case "fade":
			return `<div class="w" style="isolation:isolate">` +
				itemHTML(from, fl, "mix-blend-mode:plus-lighter;"+anim("from{opacity:1}to{opacity:0}")) +
				itemHTML(to, tl, "mix-blend-mode:plus-lighter;"+anim("from{opacity:0}to{opacity:1}")) + `</div>`
		case "slide":
			dx, dy := slideVector(dir, float64(W), float64(H))
			return itemHTML(from, fl, anim(fmt.Sprintf("from{translate:0px 0px}to{translate:%.3fpx %.3fpx}", dx, dy))) +
				itemHTML(to, tl, anim(fmt.Sprintf("from{translate:%.3fpx %.3fpx}to{translate:0px 0px}", -dx, -dy)))
		case "wipe":
			var from0 string
			switch dir {
			case "right":
				from0 = "inset(0 100% 0 0)"
			case "up":
				from0 = "inset(100% 0 0 0)"
			case "down":
				from0 = "inset(0 0 100% 0)"
			default:
				from0 = "inset(0 0 0 100%)"
			}
			return itemHTML(from, fl, "") + itemHTML(to, tl, anim("from{clip-path:"+from0+"}to{clip-path:inset(0 0 0 0)}"))
		case "flip":
			axis := "rotateY"
			if dir == "vertical" || dir == "up" || dir == "down" {
				axis = "rotateX"
			}
			return itemHTML(from, fl, "backface-visibility:hidden;"+anim(fmt.Sprintf("from{transform:%s(0deg)}to{transform:%s(180deg)}", axis, axis))) +
				itemHTML(to, tl, "backface-visibility:hidden;"+anim(fmt.Sprintf("from{transform:%s(-180deg)}to{transform:%s(0deg)}", axis, axis)))
		case "clock-wipe":
			return itemHTML(from, fl, "") + itemHTML(to, tl, "mask-image:conic-gradient(from 0deg at 50% 50%, #000 calc(var(--p) * 360deg), transparent 0deg);"+anim("from{--p:0}to{--p:1}"))
		case "iris":
			r := math.Hypot(float64(W), float64(H)) / 2
			return itemHTML(from, fl, "") + itemHTML(to, tl, anim(fmt.Sprintf("from{clip-path:circle(0px at 50%% 50%%)}to{clip-path:circle(%.3fpx at 50%% 50%%)}", r)))
		}
		return ""
	}

	trans := st.TransitionsSorted()
	for ti := len(st.Tracks) - 1; ti >= 0; ti-- {
		if st.Tracks[ti].Hidden {
			continue
		}
		var active *editor.Transition
		for _, tr := range trans {
			if st.TrackByID(tr.TrackID) != ti {
				continue
			}
			from := st.Item(tr.FromClipID)
			start := from.EndTicks() - tr.DurationTicks/2
			if start <= tick && tick < start+tr.DurationTicks {
				active = tr
			}
		}
		items := st.ItemsInTrack(ti)
		sort.SliceStable(items, func(a, b int) bool { return items[a].StartTicks < items[b].StartTicks })
		for _, it := range items {
			if active != nil && (it.ID == active.FromClipID || it.ID == active.ToClipID) {
				if it.ID == active.FromClipID {
					body.WriteString(transitionHTML(active, it, st.Item(active.ToClipID)))
				}
				continue
			}
			if !it.ActiveAt(tick) {
				continue
			}
			lt := tick - it.StartTicks
			switch it.Type {
			case editor.ItemEffect:
				e := it.Effect
				at, dur := secs(lt), secs(it.DurationTicks)
				I := e.Intensity
				switch e.EffectType {
				case "flash-to-black":
					fmt.Fprintf(&body, `<div class="fx" style="background:#000;%s"></div>`, animate(fmt.Sprintf("0%%{opacity:0}50%%{opacity:%.4f}100%%{opacity:0}", math.Min(1, I)), dur, at, "linear"))
				case "fade-in":
					fmt.Fprintf(&body, `<div class="fx" style="background:#000;%s"></div>`, animate(fmt.Sprintf("from{opacity:%.4f}to{opacity:0}", math.Min(1, I)), dur, at, "linear"))
				case "fade-out":
					fmt.Fprintf(&body, `<div class="fx" style="background:#000;%s"></div>`, animate(fmt.Sprintf("from{opacity:0}to{opacity:%.4f}", math.Min(1, I)), dur, at, "linear"))
				case "blur":
					fmt.Fprintf(&body, `<div class="fx" style="backdrop-filter:blur(%.3fpx)"></div>`, effectSigma*I)
				case "blurred-opening":
					fmt.Fprintf(&body, `<div class="fx" style="%s"></div>`, animate(fmt.Sprintf("from{backdrop-filter:blur(%.3fpx)}to{backdrop-filter:blur(0px)}", 2*effectSigma*I), dur, at, editor.EaseOut))
				}
			case editor.ItemFilter:
				f := it.Filter
				amount := clamp01(f.Intensity) * clamp01(paramFloat(f.Params, "blend", 1))
				fmt.Fprintf(&body, `<div class="fx" style="backdrop-filter:%s;opacity:%.4f"></div>`, FilterCSS(f.FilterType), amount)
			default:
				body.WriteString(itemHTML(it, lt, ""))
			}
		}
	}
	content := body.String()
	if bg.Type == editor.BackgroundBlur {
		// the content's bounding box, scaled to cover the frame, blurred behind the content
		var bx0, by0, bx1, by1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, it := range st.Items {
			if !it.ActiveAt(tick) || !it.HasGeometry {
				continue
			}
			lt := tick - it.StartTicks
			bx0 = math.Min(bx0, it.Left.At(lt))
			by0 = math.Min(by0, it.Top.At(lt))
			bx1 = math.Max(bx1, it.Left.At(lt)+it.Width.At(lt))
			by1 = math.Max(by1, it.Top.At(lt)+it.Height.At(lt))
		}
		k := math.Max(float64(W)/(bx1-bx0), float64(H)/(by1-by0))
		tx := float64(W)/2 - k*(bx1-bx0)/2 - k*bx0
		ty := float64(H)/2 - k*(by1-by0)/2 - k*by0
		content = fmt.Sprintf(`<div class="w" style="transform-origin:0 0;transform:translate(%.3fpx,%.3fpx) scale(%.5f)">%s</div>`, tx, ty, k, content) +
			fmt.Sprintf(`<div class="fx" style="backdrop-filter:blur(%.3fpx)"></div>`, backgroundSigma[bg.Level]) + content
	}
	b.WriteString(anims.String())
	b.WriteString("</style></head><body>")
	fmt.Fprintf(&b, `<div class="root" style="%s">%s</div></body></html>`, rootStyle, content)
	return b.String()
}
