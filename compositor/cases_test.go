package compositor

// testCase is one state and frame rendered by the golden and the browser checks.
type testCase struct {
	name  string
	b     *builder
	frame int64
	// ssim overrides the browser check's threshold (0: the default 0.97); noBrowser leaves
	// the case out of the browser check (with the reason).
	noBrowser string
	// text marks cases that need the text engine (textCases); ssim overrides browserSSIM.
	text bool
	ssim float64
}

const sec = int64(secTicks)

// pair returns two adjacent image/solid clips on track 0 for a transition test: a pattern
// image then a teal solid with a star, cut at 1 s.
func pair(b *builder) *builder {
	return b.add(0,
		imageItem("a", "pattern", 0, sec, 10, 5, 140, 80),
		solid("b", sec, sec, 20, 10, 120, 70, "#14b8a6", "rectangle"),
	)
}

func testCases() []testCase {
	var cs []testCase
	add := func(name string, frame int64, b *builder) { cs = append(cs, testCase{name: name, b: b, frame: frame}) }

	// item types
	add("solid_shapes", 0, newBuilder().stack(
		with(solid("r", 0, sec, 6, 8, 34, 30, "#ef4444", "rectangle"), "borderRadius", an(8)),
		solid("c", 0, sec, 44, 8, 40, 30, "rgb(34 197 94)", "circle"),
		solid("t", 0, sec, 88, 8, 30, 34, "hsl(210, 90%, 60%)", "triangle"),
		solid("s", 0, sec, 120, 6, 36, 36, "gold", "star"),
		with(solid("r2", 0, sec, 10, 50, 140, 34, "rgba(255,255,255,0.5)", "rectangle"), "borderRadius", an(17)),
	))
	add("image_stretch", 0, newBuilder().add(0, imageItem("i", "pattern", 0, sec, 20, 12, 120, 60)))
	add("image_downscale", 0, newBuilder().add(0, imageItem("i", "big", 0, sec, 30, 20, 100, 50)))
	add("image_upscale_offset", 0, newBuilder().add(0, imageItem("i", "pattern", 0, sec, -20.5, 7.25, 200, 110)))
	add("svg_image", 0, newBuilder().stack(
		imageItem("i", "logo", 0, sec, 10, 10, 60, 60),
		imageItem("j", "logo", 0, sec, 80, 20, 70, 40),
	))
	gifItem := func(id, asset string, left float64, startFrom, rate float64) map[string]any {
		return with(geo(id, "gif", 0, 2*sec, left, 25, 40, 40), "assetId", asset, "borderRadius", an(0),
			"gifStartFromInSeconds", startFrom, "playbackRate", rate)
	}
	// frame 4 is 0.133 s: plain gif shows frame 1 (green); from 0.1 s at rate 2 shows 0.367 s
	// -> loops to 0.067 s, frame 0 (red); the finite one at 0.1+0.133*3=0.5 s holds frame 2.
	add("gif_timing", 4, newBuilder().stack(
		gifItem("g1", "anim", 5, 0, 1),
		gifItem("g2", "anim", 60, 0.1, 2),
		gifItem("g3", "animOnce", 115, 0.1, 3),
	))
	add("illustration", 0, newBuilder().stack(
		with(geo("h", "illustration", 0, sec, 10, 10, 70, 70), "illustrationName", "heart", "color", "#e11d48"),
		with(geo("o", "illustration", 0, sec, 90, 20, 60, 40), "illustrationName", "ring", "color", "rgba(56,189,248,0.8)"),
	))
	add("illustration_library", 0, newBuilder().stack(
		with(geo("a", "illustration", 0, sec, 4, 5, 50, 50), "illustrationName", "face-smile", "color", "#facc15"),
		with(geo("b", "illustration", 0, sec, 56, 5, 50, 50), "illustrationName", "gear", "color", "#94a3b8"),
		with(geo("c", "illustration", 0, sec, 108, 5, 50, 50), "illustrationName", "star-5-outline", "color", "#f472b6"),
		with(geo("d", "illustration", 0, sec, 4, 58, 100, 30), "illustrationName", "wave-line", "color", "#38bdf8"),
		with(geo("e", "illustration", 0, sec, 110, 55, 40, 34), "illustrationName", "cloud", "color", "white", "rotation", an(15)),
	))

	// geometry
	add("crop_rotate_radius", 0, newBuilder().add(0,
		with(imageItem("i", "pattern", 0, sec, 25, 10, 110, 70),
			"cropLeft", an(0.1), "cropTop", an(0.2), "cropRight", an(0.15), "cropBottom", an(0.05),
			"rotation", an(25), "borderRadius", an(10), "opacity", an(0.85), "scaleX", an(1.1), "scaleY", an(0.9)),
	))
	add("rotate_scale_solid", 0, newBuilder().add(0,
		with(solid("s", 0, sec, 50, 25, 60, 40, "#a855f7", "rectangle"), "rotation", an(-40), "scaleX", an(1.3), "scaleY", an(0.7), "borderRadius", an(6)),
	))
	// keyframes: at frame 15 (half of 1 s) left is halfway 0 -> 80 and opacity 1 -> 0.4.
	add("keyframes", 15, newBuilder().add(0,
		with(imageItem("i", "pattern", 0, sec, 0, 15, 64, 36),
			"left", an(0, [2]float64{0, 0}, [2]float64{float64(sec - 1), 80}),
			"opacity", an(1, [2]float64{0, 1}, [2]float64{float64(sec - 1), 0.4}),
			"rotation", an(0, [2]float64{float64(sec / 4), 0}, [2]float64{float64(sec * 3 / 4), 90})),
	))

	// animations at their midpoints (in: 0.5 s long, frame 7.5 -> use frame 8 of 16 ticks...)
	anim := func(kind, typ, easing string, params map[string]any) *builder {
		it := imageItem("i", "pattern", 0, 2*sec, 40, 22, 80, 45)
		spec := map[string]any{"type": typ, "durationTicks": sec, "easing": easing}
		if params != nil {
			spec["params"] = params
		}
		it["animations"] = map[string]any{kind: spec}
		return newBuilder().add(0, solid("bgs", 0, 2*sec, 0, 0, tW, tH, "#334155", "rectangle")).add(0).add(1, it).swapFront()
	}
	add("anim_fade_in", 15, anim("in", "fade", "linear", nil))
	add("anim_slide_left_in", 15, anim("in", "slide-left", "ease-out", nil))
	add("anim_slide_right_in", 15, anim("in", "slide-right", "ease-in", nil))
	add("anim_slide_up_out", 45, anim("out", "slide-up", "ease-in-out", nil))
	add("anim_slide_down_out", 45, anim("out", "slide-down", "linear", map[string]any{"distance": 40}))
	add("anim_zoom_in", 15, anim("in", "zoom-in", "ease-in-out", nil))
	add("anim_zoom_out", 45, anim("out", "zoom-out", "linear", nil))

	// transitions at their midpoints (the cut is at 1 s = frame 30)
	for _, tr := range []struct {
		name, typ, easing string
		params            map[string]any
	}{
		{"fade", "fade", "linear", nil},
		{"slide", "slide", "ease-in-out", nil},
		{"slide_up", "slide", "linear", map[string]any{"direction": "up"}},
		{"wipe", "wipe", "linear", nil},
		{"wipe_down", "wipe", "ease-in", map[string]any{"direction": "down"}},
		{"flip", "flip", "linear", nil},
		{"clock_wipe", "clock-wipe", "linear", nil},
		{"iris", "iris", "ease-out", nil},
	} {
		// frame 27 of a 0.5 s transition centred on frame 30: progress 0.2 before easing
		b := pair(newBuilder()).transition("tr", 0, "a", "b", tr.typ, sec/2, tr.easing, tr.params)
		add("transition_"+tr.name, 27, b)
	}

	// effects and filters over a scene (they act on the tracks behind them)
	scene := func() *builder {
		return newBuilder().add(1,
			imageItem("i", "pattern", 0, sec, 0, 0, tW, tH),
			// a second clip so the track has more than one item
		).add(2, solid("s", 0, sec, 100, 50, 50, 30, "#f8fafc", "circle"))
	}
	for _, e := range []struct {
		typ   string
		in    float64
		frame int64
	}{{"flash-to-black", 1, 15}, {"blur", 0.6, 10}, {"blurred-opening", 1, 8}, {"fade-in", 0.8, 10}, {"fade-out", 1, 20}} {
		b := scene().add(0, map[string]any{"id": "e", "type": "effect", "effectType": e.typ, "intensity": e.in,
			"startTicks": 0, "durationTicks": sec, "isDraggingInTimeline": false})
		add("effect_"+e.typ, e.frame, b)
	}
	for _, f := range []string{"verdant-glow", "cyberpunk-neon", "vaporwave-blue", "sunset-orange", "lemon-cyan", "absolute-red", "sakura-pink", "twilight-dusk"} {
		b := scene().add(0, map[string]any{"id": "f", "type": "filter", "filterType": f, "intensity": 0.9,
			"params": map[string]any{"blend": 0.8}, "startTicks": 0, "durationTicks": sec, "isDraggingInTimeline": false})
		add("filter_"+f, 5, b)
	}

	// backgrounds
	small := func() *builder { return newBuilder().add(0, imageItem("i", "pattern", 0, sec, 50, 25, 60, 40)) }
	var b *builder
	for _, bg := range []struct {
		name string
		bg   map[string]any
	}{
		{"bg_color", map[string]any{"type": "color", "color": "#1e3a8a", "gradient": nil}},
		{"bg_linear_gradient", map[string]any{"type": "color", "color": "#000", "gradient": "linear-gradient(135deg, #f97316 0%, rgba(236,72,153,0.9) 50%, #6366f1 100%)"}},
		{"bg_linear_to_right", map[string]any{"type": "color", "color": "#111", "gradient": "linear-gradient(to right, red, yellow 30%, #0000ff)"}},
		{"bg_radial_gradient", map[string]any{"type": "color", "color": "#0f172a", "gradient": "radial-gradient(circle at 30% 40%, #fde047, #16a34a 60%, transparent 100%)"}},
		{"bg_radial_ellipse", map[string]any{"type": "color", "color": "#0f172a", "gradient": "radial-gradient(#22d3ee, #1e1b4b)"}},
		{"bg_linear_corner", map[string]any{"type": "color", "color": "#000", "gradient": "linear-gradient(to top right, #22c55e, rgba(0,0,0,0) 40%, #eab308 80%)"}},
		{"bg_radial_explicit", map[string]any{"type": "color", "color": "#312e81", "gradient": "radial-gradient(ellipse 60px 30px at 20px 30px, #f43f5e, #f43f5e 30%, transparent)"}},
		{"bg_image", map[string]any{"type": "image", "imageAssetId": "big", "imageUrl": "big.png", "source": "custom"}},
	} {
		b = small()
		b.bg = bg.bg
		add(bg.name, 0, b)
	}
	for _, id := range PresetNames() {
		b = small()
		b.bg = map[string]any{"type": "image", "imageAssetId": nil, "imageUrl": "preset://" + id, "source": "preset"}
		cs = append(cs, testCase{name: "bg_preset_" + id, b: b, noBrowser: "procedural preset, no CSS equivalent"})
	}
	b = newBuilder().add(0, imageItem("i", "pattern", 0, sec, 55, 10, 50, 70))
	b.bg = map[string]any{"type": "blur", "level": 2}
	add("bg_blur", 0, b)
	b = small()
	add("bg_none", 0, b)

	// track order: track 0 is in front; hidden tracks are not drawn
	b = newBuilder().add(0, solid("front", 0, sec, 20, 20, 60, 40, "#ef4444", "rectangle")).
		add(1, solid("back", 0, sec, 50, 35, 80, 40, "#3b82f6", "rectangle")).
		add(2, solid("hidden", 0, sec, 0, 0, tW, tH, "#ffffff", "rectangle"))
	b.hidden[2] = true
	add("track_order", 0, b)
	return cs
}

// swapFront moves the last track to the front (tracks[0]).
func (b *builder) swapFront() *builder {
	n := len(b.tracks)
	if n < 2 {
		return b
	}
	last := b.tracks[n-1]
	copy(b.tracks[1:], b.tracks[:n-1])
	b.tracks[0] = last
	// track ids follow positions, so transitions would need renaming; anim cases have none
	return b
}

// stack puts each item on a track of its own, later items in front of earlier ones, in
// front of the tracks already there.
func (b *builder) stack(items ...map[string]any) *builder {
	n := len(items)
	nt := make([][]string, n, n+len(b.tracks))
	nt = append(nt, b.tracks...)
	b.tracks = nt
	for k, it := range items {
		id := it["id"].(string)
		b.items[id] = it
		b.tracks[n-1-k] = []string{id}
	}
	return b
}
