package editor

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// This file keeps the first reader of the typed view, over the generic decoded JSON
// (map[string]any and friends), as the reference that wireFromTape must agree with (see
// TestTypedViewMatchesReference). It reads the generic decoded JSON into the wire types
// that build turns into a State. They are lenient: a member of the wrong JSON type reads
// as absent (zero), so that a state with schema errors still yields a view for the
// semantic rules. A map entry that is not an object becomes nil, which build turns into a
// placeholder the rules skip.

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil && !math.IsInf(f, 0) {
			return 0, false
		}
		return f, true
	case float64:
		return n, true
	}
	return 0, false
}

func fNum(m map[string]any, k string) float64 {
	f, _ := number(m[k])
	return f
}

func fNumPtr(m map[string]any, k string) *float64 {
	if f, ok := number(m[k]); ok {
		return &f
	}
	return nil
}

func fStr(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func fStrPtr(m map[string]any, k string) *string {
	if s, ok := m[k].(string); ok {
		return &s
	}
	return nil
}

func fBool(m map[string]any, k string) bool {
	b, _ := m[k].(bool)
	return b
}

func fObj(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}

func fArr(m map[string]any, k string) []any {
	a, _ := m[k].([]any)
	return a
}

func fStrings(m map[string]any, k string) []string {
	a := fArr(m, k)
	if a == nil {
		return nil
	}
	out := make([]string, len(a))
	for i, x := range a {
		out[i], _ = x.(string)
	}
	return out
}

// fRaw re-encodes a member that the view keeps as raw JSON (lottie documents); nil when
// absent or null.
func fRaw(m map[string]any, k string) json.RawMessage {
	v, ok := m[k]
	if !ok || v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

func paramsFrom(m map[string]any, k string) Params {
	o := fObj(m, k)
	if o == nil {
		return nil
	}
	p := make(Params, len(o))
	for key, v := range o {
		switch x := v.(type) {
		case string:
			p[key] = x
		case json.Number:
			p[key] = string(x)
		case float64:
			p[key] = formatFloat(x)
		case bool:
			p[key] = strconv.FormatBool(x)
		case nil:
			p[key] = "null"
		}
	}
	return p
}

// treeReader reads one decoded document. jsontape.Decode shares identical short objects,
// so it reads each shared animated number once (the wire values are only read by build).
type treeReader struct {
	anims map[uintptr]*wireAnimated
}

func (r *treeReader) animatedFrom(m map[string]any, k string) *wireAnimated {
	o := fObj(m, k)
	if o == nil {
		return nil
	}
	p := reflect.ValueOf(o).Pointer()
	if w, ok := r.anims[p]; ok {
		return w
	}
	w := animatedFrom(o)
	r.anims[p] = w
	return w
}

func animatedFrom(o map[string]any) *wireAnimated {
	w := &wireAnimated{Value: fNum(o, "value")}
	if ks := fArr(o, "keyframes"); len(ks) > 0 {
		w.Keyframes = make([]wireKeyframe, 0, len(ks))
		for _, x := range ks {
			ko, _ := x.(map[string]any)
			w.Keyframes = append(w.Keyframes, wireKeyframe{TimeTicks: fNum(ko, "timeTicks"), Value: fNum(ko, "value")})
		}
	}
	return w
}

func animationFrom(m map[string]any, k string) *wireAnimation {
	o := fObj(m, k)
	if o == nil {
		return nil
	}
	return &wireAnimation{Type: fStr(o, "type"), DurationTicks: fNum(o, "durationTicks"), Easing: fStr(o, "easing"), Params: paramsFrom(o, "params")}
}

func animationsFrom(m map[string]any, k string) *wireAnimations {
	o := fObj(m, k)
	if o == nil {
		return nil
	}
	return &wireAnimations{In: animationFrom(o, "in"), Out: animationFrom(o, "out"), Loop: animationFrom(o, "loop")}
}

func textStyleFrom(m map[string]any) wireTextStyle {
	w := wireTextStyle{
		Color: fStr(m, "color"), Align: fStr(m, "align"), FontFamily: fStr(m, "fontFamily"),
		FontSize: fNum(m, "fontSize"), LineHeight: fNum(m, "lineHeight"), LetterSpacing: fNum(m, "letterSpacing"),
		Direction: fStr(m, "direction"), StrokeWidth: fNum(m, "strokeWidth"), StrokeColor: fStr(m, "strokeColor"),
	}
	if fs := fObj(m, "fontStyle"); fs != nil {
		w.FontStyle = wireFontStyle{Variant: fStr(fs, "variant"), Weight: fStr(fs, "weight")}
	}
	if bg := fObj(m, "background"); bg != nil {
		w.Background = &wireTextBackground{Color: fStr(bg, "color"), HorizontalPadding: fNum(bg, "horizontalPadding"), BorderRadius: fNum(bg, "borderRadius")}
	}
	return w
}

func itemFrom(r *treeReader, m map[string]any) *wireItem {
	w := &wireItem{
		ID: fStr(m, "id"), Type: fStr(m, "type"),
		StartTicks: fNum(m, "startTicks"), DurationTicks: fNum(m, "durationTicks"),
		IsDraggingInTimeline: fBool(m, "isDraggingInTimeline"),
		Top:                  r.animatedFrom(m, "top"), Left: r.animatedFrom(m, "left"),
		Width: r.animatedFrom(m, "width"), Height: r.animatedFrom(m, "height"),
		ScaleX: r.animatedFrom(m, "scaleX"), ScaleY: r.animatedFrom(m, "scaleY"),
		Opacity: r.animatedFrom(m, "opacity"), Rotation: r.animatedFrom(m, "rotation"),
		BorderRadius: r.animatedFrom(m, "borderRadius"),
		CropLeft:     r.animatedFrom(m, "cropLeft"), CropTop: r.animatedFrom(m, "cropTop"),
		CropRight: r.animatedFrom(m, "cropRight"), CropBottom: r.animatedFrom(m, "cropBottom"),
		KeepAspectRatio:   fBool(m, "keepAspectRatio"),
		AssetID:           fStr(m, "assetId"),
		Animations:        animationsFrom(m, "animations"),
		CaptionAnimations: animationsFrom(m, "captionAnimations"),
	}
	switch w.Type {
	case "image":
		w.StickerID = fStrPtr(m, "stickerId")
		w.StickerVersion = fNumPtr(m, "stickerVersion")
	case "video", "gif", "lottie", "audio":
		w.VideoStartFromInSeconds = fNum(m, "videoStartFromInSeconds")
		w.GifStartFromInSeconds = fNum(m, "gifStartFromInSeconds")
		w.LottieStartFromInSeconds = fNum(m, "lottieStartFromInSeconds")
		w.AudioStartFromInSeconds = fNum(m, "audioStartFromInSeconds")
		w.PlaybackRate = fNumPtr(m, "playbackRate")
		w.DecibelAdjustment = r.animatedFrom(m, "decibelAdjustment")
		w.AudioFadeIn = fNumPtr(m, "audioFadeInDurationInSeconds")
		w.AudioFadeOut = fNumPtr(m, "audioFadeOutDurationInSeconds")
	case "text", "captions":
		w.Text = fStr(m, "text")
		w.wireTextStyle = textStyleFrom(m)
		w.ResizeOnEdit = fBool(m, "resizeOnEdit")
		w.HighlightColor = fStr(m, "highlightColor")
		w.PageDurationInMilliseconds = fNum(m, "pageDurationInMilliseconds")
		w.MaxLines = fNum(m, "maxLines")
		w.ContentStartOffsetMs = fNum(m, "contentStartOffsetMs")
		w.Source = fStr(m, "source")
		w.CaptionGroupID = fStrPtr(m, "captionGroupId")
	case "text-template":
		w.SchemaVersion = fNum(m, "schemaVersion")
		w.TemplateID = fStr(m, "templateId")
		w.TemplateCategory = fStr(m, "templateCategory")
		for _, x := range fArr(m, "nodes") {
			n, _ := x.(map[string]any)
			if n == nil {
				n = map[string]any{}
			}
			w.Nodes = append(w.Nodes, wireTemplateNode{
				ID: fStr(n, "id"), Type: fStr(n, "type"),
				X: fNum(n, "x"), Y: fNum(n, "y"), Width: fNum(n, "width"), Height: fNum(n, "height"),
				Opacity:           fNumPtr(n, "opacity"),
				ImageType:         fStr(n, "imageType"),
				ImageComponentID:  fStrPtr(n, "imageComponentId"),
				ImageLottieJSON:   fRaw(n, "imageLottieJson"),
				Text:              fStr(n, "text"),
				Animations:        animationsFrom(n, "animations"),
				CaptionAnimations: animationsFrom(n, "captionAnimations"),
				wireTextStyle:     textStyleFrom(n),
			})
		}
	case "solid", "illustration":
		w.wireTextStyle.Color = fStr(m, "color")
		w.Shape = fStr(m, "shape")
		w.IllustrationName = fStr(m, "illustrationName")
	case "effect", "filter":
		w.EffectType = fStr(m, "effectType")
		w.FilterType = fStr(m, "filterType")
		w.Intensity = fNumPtr(m, "intensity")
		w.Params = paramsFrom(m, "params")
	case "chart":
		w.ChartType = fStr(m, "chartType")
		w.ThemeColor = fStr(m, "themeColor")
		w.AnimationDurationTicks = fNum(m, "animationDurationTicks")
		d := fObj(m, "data")
		for _, x := range fArr(d, "series") {
			o, _ := x.(map[string]any)
			w.Data.Series = append(w.Data.Series, wireChartSeries{Key: fStr(o, "key"), Label: fStr(o, "label")})
		}
		for _, x := range fArr(d, "rows") {
			o, _ := x.(map[string]any)
			row := wireChartRow{Label: fStr(o, "label")}
			if vals := fObj(o, "values"); vals != nil {
				row.Values = make(map[string]float64, len(vals))
				for k, v := range vals {
					if f, ok := number(v); ok {
						row.Values[k] = f
					}
				}
			}
			w.Data.Rows = append(w.Data.Rows, row)
		}
		for _, x := range fArr(d, "slices") {
			o, _ := x.(map[string]any)
			w.Data.Slices = append(w.Data.Slices, wireChartSlice{Label: fStr(o, "label"), Value: fNum(o, "value")})
		}
		for _, x := range fArr(d, "points") {
			o, _ := x.(map[string]any)
			w.Data.Points = append(w.Data.Points, wireChartPoint{SeriesKey: fStr(o, "seriesKey"), X: fNum(o, "x"), Y: fNum(o, "y")})
		}
	}
	return w
}

func assetFrom(m map[string]any) *wireAsset {
	w := &wireAsset{
		ID: fStr(m, "id"), Type: fStr(m, "type"), Filename: fStr(m, "filename"), Size: fNum(m, "size"),
		RemoteURL: fStrPtr(m, "remoteUrl"), RemoteKey: fStrPtr(m, "remoteKey"), MimeType: fStr(m, "mimeType"),
		Width: fNum(m, "width"), Height: fNum(m, "height"), DurationInSeconds: fNum(m, "durationInSeconds"),
		HasAudioTrack: fBool(m, "hasAudioTrack"), LoopBehavior: fStr(m, "loopBehavior"),
		ResourceType: fStr(m, "resourceType"), ResourceComponentID: fStrPtr(m, "resourceComponentId"),
		TimingGranularity: fStr(m, "timingGranularity"),
	}
	if w.Type == "lottie" {
		w.ResourceJSON = fRaw(m, "resourceJson")
	}
	for _, x := range fArr(m, "captions") {
		o, _ := x.(map[string]any)
		w.Captions = append(w.Captions, wireCaptionEntry{
			Text: fStr(o, "text"), StartMs: fNum(o, "startMs"), EndMs: fNum(o, "endMs"),
			TimestampMs: fNumPtr(o, "timestampMs"), Confidence: fNumPtr(o, "confidence"),
		})
	}
	return w
}

// parallelItems is the number of items above which itemsFrom reads half of them in a
// second goroutine.
const parallelItems = 1024

// itemsFrom reads the items map. A map entry that is not an object becomes nil.
func itemsFrom(r *treeReader, m map[string]any) map[string]*wireItem {
	out := make(map[string]*wireItem, len(m))
	if len(m) <= parallelItems {
		for k, x := range m {
			o, _ := x.(map[string]any)
			if o == nil {
				out[k] = nil
				continue
			}
			out[k] = itemFrom(r, o)
		}
		return out
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	items := make([]*wireItem, len(keys))
	read := func(r *treeReader, lo, hi int) {
		for i := lo; i < hi; i++ {
			if o, _ := m[keys[i]].(map[string]any); o != nil {
				items[i] = itemFrom(r, o)
			}
		}
	}
	half := len(keys) / 2
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }() // re-raised below, in the caller's goroutine
		read(&treeReader{anims: map[uintptr]*wireAnimated{}}, half, len(keys))
	}()
	var mine any
	func() {
		defer func() { mine = recover() }() // wait for the helper before re-raising
		read(r, 0, half)
	}()
	if p := <-done; p != nil {
		panic(p)
	}
	if mine != nil {
		panic(mine)
	}
	for i, k := range keys {
		out[k] = items[i]
	}
	return out
}

// wireFromDoc reads a decoded editor state object into wire types.
func wireFromDoc(doc map[string]any) *wireState {
	r := &treeReader{anims: map[uintptr]*wireAnimated{}}
	w := &wireState{
		CompositionWidth:       fNum(doc, "compositionWidth"),
		CompositionHeight:      fNum(doc, "compositionHeight"),
		TimebaseTicksPerSecond: fNum(doc, "timebaseTicksPerSecond"),
		OutputRatio:            fStr(doc, "outputRatio"),
	}
	for _, x := range fArr(doc, "tracks") {
		o, _ := x.(map[string]any)
		w.Tracks = append(w.Tracks, wireTrack{ID: fStr(o, "id"), Items: fStrings(o, "items"), Hidden: fBool(o, "hidden"), Muted: fBool(o, "muted")})
	}
	if m := fObj(doc, "assets"); m != nil {
		w.Assets = make(map[string]*wireAsset, len(m))
		for k, x := range m {
			o, _ := x.(map[string]any)
			if o == nil {
				w.Assets[k] = nil
				continue
			}
			w.Assets[k] = assetFrom(o)
		}
	}
	if m := fObj(doc, "items"); m != nil {
		w.Items = itemsFrom(r, m)
	}
	if m := fObj(doc, "transitions"); m != nil {
		w.Transitions = make(map[string]*wireTransition, len(m))
		for k, x := range m {
			o, _ := x.(map[string]any)
			if o == nil {
				continue
			}
			w.Transitions[k] = &wireTransition{
				ID: fStr(o, "id"), TrackID: fStr(o, "trackId"), FromClipID: fStr(o, "fromClipId"), ToClipID: fStr(o, "toClipId"),
				Type: fStr(o, "type"), DurationTicks: fNum(o, "durationTicks"), Easing: fStr(o, "easing"), Params: paramsFrom(o, "params"),
			}
		}
	}
	if bg := fObj(doc, "globalBackground"); bg != nil {
		w.GlobalBackground = &wireBackground{
			Type: fStr(bg, "type"), Color: fStr(bg, "color"), Gradient: fStrPtr(bg, "gradient"), Level: fNum(bg, "level"),
			ImageAssetID: fStrPtr(bg, "imageAssetId"), ImageURL: fStr(bg, "imageUrl"), Source: fStr(bg, "source"),
		}
	}
	if br := fObj(doc, "brandRuntime"); br != nil {
		w.BrandRuntime = &wireBrandRuntime{
			BrandID: fStrPtr(br, "brandId"), LogoX: fNum(br, "logoX"), LogoY: fNum(br, "logoY"),
			ManagedItemIDs: fStrings(br, "managedItemIds"), ManagedAssetIDs: fStrings(br, "managedAssetIds"),
			IntroShiftInFrames: fNum(br, "introShiftInFrames"),
			OverlayTrackID:     fStrPtr(br, "overlayTrackId"), UnderlayTrackID: fStrPtr(br, "underlayTrackId"),
		}
	}
	for _, x := range fArr(doc, "deletedAssets") {
		o, _ := x.(map[string]any)
		d := wireDeletedAsset{AssetID: fStr(o, "assetId"), RemoteURL: fStrPtr(o, "remoteUrl"), RemoteKey: fStrPtr(o, "remoteKey")}
		if st := fObj(o, "statusAtDeletion"); st != nil {
			d.StatusAtDeletion.Type = fStr(st, "type")
		}
		w.DeletedAssets = append(w.DeletedAssets, d)
	}
	return w
}
