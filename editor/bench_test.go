package editor

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor/internal/fastschema"
	"github.com/cutroom/cutroom/editor/internal/jsontape"
)

// reportCPU reports the CPU time per operation since start (all goroutines), as cpu-ms/op;
// on a shared machine it is steadier than wall time.
func reportCPU(b *testing.B, start time.Duration) {
	if b.N > 0 {
		b.ReportMetric(float64(cpuTime(b)-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}

// loopCPU runs body for every b.Loop and reports allocations and CPU time per operation.
func loopCPU(b *testing.B, body func()) {
	b.Helper()
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		body()
	}
	reportCPU(b, start)
}

// bigTape decodes bigState(tb, n).
func bigTape(tb testing.TB, n int) *jsontape.Tape {
	tb.Helper()
	t, err := jsontape.Decode(bigState(tb, n))
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// bigState builds a valid state with n items spread over tracks of 100 sequential items,
// with keyframes, animations, assets and transitions, indented like an editor would save it.
func bigState(tb testing.TB, n int) []byte {
	tb.Helper()
	an := func(v float64, kf ...float64) map[string]any {
		ks := []any{}
		for i, k := range kf {
			ks = append(ks, map[string]any{"timeTicks": i * 1000, "value": k})
		}
		return map[string]any{"value": v, "keyframes": ks}
	}
	geom := func(m map[string]any, i int) {
		m["top"] = an(float64(i%500), 0, 10, 20)
		m["left"] = an(float64(i%700), 5, 15)
		m["width"] = an(640)
		m["height"] = an(360)
		m["scaleX"] = an(1)
		m["scaleY"] = an(1)
		m["opacity"] = an(1, 0, 1)
		m["rotation"] = an(0)
	}
	tracks := []any{}
	items := map[string]any{}
	assets := map[string]any{}
	transitions := map[string]any{}
	const perTrack = 100
	const dur = 24000
	for t := 0; t*perTrack < n; t++ {
		ids := []any{}
		for j := 0; j < perTrack && t*perTrack+j < n; j++ {
			i := t*perTrack + j
			id := fmt.Sprintf("item-%d", i)
			ids = append(ids, id)
			m := map[string]any{"id": id, "startTicks": j * dur, "durationTicks": dur, "isDraggingInTimeline": false}
			switch i % 4 {
			case 0:
				aid := fmt.Sprintf("asset-%d", i)
				assets[aid] = map[string]any{"id": aid, "type": "image", "filename": aid + ".png", "size": 1000, "remoteUrl": "https://example.com/" + aid + ".png", "remoteKey": aid + ".png", "mimeType": "image/png", "width": 1920, "height": 1080}
				m["type"] = "image"
				m["assetId"] = aid
				m["keepAspectRatio"] = true
				m["borderRadius"] = an(8)
				m["cropLeft"], m["cropTop"], m["cropRight"], m["cropBottom"] = an(0), an(0), an(0.1, 0, 0.2), an(0)
				m["animations"] = map[string]any{"in": map[string]any{"type": "fade", "durationTicks": 2400, "easing": "ease-in"}}
			case 1:
				m["type"] = "solid"
				m["color"] = "#112233"
				m["shape"] = "star"
				m["keepAspectRatio"] = false
				m["borderRadius"] = an(0)
			case 2:
				m["type"] = "text"
				m["text"] = "Hello world, this is a caption line number " + id
				m["color"] = "#ffffff"
				m["align"] = "center"
				m["fontFamily"] = "Inter"
				m["fontStyle"] = map[string]any{"variant": "normal", "weight": "600"}
				m["fontSize"] = 48
				m["lineHeight"] = 1.2
				m["letterSpacing"] = 0
				m["resizeOnEdit"] = true
				m["direction"] = "ltr"
				m["strokeWidth"] = 2
				m["strokeColor"] = "#000000"
				m["background"] = map[string]any{"color": "#00000080", "horizontalPadding": 8, "borderRadius": 4}
				m["captionAnimations"] = map[string]any{"in": map[string]any{"type": "converge", "durationTicks": 2400}}
			case 3:
				aid := fmt.Sprintf("asset-%d", i)
				assets[aid] = map[string]any{"id": aid, "type": "video", "filename": aid + ".mp4", "size": 100000, "remoteUrl": nil, "remoteKey": nil, "mimeType": "video/mp4", "width": 1280, "height": 720, "durationInSeconds": 10, "hasAudioTrack": true}
				m["type"] = "video"
				m["assetId"] = aid
				m["keepAspectRatio"] = true
				m["borderRadius"] = an(0)
				m["videoStartFromInSeconds"] = 1.5
				m["decibelAdjustment"] = an(0, -6, 0)
				m["playbackRate"] = 1
				m["audioFadeInDurationInSeconds"] = 0.5
				m["audioFadeOutDurationInSeconds"] = 0.5
				prev := fmt.Sprintf("item-%d", i-1)
				if j > 0 {
					tid := "tr-" + id
					transitions[tid] = map[string]any{"id": tid, "trackId": fmt.Sprintf("track-%d", t), "fromClipId": prev, "toClipId": id, "type": "wipe", "durationTicks": 4800, "easing": "linear", "params": map[string]any{"direction": "left"}}
				}
			}
			if m["type"] != "effect" {
				geom(m, i)
			}
			items[id] = m
		}
		tracks = append(tracks, map[string]any{"id": fmt.Sprintf("track-%d", t), "items": ids, "hidden": false, "muted": false})
	}
	st := map[string]any{
		"compositionWidth": 1920, "compositionHeight": 1080, "timebaseTicksPerSecond": 240000, "outputRatio": "16:9",
		"tracks": tracks, "assets": assets, "items": items, "transitions": transitions,
		"globalBackground": map[string]any{"type": "color", "color": "#000000", "gradient": nil},
		"brandRuntime":     nil, "deletedAssets": []any{},
	}
	b, err := json.Marshal(st)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestBigStateValid(t *testing.T) {
	raw := bigState(t, 5000)
	r := Validate(raw)
	if !r.Valid {
		t.Fatalf("big state invalid: %v", r.Errors[:min(5, len(r.Errors))])
	}
	t.Logf("big state: %d bytes", len(raw))
}

func BenchmarkValidate5000Items(b *testing.B) {
	raw := bigState(b, 5000)
	v, err := NewValidator()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	loopCPU(b, func() {
		if r := v.Validate(raw); !r.Valid {
			b.Fatal(r.Errors[0])
		}
	})
}

func BenchmarkParse5000Items(b *testing.B) {
	raw := bigState(b, 5000)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateSchema5000Items(b *testing.B) {
	raw := bigState(b, 5000)
	v, _ := NewValidator()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		v.ValidateSchema(raw)
	}
}

// TestBigStateErrors exercises the parallel path with errors spread over many items.
func TestBigStateErrors(t *testing.T) {
	var s obj
	if err := json.Unmarshal(bigState(t, 1000), &s); err != nil {
		t.Fatal(err)
	}
	at(s, "items", "item-7")["top"] = obj{"value": "x", "keyframes": []any{}}
	at(s, "items", "item-900")["top"] = obj{"value": "x", "keyframes": []any{}}
	at(s, "items", "item-901")["shape"] = "hexagon"
	at(s, "items", "item-12")["opacity"] = kf(0, 1, 24000, 0)
	raw, _ := json.Marshal(s)
	want := []Issue{
		{CodeKeyframeOutOfRange, "/items/item-12/opacity/keyframes/1/timeTicks", ""},
		{CodeSchemaInvalid, "/items/item-7/top/value", ""},
		{CodeSchemaInvalid, "/items/item-900/top/value", ""},
		{CodeSchemaInvalid, "/items/item-901/shape", ""},
	}
	for i := 0; i < 3; i++ {
		r := Validate(raw)
		var got []Issue
		for _, e := range r.Errors {
			got = append(got, Issue{Code: e.Code, Path: e.Path})
		}
		if !equalIssues(got, want) {
			t.Fatalf("got %+v\nwant %+v", r.Errors, want)
		}
	}
}

// The benchmarks below time the stages of Validate one by one (decoding, the fast schema
// path, reading the typed view, the semantic rules), without the overlap Validate uses.

func BenchmarkDecode5000Items(b *testing.B) {
	raw := bigState(b, 5000)
	b.SetBytes(int64(len(raw)))
	loopCPU(b, func() {
		if _, err := jsontape.Decode(raw); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkFastSchema5000Items(b *testing.B) {
	t := bigTape(b, 5000)
	v, err := NewValidator()
	if err != nil {
		b.Fatal(err)
	}
	loopCPU(b, func() {
		if r := v.fast.Check(t); r != fastschema.Pass {
			b.Fatal(r)
		}
	})
}

func BenchmarkBuild5000Items(b *testing.B) {
	t := bigTape(b, 5000)
	loopCPU(b, func() {
		if s := build(wireFromTape(t)); s == nil {
			b.Fatal("no state")
		}
	})
}

func BenchmarkSemantic5000Items(b *testing.B) {
	s, err := Parse(bigState(b, 5000))
	if err != nil {
		b.Fatal(err)
	}
	loopCPU(b, func() {
		if is := semanticIssues(s); len(is) != 0 {
			b.Fatal(is[0])
		}
	})
}

// BenchmarkNewValidator measures what a process pays to validate its first state: the fast
// path's compilation (NewValidator), and the library's, paid only when a state fails it.
func BenchmarkNewValidator(b *testing.B) {
	b.Run("FastPath", func(b *testing.B) {
		for b.Loop() {
			if _, err := NewValidator(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Library", func(b *testing.B) {
		for b.Loop() {
			if _, err := compileSchema(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
