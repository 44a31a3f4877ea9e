package render

import (
	"encoding/json"
	"image"
	"image/png"
	"os"
	"testing"
)

// track is a visible, unmuted track of the test states holding the items ids.
func track(id string, ids ...string) map[string]any {
	return map[string]any{"id": id, "hidden": false, "muted": false, "items": append([]string{}, ids...)}
}

// fadeAB is the transitions of a test state: a fade of ticks from clip "a" to clip "b" on
// the track trackID.
func fadeAB(trackID string, ticks int64) map[string]any {
	return map[string]any{"x": map[string]any{"id": "x", "trackId": trackID, "fromClipId": "a",
		"toClipId": "b", "type": "fade", "durationTicks": ticks}}
}

// uncropped gives the items that have none of them crops of zero.
func uncropped(items ...map[string]any) {
	for _, it := range items {
		for _, c := range []string{"cropLeft", "cropTop", "cropRight", "cropBottom"} {
			if _, ok := it[c]; !ok {
				it[c] = anim(0)
			}
		}
	}
}

// stateJSON is a w x h test state of the tracks (top first), assets and items (keyed by
// their ids), with transitions (none when nil) over a background of colour bg.
func stateJSON(w, h int, tracks []any, assets map[string]any, items []map[string]any, transitions map[string]any, bg string) []byte {
	all := map[string]any{}
	for _, it := range items {
		all[it["id"].(string)] = it
	}
	if transitions == nil {
		transitions = map[string]any{}
	}
	raw, err := json.Marshal(map[string]any{
		"compositionWidth": w, "compositionHeight": h, "timebaseTicksPerSecond": pipeTBPS,
		"tracks": tracks, "assets": assets, "items": all, "transitions": transitions,
		"globalBackground": map[string]any{"type": "color", "color": bg, "gradient": nil},
	})
	if err != nil {
		panic(err)
	}
	return raw
}

// writePNG writes img to path as a PNG.
func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
