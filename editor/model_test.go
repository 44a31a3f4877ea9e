package editor

import (
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/apierr"
)

func TestAnimatedNumberAt(t *testing.T) {
	a := AnimatedNumber{Value: 7, Keyframes: []Keyframe{{10, 0}, {20, 100}, {40, 50}}}
	tests := []struct {
		at   int64
		want float64
	}{
		{-5, 0}, {0, 0}, {10, 0}, {15, 50}, {20, 100}, {30, 75}, {40, 50}, {1000, 50},
	}
	for _, tc := range tests {
		if got := a.At(tc.at); got != tc.want {
			t.Errorf("At(%d) = %v, want %v", tc.at, got, tc.want)
		}
	}
	if got := (AnimatedNumber{Value: 3}).At(99); got != 3 {
		t.Errorf("no keyframes: got %v, want 3", got)
	}
	one := AnimatedNumber{Value: 3, Keyframes: []Keyframe{{5, 9}}}
	if one.At(0) != 9 || one.At(10) != 9 {
		t.Errorf("single keyframe must hold its value")
	}
	dup := AnimatedNumber{Keyframes: []Keyframe{{0, 0}, {10, 1}, {10, 5}, {20, 5}}}
	if got := dup.At(10); got != 5 {
		t.Errorf("duplicate time: got %v, want 5 (last wins)", got)
	}
}

func TestFrameTicks(t *testing.T) {
	if got := FrameTicks(3, 30, 240000); got != 24000 {
		t.Errorf("FrameTicks(3,30) = %d", got)
	}
	if got := FrameTicks(1, 60, 240000); got != 4000 {
		t.Errorf("FrameTicks(1,60) = %d", got)
	}
	if got := FrameTicks(1, 0, 240000); got != 0 {
		t.Errorf("fps 0 must give 0, got %d", got)
	}
	if got := FrameCount(240000, 30, 240000); got != 30 {
		t.Errorf("FrameCount 1s@30 = %d", got)
	}
	if got := FrameCount(240001, 30, 240000); got != 31 {
		t.Errorf("FrameCount just over 1s@30 = %d", got)
	}
}

// bigMulDiv is a*b/c (c > 0) with big integers, rounded down or up, and whether it fits an int64.
func bigMulDiv(a, b, c int64, up bool) (int64, bool) {
	p := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	q, r := new(big.Int).QuoRem(p, big.NewInt(c), new(big.Int))
	if up && r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return math.MaxInt64, false
	}
	return q.Int64(), true
}

func TestFrameArithmeticDoesNotOverflow(t *testing.T) {
	// The product durationTicks*fps overflowed int64 here, and the state read as empty.
	for _, c := range []struct{ dur, fps, tbps int64 }{
		{math.MaxInt64, 30, 240000}, {math.MaxInt64, 60, 240000}, {MaxTicks, MaxFPS, 240000},
		{math.MaxInt64 / 30, 31, 240000}, {math.MaxInt64, math.MaxInt64, 1}, {math.MaxInt64, 1, math.MaxInt64},
	} {
		want, _ := bigMulDiv(c.dur, c.fps, c.tbps, true)
		if got := FrameCount(c.dur, c.fps, c.tbps); got != want || got <= 0 {
			t.Errorf("FrameCount(%d, %d, %d) = %d, want %d", c.dur, c.fps, c.tbps, got, want)
		}
	}
	for _, c := range []struct{ n, fps, tbps int64 }{
		{math.MaxInt64, 30, 240000}, {1 << 50, 1, 240000}, {math.MaxInt64 / 240000, 1, 240000}, {-5, 30, 240000}, {math.MinInt64, 30, 240000},
	} {
		n := c.n
		if n == math.MinInt64 {
			n++
		}
		neg := n < 0
		if neg {
			n = -n
		}
		want, _ := bigMulDiv(n, c.tbps, c.fps, false)
		if neg {
			want = -want
		}
		if got := FrameTicks(c.n, c.fps, c.tbps); got != want {
			t.Errorf("FrameTicks(%d, %d, %d) = %d, want %d", c.n, c.fps, c.tbps, got, want)
		}
	}
	// A state at the tick limit has a frame count whose own ticks are in range again.
	n := FrameCount(MaxTicks, MaxFPS, 240000)
	if got := FrameTicks(n, MaxFPS, 240000); got < MaxTicks || got > MaxTicks+240000/MaxFPS {
		t.Errorf("FrameTicks(FrameCount(MaxTicks)) = %d", got)
	}
}

func TestMulDiv(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := []int64{0, 1, 2, 30, 48000, 240000, MaxTicks, 1 << 62, math.MaxInt64 - 1, math.MaxInt64}
	for i := 0; i < 20000; i++ {
		pick := func() int64 {
			if r.IntN(3) == 0 {
				return vals[r.IntN(len(vals))]
			}
			return r.Int64N(math.MaxInt64) >> r.IntN(63)
		}
		a, b, c := pick(), pick(), pick()
		if c == 0 {
			c = 1
		}
		for _, up := range []bool{false, true} {
			want, wok := bigMulDiv(a, b, c, up)
			f := MulDiv
			if up {
				f = MulDivCeil
			}
			got, ok := f(a, b, c)
			if got != want || ok != wok {
				t.Fatalf("MulDiv(%d, %d, %d, up %v) = %d %v, want %d %v", a, b, c, up, got, ok, want, wok)
			}
		}
	}
	if _, ok := MulDiv(-1, 2, 3); ok {
		t.Error("negative argument accepted")
	}
	if _, ok := MulDiv(1, 2, 0); ok {
		t.Error("zero divisor accepted")
	}
}

func mustParseFile(t *testing.T, name string) *State {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(raw)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return s
}

func TestParseExamples(t *testing.T) {
	files, _ := filepath.Glob("testdata/editor-state.*.json")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		mustParseFile(t, filepath.Base(f))
	}
}

func TestParseValidMain(t *testing.T) {
	s := mustParseFile(t, "editor-state.valid.json")
	if s.CompositionWidth != 1920 || s.CompositionHeight != 1080 || s.TimebaseTicksPerSecond != 240000 {
		t.Fatalf("composition: %+v", s)
	}
	if len(s.Tracks) != 4 || s.Tracks[0].ID != "track-main" {
		t.Fatalf("tracks: %+v", s.Tracks)
	}
	main := s.ItemsInTrack(0)
	if len(main) != 2 || main[0].ID != "item-image-1" || main[1].ID != "item-solid-1" {
		t.Fatalf("ItemsInTrack(0): %v", main)
	}
	img := s.Item("item-image-1")
	if img.Type != ItemImage || img.Image == nil || img.AssetID != "asset-image-1" || !img.KeepAspectRatio {
		t.Fatalf("image: %+v", img)
	}
	if img.Animations.In == nil || img.Animations.In.Type != "fade" || img.Animations.In.DurationTicks != 10 || img.Animations.In.Easing != EaseLinear {
		t.Fatalf("image animation: %+v", img.Animations.In)
	}
	if img.Width.Value != 1920 || img.ScaleX.Value != 1 || img.Opacity.Value != 1 || !img.HasGeometry || !img.HasCrop {
		t.Fatalf("image geometry: %+v", img)
	}
	if img.TrackIndex() != 0 {
		t.Fatalf("track index %d", img.TrackIndex())
	}
	solid := s.Item("item-solid-1")
	if solid.Solid == nil || solid.Solid.Color != "#111827" || solid.Solid.Shape != "rectangle" {
		t.Fatalf("solid: %+v", solid.Solid)
	}
	eff := s.Item("item-effect-1")
	if eff.Effect == nil || eff.Effect.EffectType != "blur" || eff.Effect.Intensity != 1 || eff.HasGeometry {
		t.Fatalf("effect: %+v", eff)
	}
	flt := s.Item("item-filter-1")
	if flt.Filter == nil || flt.Filter.FilterType != "cyberpunk-neon" || flt.Filter.Params["blend"] != "0.65" {
		t.Fatalf("filter: %+v", flt.Filter)
	}
	txt := s.Item("item-text-1")
	if txt.Text == nil || txt.Text.Text != "Caption animation example" || txt.Text.FontStyle.Weight != "600" ||
		txt.Text.Align != AlignCenter || txt.Text.FontSize != 64 || txt.Text.Background != nil || txt.Text.Direction != DirectionLTR {
		t.Fatalf("text: %+v", txt.Text)
	}
	if ca := txt.CaptionAnimations; ca.In == nil || ca.In.Type != "converge" || ca.Loop == nil || ca.Loop.Type != "jitter" || ca.Out == nil || ca.Out.DurationTicks != 24 {
		t.Fatalf("caption animations: %+v", ca)
	}
	tr := s.Transitions["transition-1"]
	if tr == nil || tr.Type != "fade" || tr.FromClipID != "item-image-1" || tr.Easing != EaseInOut || tr.DurationTicks != 15 {
		t.Fatalf("transition: %+v", tr)
	}
	if len(s.TransitionsSorted()) != 1 {
		t.Fatal("TransitionsSorted")
	}
	if img.TransitionOut != tr || img.TransitionIn != nil || s.Item("item-solid-1").TransitionIn != tr {
		t.Fatalf("transition links: %+v", img)
	}
	if img.Asset == nil || img.Asset.Filename != "cover.png" || s.Item("item-solid-1").Asset != nil {
		t.Fatal("asset link")
	}
	if s.GlobalBackground.Type != BackgroundColor || s.GlobalBackground.Color != "#111827" || s.GlobalBackground.Gradient != "" {
		t.Fatalf("background: %+v", s.GlobalBackground)
	}
	if a := s.Asset("asset-image-1"); a == nil || a.Type != AssetImage || a.Width != 1920 || a.RemoteKey != "cover.png" {
		t.Fatalf("asset: %+v", a)
	}
	if got := s.DurationTicks(); got != 240 {
		t.Fatalf("DurationTicks = %d, want 240", got)
	}
	if s.FrameTicks(1, 30) != 8000 {
		t.Fatal("State.FrameTicks")
	}
}

func TestParseCaptionsChartTemplate(t *testing.T) {
	s := mustParseFile(t, "editor-state.valid.caption.json")
	c := s.Item("item-caption-1")
	if c.Captions == nil || c.Captions.HighlightColor != "#39E508" || c.Captions.MaxLines != 2 || c.Captions.PageDurationMs != 1800 || c.Captions.Source != "auto" {
		t.Fatalf("captions: %+v", c.Captions)
	}
	es := s.CaptionEntries(c)
	if len(c.Captions.Entries) != 2 {
		t.Fatal("Entries not resolved")
	}
	if len(es) != 2 || es[1].Text != "world" || es[1].StartMs != 420 || es[1].Confidence != 0.96 {
		t.Fatalf("entries: %+v", es)
	}

	s = mustParseFile(t, "editor-state.valid.chart.json")
	ch := s.Item("item-chart-1").Chart
	if ch == nil || ch.ChartType != ChartScatter || len(ch.Series) != 2 || len(ch.Points) != 3 || ch.Points[2].SeriesIndex != 1 || ch.AnimationDurationTicks != 120000 {
		t.Fatalf("chart: %+v", ch)
	}

	s = mustParseFile(t, "editor-state.valid.text-template.json")
	tp := s.Item("item-template-1").Template
	if tp == nil || tp.SchemaVersion != 2 || len(tp.Nodes) != 2 || tp.Nodes[0].Type != TemplateNodeImage ||
		tp.Nodes[0].ImageComponentID != "component-hero-mark" || tp.Nodes[1].Style.FontSize != 72 || tp.Nodes[1].Text != "Launch in minutes" {
		t.Fatalf("template: %+v", tp)
	}

	s = mustParseFile(t, "editor-state.valid.runtime.json")
	if s.GlobalBackground.Type != BackgroundImage || s.GlobalBackground.Source != "preset" || s.BrandRuntime == nil || s.BrandRuntime.LogoX != 48 {
		t.Fatalf("runtime: %+v %+v", s.GlobalBackground, s.BrandRuntime)
	}
	if len(s.DeletedAssets) != 1 || s.DeletedAssets[0].StatusAtDeletion != "uploaded" {
		t.Fatalf("deleted: %+v", s.DeletedAssets)
	}
}

func TestParseLenient(t *testing.T) {
	raw := `{"timebaseTicksPerSecond":240000.0,"tracks":[{"id":"t","items":["b","a","zz"]}],
	"items":{"a":{"id":"a","type":"chart","chartType":"bar","startTicks":10.0,"durationTicks":5,
	"data":{"series":[{"key":"k","label":"K"},{"key":"m","label":"M"}],"rows":[{"label":"r","values":{"k":3}}]},
	"top":{"value":1,"keyframes":[{"timeTicks":4,"value":2},{"timeTicks":1,"value":1}]}},
	"b":{"id":"b","type":"solid","startTicks":0,"durationTicks":10,"unknownMember":{"x":[1,2]}}},
	"transitions":{},"assets":{},"globalBackground":null}`
	s, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	items := s.ItemsInTrack(0)
	if len(items) != 2 || items[0].ID != "b" || items[1].ID != "a" {
		t.Fatalf("order: %v", items)
	}
	a := s.Item("a")
	if a.Top.Keyframes[0].TimeTicks != 1 || a.Top.At(4) != 2 {
		t.Fatalf("keyframes not sorted: %+v", a.Top)
	}
	row := a.Chart.Rows[0]
	if row.SeriesValues[0] != 3 || !math.IsNaN(row.SeriesValues[1]) {
		t.Fatalf("series values: %+v", row.SeriesValues)
	}
	if s.GlobalBackground.Type != BackgroundNone || s.DurationTicks() != 15 {
		t.Fatalf("bg %+v dur %d", s.GlobalBackground, s.DurationTicks())
	}
	if b := s.Item("b"); b.ScaleX.Value != 1 || b.Opacity.Value != 1 {
		t.Fatalf("defaults: %+v", b)
	}
	// Members of the wrong JSON type read as absent.
	s, err = Parse([]byte(`{"tracks":{},"compositionWidth":"x","items":{"a":{"type":"solid","startTicks":"x","durationTicks":5},"b":7}}`))
	if err != nil || len(s.Tracks) != 0 || s.CompositionWidth != 0 || s.Item("a").StartTicks != 0 || s.Item("a").DurationTicks != 5 {
		t.Fatalf("lenient parse: %v %+v", err, s)
	}
	for _, bad := range []string{``, `[]`, `null`, `"x"`, `{`, `{"a":1}}`} {
		_, err := Parse([]byte(bad))
		if err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		} else if e := apierr.As(err); e == nil || e.Code.String() != CodeInvalidJSON || !strings.HasPrefix(e.Detail, CodeInvalidJSON+": ") {
			t.Errorf("Parse(%q): %v", bad, err)
		}
	}
}

func TestEasingApply(t *testing.T) {
	// Reference values of the CSS curves (from cubic-bezier solvers), to 1e-3.
	tests := []struct {
		e    Easing
		p    float64
		want float64
	}{
		{EaseLinear, 0.3, 0.3}, {"", 0.3, 0.3}, {"bogus", 0.7, 0.7},
		{EaseIn, 0.5, 0.3153}, {EaseOut, 0.5, 0.6847}, {EaseInOut, 0.5, 0.5},
		{EaseInOut, 0.25, 0.1292}, {EaseIn, 0, 0}, {EaseIn, 1, 1}, {EaseOut, -1, 0}, {EaseOut, 2, 1},
	}
	for _, tc := range tests {
		if got := tc.e.Apply(tc.p); math.Abs(got-tc.want) > 1e-3 {
			t.Errorf("%q.Apply(%v) = %v, want %v", tc.e, tc.p, got, tc.want)
		}
	}
	if got := EaseIn.Apply(math.NaN()); got != 0 {
		t.Errorf("NaN: %v", got)
	}
	prev := 0.0
	for i := 1; i <= 100; i++ {
		v := EaseInOut.Apply(float64(i) / 100)
		if v < prev {
			t.Fatalf("not monotonic at %d", i)
		}
		prev = v
	}
}
