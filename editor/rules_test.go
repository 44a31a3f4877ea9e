package editor

import (
	"encoding/json"
	"strings"
	"testing"
)

// baseState is a valid state using most item types; the rule tests mutate copies of it.
const baseState = `{
 "compositionWidth": 1280, "compositionHeight": 720, "timebaseTicksPerSecond": 240000,
 "tracks": [
  {"id": "t1", "items": ["a", "b"], "hidden": false, "muted": false},
  {"id": "t2", "items": ["c"], "hidden": false, "muted": false},
  {"id": "t3", "items": ["cap"], "hidden": false, "muted": false},
  {"id": "t4", "items": ["ch"], "hidden": false, "muted": false},
  {"id": "t5", "items": ["tt"], "hidden": false, "muted": false}
 ],
 "assets": {
  "img": {"id": "img", "type": "image", "filename": "a.png", "size": 1, "mimeType": "image/png", "width": 10, "height": 10},
  "vid": {"id": "vid", "type": "video", "filename": "b.mp4", "size": 1, "mimeType": "video/mp4", "width": 10, "height": 10, "durationInSeconds": 3, "hasAudioTrack": true},
  "cap": {"id": "cap", "type": "caption", "filename": "c.json", "size": 1, "mimeType": "application/json", "timingGranularity": "line",
          "captions": [{"text": "hi", "startMs": 0, "endMs": 500}]}
 },
 "items": {
  "a": {"id": "a", "type": "image", "assetId": "img", "startTicks": 0, "durationTicks": 100, "isDraggingInTimeline": false,
        "top": {"value": 0, "keyframes": []}, "left": {"value": 0, "keyframes": []}, "width": {"value": 100, "keyframes": []},
        "height": {"value": 100, "keyframes": []}, "scaleX": {"value": 1, "keyframes": []}, "scaleY": {"value": 1, "keyframes": []},
        "opacity": {"value": 1, "keyframes": []}, "keepAspectRatio": true, "borderRadius": {"value": 0, "keyframes": []},
        "rotation": {"value": 0, "keyframes": []}, "cropLeft": {"value": 0, "keyframes": []}, "cropRight": {"value": 0, "keyframes": []},
        "cropTop": {"value": 0, "keyframes": []}, "cropBottom": {"value": 0, "keyframes": []},
        "animations": {"in": {"type": "fade", "durationTicks": 10}}},
  "b": {"id": "b", "type": "video", "assetId": "vid", "startTicks": 100, "durationTicks": 100, "isDraggingInTimeline": false,
        "top": {"value": 0, "keyframes": []}, "left": {"value": 0, "keyframes": []}, "width": {"value": 100, "keyframes": []},
        "height": {"value": 100, "keyframes": []}, "scaleX": {"value": 1, "keyframes": []}, "scaleY": {"value": 1, "keyframes": []},
        "opacity": {"value": 1, "keyframes": []}, "keepAspectRatio": true, "borderRadius": {"value": 0, "keyframes": []},
        "rotation": {"value": 0, "keyframes": []}, "videoStartFromInSeconds": 0, "decibelAdjustment": {"value": 0, "keyframes": []},
        "playbackRate": 1, "audioFadeInDurationInSeconds": 0, "audioFadeOutDurationInSeconds": 0},
  "c": {"id": "c", "type": "text", "text": "Hi", "color": "#fff", "align": "left", "fontFamily": "Inter",
        "fontStyle": {"variant": "normal", "weight": "400"}, "fontSize": 20, "lineHeight": 1.2, "letterSpacing": 0,
        "resizeOnEdit": false, "direction": "ltr", "strokeWidth": 0, "strokeColor": "#000", "background": null,
        "startTicks": 0, "durationTicks": 50, "isDraggingInTimeline": false,
        "top": {"value": 0, "keyframes": []}, "left": {"value": 0, "keyframes": []}, "width": {"value": 100, "keyframes": []},
        "height": {"value": 100, "keyframes": []}, "scaleX": {"value": 1, "keyframes": []}, "scaleY": {"value": 1, "keyframes": []},
        "opacity": {"value": 1, "keyframes": []}},
  "cap": {"id": "cap", "type": "captions", "assetId": "cap", "startTicks": 0, "durationTicks": 100, "isDraggingInTimeline": false,
        "top": {"value": 0, "keyframes": []}, "left": {"value": 0, "keyframes": []}, "width": {"value": 100, "keyframes": []},
        "height": {"value": 100, "keyframes": []}, "scaleX": {"value": 1, "keyframes": []}, "scaleY": {"value": 1, "keyframes": []},
        "opacity": {"value": 1, "keyframes": []}, "fontFamily": "Inter", "fontStyle": {"variant": "normal", "weight": "400"},
        "lineHeight": 1.2, "letterSpacing": 0, "fontSize": 30, "align": "center", "color": "#fff", "highlightColor": "#ff0",
        "strokeWidth": 0, "strokeColor": "#000", "direction": "ltr", "pageDurationInMilliseconds": 1000, "maxLines": 2,
        "contentStartOffsetMs": 0, "source": "manual", "captionGroupId": null, "background": null},
  "ch": {"id": "ch", "type": "chart", "chartType": "bar", "themeColor": "#00f", "animationDurationTicks": 50,
        "data": {"series": [{"key": "s1", "label": "S1"}, {"key": "s2", "label": "S2"}], "rows": [{"label": "r", "values": {"s1": 1, "s2": 2}}]},
        "keepAspectRatio": false, "rotation": {"value": 0, "keyframes": []},
        "startTicks": 0, "durationTicks": 100, "isDraggingInTimeline": false,
        "top": {"value": 0, "keyframes": []}, "left": {"value": 0, "keyframes": []}, "width": {"value": 100, "keyframes": []},
        "height": {"value": 100, "keyframes": []}, "scaleX": {"value": 1, "keyframes": []}, "scaleY": {"value": 1, "keyframes": []},
        "opacity": {"value": 1, "keyframes": []}},
  "tt": {"id": "tt", "type": "text-template", "schemaVersion": 2, "templateId": "x", "templateCategory": "y",
        "startTicks": 0, "durationTicks": 100, "isDraggingInTimeline": false,
        "top": {"value": 0, "keyframes": []}, "left": {"value": 0, "keyframes": []}, "width": {"value": 100, "keyframes": []},
        "height": {"value": 100, "keyframes": []}, "scaleX": {"value": 1, "keyframes": []}, "scaleY": {"value": 1, "keyframes": []},
        "opacity": {"value": 1, "keyframes": []},
        "nodes": [
          {"id": "n1", "type": "image", "imageType": "svg", "imageComponentId": null, "imageLottieJson": null, "x": 0, "y": 0, "width": 10, "height": 10, "opacity": 1},
          {"id": "n2", "type": "text", "x": 0, "y": 0, "width": 10, "height": 10, "text": "T", "color": "#fff", "align": "left", "fontFamily": "Inter",
           "fontStyle": {"variant": "normal", "weight": "400"}, "fontSize": 10, "lineHeight": 1, "letterSpacing": 0, "direction": "ltr",
           "strokeWidth": 0, "strokeColor": "#000", "background": null}
        ]}
 },
 "transitions": {"tr": {"id": "tr", "trackId": "t1", "fromClipId": "a", "toClipId": "b", "type": "fade", "durationTicks": 20}},
 "globalBackground": {"type": "none"},
 "deletedAssets": []
}`

type obj = map[string]any

func at(v any, path ...string) obj {
	for _, p := range path {
		switch x := v.(type) {
		case obj:
			v = x[p]
		case []any:
			i := 0
			for _, c := range p {
				i = i*10 + int(c-'0')
			}
			v = x[i]
		}
	}
	return v.(obj)
}

func kf(pairs ...float64) obj {
	var ks []any
	for i := 0; i+1 < len(pairs); i += 2 {
		ks = append(ks, obj{"timeTicks": pairs[i], "value": pairs[i+1]})
	}
	return obj{"value": 0, "keyframes": ks}
}

func setTrackItems(s obj, i int, ids ...any) {
	if ids == nil {
		ids = []any{}
	}
	s["tracks"].([]any)[i].(obj)["items"] = ids
}

type ruleCase struct {
	name   string
	mutate func(s obj)
	want   []Issue // empty: must be valid
}

// ruleCases lists a valid and an invalid variant of every rule, as mutations of baseState.
func ruleCases() []ruleCase {
	return []ruleCase{
		{"base", func(s obj) {}, nil},
		{"item id mismatch", func(s obj) { at(s, "items", "c")["id"] = "zz" }, []Issue{{CodeItemIDMismatch, "/items/c/id", ""}}},
		{"asset id mismatch", func(s obj) { at(s, "assets", "img")["id"] = "zz" }, []Issue{{CodeAssetIDMismatch, "/assets/img/id", ""}}},
		{"transition id mismatch", func(s obj) { at(s, "transitions", "tr")["id"] = "zz" }, []Issue{{CodeTransitionIDMismatch, "/transitions/tr/id", ""}}},
		{"track id duplicate", func(s obj) { at(s, "tracks", "1")["id"] = "t1" }, []Issue{{CodeTrackIDDuplicate, "/tracks/1/id", ""}}},
		{"track item not found", func(s obj) { setTrackItems(s, 1, "c", "ghost") }, []Issue{{CodeTrackItemNotFound, "/tracks/1/items/1", ""}}},
		{"track item in two tracks", func(s obj) { setTrackItems(s, 1, "c", "a") }, []Issue{{CodeTrackItemDuplicate, "/tracks/1/items/1", ""}}},
		{"track item twice in one track", func(s obj) { setTrackItems(s, 1, "c", "c") }, []Issue{{CodeTrackItemDuplicate, "/tracks/1/items/1", ""}}},
		{"item not in track", func(s obj) { setTrackItems(s, 1) }, []Issue{{CodeItemNotInTrack, "/items/c", ""}}},
		{"overlap", func(s obj) {
			d := cloneJSON(at(s, "items", "c"))
			d["id"], d["startTicks"] = "d", 40
			s["items"].(obj)["d"] = d
			setTrackItems(s, 1, "d", "c")
		}, []Issue{{CodeTrackItemsOverlap, "/tracks/1/items/0", ""}}},
		{"touching is fine", func(s obj) {
			d := cloneJSON(at(s, "items", "c"))
			d["id"], d["startTicks"] = "d", 50
			s["items"].(obj)["d"] = d
			setTrackItems(s, 1, "d", "c")
		}, nil},
		{"keyframe at duration", func(s obj) { at(s, "items", "a")["top"] = kf(0, 0, 100, 5) }, []Issue{{CodeKeyframeOutOfRange, "/items/a/top/keyframes/1/timeTicks", ""}}},
		{"keyframe just inside", func(s obj) { at(s, "items", "a")["top"] = kf(0, 0, 99, 5) }, nil},
		{"keyframe unsorted keeps document index", func(s obj) { at(s, "items", "a")["opacity"] = kf(150, 1, 0, 0, 50, 1) }, []Issue{{CodeKeyframeOutOfRange, "/items/a/opacity/keyframes/0/timeTicks", ""}}},
		{"keyframe in decibelAdjustment", func(s obj) { at(s, "items", "b")["decibelAdjustment"] = kf(100, -3) }, []Issue{{CodeKeyframeOutOfRange, "/items/b/decibelAdjustment/keyframes/0/timeTicks", ""}}},
		{"animation too long", func(s obj) { at(s, "items", "a", "animations", "in")["durationTicks"] = 101 }, []Issue{{CodeAnimationTooLong, "/items/a/animations/in/durationTicks", ""}}},
		{"animation as long as item", func(s obj) { at(s, "items", "a", "animations", "in")["durationTicks"] = 100 }, nil},
		{"caption animation too long", func(s obj) {
			at(s, "items", "c")["captionAnimations"] = obj{"out": obj{"type": "jitter", "durationTicks": 51}}
		}, []Issue{{CodeAnimationTooLong, "/items/c/captionAnimations/out/durationTicks", ""}}},
		{"asset not found", func(s obj) { at(s, "items", "a")["assetId"] = "nope" }, []Issue{{CodeAssetNotFound, "/items/a/assetId", ""}}},
		{"asset type mismatch", func(s obj) { at(s, "items", "a")["assetId"] = "vid" }, []Issue{{CodeAssetTypeMismatch, "/items/a/assetId", ""}}},
		{"captions need a caption asset", func(s obj) { at(s, "items", "cap")["assetId"] = "img" }, []Issue{{CodeAssetTypeMismatch, "/items/cap/assetId", ""}}},
		{"asset deleted", func(s obj) {
			s["deletedAssets"] = []any{obj{"assetId": "img", "remoteUrl": nil, "remoteKey": nil, "statusAtDeletion": obj{"type": "uploaded"}}}
		}, []Issue{{CodeAssetDeleted, "/items/a/assetId", ""}}},
		{"deleted asset not used is fine", func(s obj) {
			s["deletedAssets"] = []any{obj{"assetId": "old", "remoteUrl": nil, "remoteKey": nil, "statusAtDeletion": obj{"type": "pending-upload"}}}
		}, nil},
		{"crop out of range", func(s obj) { at(s, "items", "a")["cropLeft"] = obj{"value": 1.5, "keyframes": []any{}} }, []Issue{{CodeCropOutOfRange, "/items/a/cropLeft/value", ""}}},
		{"crop keyframe out of range", func(s obj) { at(s, "items", "a")["cropTop"] = kf(0, 0, 10, -0.1) }, []Issue{{CodeCropOutOfRange, "/items/a/cropTop/keyframes/1/value", ""}}},
		{"crop leaves nothing", func(s obj) {
			at(s, "items", "a")["cropLeft"] = obj{"value": 0.6, "keyframes": []any{}}
			at(s, "items", "a")["cropRight"] = obj{"value": 0.4, "keyframes": []any{}}
		}, []Issue{{CodeCropEmpty, "/items/a/cropRight", ""}}},
		{"crop leaves a sliver", func(s obj) {
			at(s, "items", "a")["cropLeft"] = obj{"value": 0.5, "keyframes": []any{}}
			at(s, "items", "a")["cropRight"] = obj{"value": 0.49, "keyframes": []any{}}
		}, nil},
		{"animated crop leaves nothing", func(s obj) {
			at(s, "items", "a")["cropTop"] = kf(0, 0, 50, 0.9)
			at(s, "items", "a")["cropBottom"] = obj{"value": 0.2, "keyframes": []any{}}
		}, []Issue{{CodeCropEmpty, "/items/a/cropBottom", ""}}},
		{"transition track not found", func(s obj) { at(s, "transitions", "tr")["trackId"] = "nope" }, []Issue{{CodeTransitionTrackNotFound, "/transitions/tr/trackId", ""}}},
		{"transition clip not found", func(s obj) { at(s, "transitions", "tr")["fromClipId"] = "ghost" }, []Issue{{CodeTransitionClipNotFound, "/transitions/tr/fromClipId", ""}}},
		{"transition clip not in track", func(s obj) { at(s, "transitions", "tr")["toClipId"] = "c" }, []Issue{{CodeTransitionClipNotInTrack, "/transitions/tr/toClipId", ""}}},
		{"transition clip in no track", func(s obj) {
			// The transition's track is the first one (index 0); the clip is listed nowhere.
			d := cloneJSON(at(s, "items", "b"))
			d["id"], d["startTicks"] = "d", 200
			s["items"].(obj)["d"] = d
			at(s, "transitions", "tr")["toClipId"] = "d"
		}, []Issue{{CodeItemNotInTrack, "/items/d", ""}, {CodeTransitionClipNotInTrack, "/transitions/tr/toClipId", ""}}},
		{"transition clips with a gap", func(s obj) { at(s, "items", "b")["startTicks"] = 150 }, []Issue{{CodeTransitionClipNotAdjacent, "/transitions/tr/toClipId", ""}}},
		{"transition clips reversed", func(s obj) {
			at(s, "transitions", "tr")["fromClipId"], at(s, "transitions", "tr")["toClipId"] = "b", "a"
		}, []Issue{{CodeTransitionClipNotAdjacent, "/transitions/tr/toClipId", ""}}},
		{"transition too long", func(s obj) { at(s, "transitions", "tr")["durationTicks"] = 101 }, []Issue{{CodeTransitionTooLong, "/transitions/tr/durationTicks", ""}}},
		{"transition as long as clips", func(s obj) { at(s, "transitions", "tr")["durationTicks"] = 100 }, nil},
		{"transition duplicate", func(s obj) {
			tr2 := cloneJSON(at(s, "transitions", "tr"))
			tr2["id"] = "tr2"
			s["transitions"].(obj)["tr2"] = tr2
		}, []Issue{{CodeTransitionDuplicate, "/transitions/tr2", ""}}},
		{"caption entry ends before start", func(s obj) {
			at(s, "assets", "cap", "captions", "0")["endMs"] = 0
			at(s, "assets", "cap", "captions", "0")["startMs"] = 10
		}, []Issue{{CodeCaptionEntryRange, "/assets/cap/captions/0/endMs", ""}}},
		{"chart series duplicate", func(s obj) { at(s, "items", "ch", "data", "series", "1")["key"] = "s1" }, []Issue{
			{CodeChartSeriesUnknown, "/items/ch/data/rows/0/values/s2", ""}, {CodeChartSeriesDuplicate, "/items/ch/data/series/1/key", ""}}},
		{"chart row with unknown series", func(s obj) { at(s, "items", "ch", "data", "rows", "0")["values"] = obj{"s1": 1, "zz": 2} }, []Issue{{CodeChartSeriesUnknown, "/items/ch/data/rows/0/values/zz", ""}}},
		{"chart row missing a series is fine", func(s obj) { at(s, "items", "ch", "data", "rows", "0")["values"] = obj{"s2": 2} }, nil},
		{"scatter point with unknown series", func(s obj) {
			ch := at(s, "items", "ch")
			ch["chartType"] = "scatter"
			ch["data"] = obj{"series": []any{obj{"key": "s1", "label": "S1"}}, "points": []any{obj{"seriesKey": "s1", "x": 1, "y": 2}, obj{"seriesKey": "s9", "x": 1, "y": 2}}}
		}, []Issue{{CodeChartSeriesUnknown, "/items/ch/data/points/1/seriesKey", ""}}},
		{"pie of zeros", func(s obj) {
			ch := at(s, "items", "ch")
			ch["chartType"] = "pie"
			ch["data"] = obj{"slices": []any{obj{"label": "a", "value": 0}, obj{"label": "b", "value": 0}}}
		}, []Issue{{CodeChartPieEmpty, "/items/ch/data/slices", ""}}},
		{"pie with data on the wrong shape", func(s obj) { at(s, "items", "ch")["chartType"] = "pie" }, []Issue{
			{CodeSchemaInvalid, "/items/ch/data/rows", ""}, {CodeSchemaInvalid, "/items/ch/data/series", ""}, {CodeSchemaInvalid, "/items/ch/data/slices", ""}}},
		{"chart animation too long", func(s obj) { at(s, "items", "ch")["animationDurationTicks"] = 101 }, []Issue{{CodeChartAnimationTooLong, "/items/ch/animationDurationTicks", ""}}},
		{"template node id duplicate", func(s obj) { at(s, "items", "tt", "nodes", "1")["id"] = "n1" }, []Issue{{CodeTemplateNodeIDDuplicate, "/items/tt/nodes/1/id", ""}}},
		{"template node animation too long", func(s obj) {
			at(s, "items", "tt", "nodes", "0")["animations"] = obj{"in": obj{"type": "zoom-in", "durationTicks": 500}}
		}, []Issue{{CodeAnimationTooLong, "/items/tt/nodes/0/animations/in/durationTicks", ""}}},
		{"background image asset not found", func(s obj) {
			s["globalBackground"] = obj{"type": "image", "imageAssetId": "nope", "imageUrl": "x", "source": "custom"}
		}, []Issue{{CodeAssetNotFound, "/globalBackground/imageAssetId", ""}}},
		{"background image of a video", func(s obj) {
			s["globalBackground"] = obj{"type": "image", "imageAssetId": "vid", "imageUrl": "x", "source": "custom"}
		}, []Issue{{CodeAssetTypeMismatch, "/globalBackground/imageAssetId", ""}}},
		{"background image ok", func(s obj) {
			s["globalBackground"] = obj{"type": "image", "imageAssetId": "img", "imageUrl": "x", "source": "custom"}
		}, nil},
		{"effect type invalid", func(s obj) {
			s["items"].(obj)["e"] = obj{"id": "e", "type": "effect", "effectType": "nope", "intensity": 1, "startTicks": 50, "durationTicks": 5, "isDraggingInTimeline": false}
			setTrackItems(s, 1, "c", "e")
		}, []Issue{{CodeEffectTypeInvalid, "/items/e/effectType", ""}}},
		{"filter type missing", func(s obj) {
			s["items"].(obj)["f"] = obj{"id": "f", "type": "filter", "intensity": 1, "startTicks": 50, "durationTicks": 5, "isDraggingInTimeline": false}
			setTrackItems(s, 1, "c", "f")
		}, []Issue{{CodeFilterTypeInvalid, "/items/f/filterType", ""}}},
		{"transition type invalid", func(s obj) { at(s, "transitions", "tr")["type"] = "spin" }, []Issue{{CodeTransitionTypeInvalid, "/transitions/tr/type", ""}}},
		{"animated number schema errors, repeated", func(s obj) {
			bad := obj{"value": "x", "keyframes": []any{obj{"timeTicks": -1, "value": 0}}}
			at(s, "items", "a")["top"] = bad
			at(s, "items", "b")["left"] = cloneJSON(bad)
			at(s, "items", "c")["left"] = cloneJSON(bad)
		}, []Issue{
			{CodeSchemaInvalid, "/items/a/top/keyframes/0/timeTicks", ""}, {CodeSchemaInvalid, "/items/a/top/value", ""},
			{CodeSchemaInvalid, "/items/b/left/keyframes/0/timeTicks", ""}, {CodeSchemaInvalid, "/items/b/left/value", ""},
			{CodeSchemaInvalid, "/items/c/left/keyframes/0/timeTicks", ""}, {CodeSchemaInvalid, "/items/c/left/value", ""},
		}},
		{"animated number missing", func(s obj) { delete(at(s, "items", "a"), "scaleX") }, []Issue{{CodeSchemaInvalid, "/items/a/scaleX", ""}}},
		{"animated number extra member", func(s obj) { at(s, "items", "a", "rotation")["unit"] = "deg" }, []Issue{{CodeSchemaInvalid, "/items/a/rotation/unit", ""}}},
		{"unknown item type", func(s obj) { at(s, "items", "c")["type"] = "hologram" }, []Issue{{CodeSchemaInvalid, "/items/c/type", ""}}},
		{"wrong JSON type deep inside", func(s obj) { at(s, "items", "a")["startTicks"] = "zero" }, []Issue{{CodeSchemaInvalid, "/items/a/startTicks", ""}}},
		{"text background wrong type", func(s obj) { at(s, "items", "c")["background"] = 5 }, []Issue{{CodeSchemaInvalid, "/items/c/background", ""}}},
		{"text background missing member", func(s obj) { at(s, "items", "c")["background"] = obj{"color": "#000", "horizontalPadding": 1} }, []Issue{{CodeSchemaInvalid, "/items/c/background/borderRadius", ""}}},
		{"durationTicks past the limit", func(s obj) { at(s, "items", "c")["durationTicks"] = float64(MaxTicks + 1) }, []Issue{{CodeValueOutOfRange, "/items/c/durationTicks", ""}}},
		{"durationTicks at the limit", func(s obj) { at(s, "items", "c")["durationTicks"] = float64(MaxTicks) }, nil},
		{"startTicks past the limit", func(s obj) { at(s, "items", "c")["startTicks"] = 1e300 }, []Issue{{CodeValueOutOfRange, "/items/c/startTicks", ""}}},
		{"start plus duration past the limit", func(s obj) {
			at(s, "items", "c")["startTicks"] = 1
			at(s, "items", "c")["durationTicks"] = float64(MaxTicks)
		}, []Issue{{CodeValueOutOfRange, "/items/c/durationTicks", ""}}},
		{"keyframe time past the limit", func(s obj) {
			at(s, "items", "c")["durationTicks"] = float64(MaxTicks)
			at(s, "items", "c")["top"] = kf(0, 0, float64(1<<62), 5)
		}, []Issue{{CodeKeyframeOutOfRange, "/items/c/top/keyframes/1/timeTicks", ""}, {CodeValueOutOfRange, "/items/c/top/keyframes/1/timeTicks", ""}}},
		{"animation duration past the limit", func(s obj) { at(s, "items", "a", "animations", "in")["durationTicks"] = 1e19 }, []Issue{
			{CodeAnimationTooLong, "/items/a/animations/in/durationTicks", ""}, {CodeValueOutOfRange, "/items/a/animations/in/durationTicks", ""}}},
		{"caption loop animation past the limit", func(s obj) {
			at(s, "items", "c")["captionAnimations"] = obj{"loop": obj{"type": "jitter", "durationTicks": 1e19}}
		}, []Issue{{CodeValueOutOfRange, "/items/c/captionAnimations/loop/durationTicks", ""}}},
		{"transition duration past the limit", func(s obj) { at(s, "transitions", "tr")["durationTicks"] = 1e19 }, []Issue{
			{CodeTransitionTooLong, "/transitions/tr/durationTicks", ""}, {CodeValueOutOfRange, "/transitions/tr/durationTicks", ""}}},
		{"chart animation past the limit", func(s obj) { at(s, "items", "ch")["animationDurationTicks"] = 1e19 }, []Issue{
			{CodeChartAnimationTooLong, "/items/ch/animationDurationTicks", ""}, {CodeValueOutOfRange, "/items/ch/animationDurationTicks", ""}}},
		{"timebase past the limit", func(s obj) { s["timebaseTicksPerSecond"] = 1e19 }, []Issue{
			{CodeSchemaInvalid, "/timebaseTicksPerSecond", ""}, {CodeValueOutOfRange, "/timebaseTicksPerSecond", ""}}},
		{"pointer escaping", func(s obj) {
			d := cloneJSON(at(s, "items", "c"))
			d["id"], d["startTicks"] = "x/y~z", 60
			d["top"] = kf(0, 1, 60, 2)
			s["items"].(obj)["x/y~z"] = d
			setTrackItems(s, 1, "c", "x/y~z")
		}, []Issue{{CodeKeyframeOutOfRange, "/items/x~1y~0z/top/keyframes/1/timeTicks", ""}}},
	}
}

func TestRules(t *testing.T) {
	v := newValidator(t)
	for _, tc := range ruleCases() {
		t.Run(tc.name, func(t *testing.T) {
			var s obj
			if err := json.Unmarshal([]byte(baseState), &s); err != nil {
				t.Fatal(err)
			}
			tc.mutate(s)
			raw, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			r := v.Validate(raw)
			var got []Issue
			for _, e := range r.Errors {
				if e.Message == "" || !strings.HasPrefix(e.Code, "EDITOR_") {
					t.Errorf("bad issue %+v", e)
				}
				got = append(got, Issue{Code: e.Code, Path: e.Path})
			}
			if r.Valid != (len(tc.want) == 0) || !equalIssues(got, tc.want) {
				t.Fatalf("got %+v\nwant %+v", r.Errors, tc.want)
			}
			// Semantic issues never make the schema-only check fail.
			schemaOnly := v.ValidateSchema(raw)
			for _, e := range schemaOnly.Errors {
				if e.Code != CodeSchemaInvalid && e.Code != CodeEffectTypeInvalid && e.Code != CodeFilterTypeInvalid && e.Code != CodeTransitionTypeInvalid {
					t.Errorf("ValidateSchema reported semantic %+v", e)
				}
			}
		})
	}
}

func cloneJSON(o obj) obj {
	b, _ := json.Marshal(o)
	var c obj
	json.Unmarshal(b, &c)
	return c
}

// TestRuleCodesCovered checks every semantic code and the specific schema codes are
// exercised by TestRules.
func TestRuleCodesCovered(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range ruleCases() {
		for _, is := range tc.want {
			seen[is.Code] = true
		}
	}
	for _, c := range append(SemanticCodes(), CodeSchemaInvalid, CodeEffectTypeInvalid, CodeFilterTypeInvalid, CodeTransitionTypeInvalid) {
		if !seen[c] {
			t.Errorf("no rule test for %s", c)
		}
	}
}

func TestSemanticIssuesOnParsed(t *testing.T) {
	s, err := Parse(readFixture(t, "editor-state.invalid.transition.json"))
	if err != nil {
		t.Fatal(err)
	}
	is := SemanticIssues(s)
	if len(is) != 1 || is[0].Code != CodeTransitionClipNotAdjacent {
		t.Fatalf("%+v", is)
	}
	if SemanticIssues(nil) != nil {
		t.Fatal("nil state")
	}
}
