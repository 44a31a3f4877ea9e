package editor

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/cutroom/cutroom/editor/internal/jsontape"
)

// The methods below read a decoded document (see jsontape.Decode) into the wire types that
// build turns into a State. They are lenient: a member of the wrong JSON type reads as
// absent (zero), so that a state with schema errors still yields a view for the semantic
// rules. A map entry that is not an object becomes nil, which build turns into a
// placeholder the rules skip. Each object is read in one pass over its members (its names
// are unique, see dedupe); members the view does not use are skipped.

// tapeReader reads one tape. Identical short objects share a node, so it reads each
// shared animated number once (the wire values are only read by build).
type tapeReader struct {
	t       *jsontape.Tape
	anims   map[uint32]*wireAnimated
	items   *itemBuilder
	scratch wireItem // the item being read (items are built as they are read)
}

func newTapeReader(t *jsontape.Tape) *tapeReader {
	return &tapeReader{t: t, anims: map[uint32]*wireAnimated{}, items: newItemBuilder()}
}

func (r *tapeReader) kind(v uint32) uint8 { return r.t.Kind(v) }

// num returns a number member's value (like strconv.ParseFloat on its literal, with
// ±Inf for literals beyond the float64 range) and false for other kinds.
func (r *tapeReader) num(v uint32) (float64, bool) {
	if r.kind(v) != jsontape.Number {
		return 0, false
	}
	return parseNumber(r.t.Text(v))
}

// parseNumber parses a JSON number literal; short integers take a fast path that gives
// the same result as strconv.ParseFloat.
func parseNumber(lit string) (float64, bool) {
	if len(lit) > 0 && len(lit) <= 15 {
		neg := lit[0] == '-'
		digits := lit
		if neg {
			digits = lit[1:]
		}
		var n int64
		ok := len(digits) > 0
		for i := 0; i < len(digits) && ok; i++ {
			c := digits[i]
			ok = c >= '0' && c <= '9'
			n = n*10 + int64(c-'0')
		}
		if ok { // below 10^15, so exact in a float64
			f := float64(n)
			if neg {
				f = -f
			}
			return f, true
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func (r *tapeReader) fnum(v uint32) float64 {
	f, _ := r.num(v)
	return f
}

func (r *tapeReader) numPtr(v uint32) *float64 {
	if f, ok := r.num(v); ok {
		return &f
	}
	return nil
}

func (r *tapeReader) str(v uint32) string {
	if r.kind(v) != jsontape.String {
		return ""
	}
	return r.t.Text(v)
}

func (r *tapeReader) strPtr(v uint32) *string {
	if r.kind(v) != jsontape.String {
		return nil
	}
	s := r.t.Text(v)
	return &s
}

func (r *tapeReader) boolean(v uint32) bool { return r.kind(v) == jsontape.True }

func (r *tapeReader) isObj(v uint32) bool { return r.kind(v) == jsontape.Object }

// each calls f with the name and value of each member of the object v (none for other
// kinds).
func (r *tapeReader) each(v uint32, f func(name string, val uint32)) {
	m := r.t.Members(v)
	for j := 0; j < len(m); j += 2 {
		f(r.t.Text(m[j]), m[j+1])
	}
}

func (r *tapeReader) strings(v uint32) []string {
	a := r.t.Elems(v)
	if a == nil {
		return nil
	}
	out := make([]string, len(a))
	for i, x := range a {
		out[i] = r.str(x)
	}
	return out
}

// raw re-encodes a member that the view keeps as raw JSON (lottie documents); nil for
// null.
func (r *tapeReader) raw(v uint32) json.RawMessage {
	if r.kind(v) == jsontape.Null {
		return nil
	}
	b, err := json.Marshal(r.t.Tree(v))
	if err != nil {
		return nil
	}
	return b
}

func (r *tapeReader) params(v uint32) Params {
	if !r.isObj(v) {
		return nil
	}
	m := r.t.Members(v)
	p := make(Params, len(m)/2)
	for j := 0; j < len(m); j += 2 {
		key, x := r.t.Text(m[j]), m[j+1]
		switch r.kind(x) {
		case jsontape.String, jsontape.Number:
			p[key] = r.t.Text(x)
		case jsontape.True:
			p[key] = "true"
		case jsontape.False:
			p[key] = "false"
		case jsontape.Null:
			p[key] = "null"
		}
	}
	return p
}

func (r *tapeReader) animated(v uint32) *wireAnimated {
	if !r.isObj(v) {
		return nil
	}
	if w, ok := r.anims[v]; ok {
		return w
	}
	w := &wireAnimated{}
	r.each(v, func(name string, x uint32) {
		switch name {
		case "value":
			w.Value = r.fnum(x)
		case "keyframes":
			if ks := r.t.Elems(x); len(ks) > 0 {
				w.Keyframes = make([]wireKeyframe, len(ks))
				for i, k := range ks {
					r.each(k, func(name string, y uint32) {
						switch name {
						case "timeTicks":
							w.Keyframes[i].TimeTicks = r.fnum(y)
						case "value":
							w.Keyframes[i].Value = r.fnum(y)
						}
					})
				}
			}
		}
	})
	r.anims[v] = w
	return w
}

func (r *tapeReader) animation(v uint32) *wireAnimation {
	if !r.isObj(v) {
		return nil
	}
	w := &wireAnimation{}
	r.each(v, func(name string, x uint32) {
		switch name {
		case "type":
			w.Type = r.str(x)
		case "durationTicks":
			w.DurationTicks = r.fnum(x)
		case "easing":
			w.Easing = r.str(x)
		case "params":
			w.Params = r.params(x)
		}
	})
	return w
}

func (r *tapeReader) animations(v uint32) *wireAnimations {
	if !r.isObj(v) {
		return nil
	}
	w := &wireAnimations{}
	r.each(v, func(name string, x uint32) {
		switch name {
		case "in":
			w.In = r.animation(x)
		case "out":
			w.Out = r.animation(x)
		case "loop":
			w.Loop = r.animation(x)
		}
	})
	return w
}

// textStyleMember reads one member of a text style into w and reports whether it was one.
func (r *tapeReader) textStyleMember(w *wireTextStyle, name string, x uint32) bool {
	switch name {
	case "color":
		w.Color = r.str(x)
	case "align":
		w.Align = r.str(x)
	case "fontFamily":
		w.FontFamily = r.str(x)
	case "fontSize":
		w.FontSize = r.fnum(x)
	case "lineHeight":
		w.LineHeight = r.fnum(x)
	case "letterSpacing":
		w.LetterSpacing = r.fnum(x)
	case "direction":
		w.Direction = r.str(x)
	case "strokeWidth":
		w.StrokeWidth = r.fnum(x)
	case "strokeColor":
		w.StrokeColor = r.str(x)
	case "fontStyle":
		w.FontStyle = wireFontStyle{}
		r.each(x, func(name string, y uint32) {
			switch name {
			case "variant":
				w.FontStyle.Variant = r.str(y)
			case "weight":
				w.FontStyle.Weight = r.str(y)
			}
		})
	case "background":
		w.Background = nil
		if r.isObj(x) {
			bg := &wireTextBackground{}
			r.each(x, func(name string, y uint32) {
				switch name {
				case "color":
					bg.Color = r.str(y)
				case "horizontalPadding":
					bg.HorizontalPadding = r.fnum(y)
				case "borderRadius":
					bg.BorderRadius = r.fnum(y)
				}
			})
			w.Background = bg
		}
	default:
		return false
	}
	return true
}

func (r *tapeReader) templateNode(v uint32) wireTemplateNode {
	var n wireTemplateNode
	r.each(v, func(name string, x uint32) {
		switch name {
		case "id":
			n.ID = r.str(x)
		case "type":
			n.Type = r.str(x)
		case "x":
			n.X = r.fnum(x)
		case "y":
			n.Y = r.fnum(x)
		case "width":
			n.Width = r.fnum(x)
		case "height":
			n.Height = r.fnum(x)
		case "opacity":
			n.Opacity = r.numPtr(x)
		case "imageType":
			n.ImageType = r.str(x)
		case "imageComponentId":
			n.ImageComponentID = r.strPtr(x)
		case "imageLottieJson":
			n.ImageLottieJSON = r.raw(x)
		case "text":
			n.Text = r.str(x)
		case "animations":
			n.Animations = r.animations(x)
		case "captionAnimations":
			n.CaptionAnimations = r.animations(x)
		default:
			r.textStyleMember(&n.wireTextStyle, name, x)
		}
	})
	return n
}

func (r *tapeReader) chartData(v uint32, d *wireChartData) {
	r.each(v, func(name string, x uint32) {
		switch name {
		case "series":
			for _, e := range r.t.Elems(x) {
				var s wireChartSeries
				r.each(e, func(name string, y uint32) {
					switch name {
					case "key":
						s.Key = r.str(y)
					case "label":
						s.Label = r.str(y)
					}
				})
				d.Series = append(d.Series, s)
			}
		case "rows":
			for _, e := range r.t.Elems(x) {
				var row wireChartRow
				r.each(e, func(name string, y uint32) {
					switch name {
					case "label":
						row.Label = r.str(y)
					case "values":
						row.Values = nil
						if r.isObj(y) {
							m := r.t.Members(y)
							row.Values = make(map[string]float64, len(m)/2)
							for j := 0; j < len(m); j += 2 {
								if f, ok := r.num(m[j+1]); ok {
									row.Values[r.t.Text(m[j])] = f
								}
							}
						}
					}
				})
				d.Rows = append(d.Rows, row)
			}
		case "slices":
			for _, e := range r.t.Elems(x) {
				var s wireChartSlice
				r.each(e, func(name string, y uint32) {
					switch name {
					case "label":
						s.Label = r.str(y)
					case "value":
						s.Value = r.fnum(y)
					}
				})
				d.Slices = append(d.Slices, s)
			}
		case "points":
			for _, e := range r.t.Elems(x) {
				var p wireChartPoint
				r.each(e, func(name string, y uint32) {
					switch name {
					case "seriesKey":
						p.SeriesKey = r.str(y)
					case "x":
						p.X = r.fnum(y)
					case "y":
						p.Y = r.fnum(y)
					}
				})
				d.Points = append(d.Points, p)
			}
		}
	})
}

// item reads an item object into w (which is zero). It reads every member the view uses
// for any item type; itemBuilder.build only uses those of the item's type.
func (r *tapeReader) item(v uint32, w *wireItem) {
	r.each(v, func(name string, x uint32) {
		switch name {
		case "id":
			w.ID = r.str(x)
		case "type":
			w.Type = r.str(x)
		case "startTicks":
			w.StartTicks = r.fnum(x)
		case "durationTicks":
			w.DurationTicks = r.fnum(x)
		case "isDraggingInTimeline":
			w.IsDraggingInTimeline = r.boolean(x)
		case "top":
			w.Top = r.animated(x)
		case "left":
			w.Left = r.animated(x)
		case "width":
			w.Width = r.animated(x)
		case "height":
			w.Height = r.animated(x)
		case "scaleX":
			w.ScaleX = r.animated(x)
		case "scaleY":
			w.ScaleY = r.animated(x)
		case "opacity":
			w.Opacity = r.animated(x)
		case "rotation":
			w.Rotation = r.animated(x)
		case "borderRadius":
			w.BorderRadius = r.animated(x)
		case "cropLeft":
			w.CropLeft = r.animated(x)
		case "cropTop":
			w.CropTop = r.animated(x)
		case "cropRight":
			w.CropRight = r.animated(x)
		case "cropBottom":
			w.CropBottom = r.animated(x)
		case "keepAspectRatio":
			w.KeepAspectRatio = r.boolean(x)
		case "assetId":
			w.AssetID = r.str(x)
		case "animations":
			w.Animations = r.animations(x)
		case "captionAnimations":
			w.CaptionAnimations = r.animations(x)
		// image
		case "stickerId":
			w.StickerID = r.strPtr(x)
		case "stickerVersion":
			w.StickerVersion = r.numPtr(x)
		// video, gif, lottie, audio
		case "videoStartFromInSeconds":
			w.VideoStartFromInSeconds = r.fnum(x)
		case "gifStartFromInSeconds":
			w.GifStartFromInSeconds = r.fnum(x)
		case "lottieStartFromInSeconds":
			w.LottieStartFromInSeconds = r.fnum(x)
		case "audioStartFromInSeconds":
			w.AudioStartFromInSeconds = r.fnum(x)
		case "playbackRate":
			w.PlaybackRate = r.numPtr(x)
		case "decibelAdjustment":
			w.DecibelAdjustment = r.animated(x)
		case "audioFadeInDurationInSeconds":
			w.AudioFadeIn = r.numPtr(x)
		case "audioFadeOutDurationInSeconds":
			w.AudioFadeOut = r.numPtr(x)
		// text, captions
		case "text":
			w.Text = r.str(x)
		case "resizeOnEdit":
			w.ResizeOnEdit = r.boolean(x)
		case "highlightColor":
			w.HighlightColor = r.str(x)
		case "pageDurationInMilliseconds":
			w.PageDurationInMilliseconds = r.fnum(x)
		case "maxLines":
			w.MaxLines = r.fnum(x)
		case "contentStartOffsetMs":
			w.ContentStartOffsetMs = r.fnum(x)
		case "source":
			w.Source = r.str(x)
		case "captionGroupId":
			w.CaptionGroupID = r.strPtr(x)
		// text-template
		case "schemaVersion":
			w.SchemaVersion = r.fnum(x)
		case "templateId":
			w.TemplateID = r.str(x)
		case "templateCategory":
			w.TemplateCategory = r.str(x)
		case "nodes":
			w.Nodes = nil
			for _, n := range r.t.Elems(x) {
				w.Nodes = append(w.Nodes, r.templateNode(n))
			}
		// solid, illustration (and color, of text and captions)
		case "shape":
			w.Shape = r.str(x)
		case "illustrationName":
			w.IllustrationName = r.str(x)
		// effect, filter
		case "effectType":
			w.EffectType = r.str(x)
		case "filterType":
			w.FilterType = r.str(x)
		case "intensity":
			w.Intensity = r.numPtr(x)
		case "params":
			w.Params = r.params(x)
		// chart
		case "chartType":
			w.ChartType = r.str(x)
		case "themeColor":
			w.ThemeColor = r.str(x)
		case "animationDurationTicks":
			w.AnimationDurationTicks = r.fnum(x)
		case "data":
			w.Data = wireChartData{}
			r.chartData(x, &w.Data)
		default:
			r.textStyleMember(&w.wireTextStyle, name, x)
		}
	})
}

func (r *tapeReader) asset(v uint32) *wireAsset {
	w := &wireAsset{}
	var resource uint32
	hasResource := false
	r.each(v, func(name string, x uint32) {
		switch name {
		case "id":
			w.ID = r.str(x)
		case "type":
			w.Type = r.str(x)
		case "filename":
			w.Filename = r.str(x)
		case "size":
			w.Size = r.fnum(x)
		case "remoteUrl":
			w.RemoteURL = r.strPtr(x)
		case "remoteKey":
			w.RemoteKey = r.strPtr(x)
		case "mimeType":
			w.MimeType = r.str(x)
		case "width":
			w.Width = r.fnum(x)
		case "height":
			w.Height = r.fnum(x)
		case "durationInSeconds":
			w.DurationInSeconds = r.fnum(x)
		case "hasAudioTrack":
			w.HasAudioTrack = r.boolean(x)
		case "loopBehavior":
			w.LoopBehavior = r.str(x)
		case "resourceType":
			w.ResourceType = r.str(x)
		case "resourceComponentId":
			w.ResourceComponentID = r.strPtr(x)
		case "timingGranularity":
			w.TimingGranularity = r.str(x)
		case "resourceJson":
			resource, hasResource = x, true
		case "captions":
			w.Captions = nil
			for _, e := range r.t.Elems(x) {
				var c wireCaptionEntry
				r.each(e, func(name string, y uint32) {
					switch name {
					case "text":
						c.Text = r.str(y)
					case "startMs":
						c.StartMs = r.fnum(y)
					case "endMs":
						c.EndMs = r.fnum(y)
					case "timestampMs":
						c.TimestampMs = r.numPtr(y)
					case "confidence":
						c.Confidence = r.numPtr(y)
					}
				})
				w.Captions = append(w.Captions, c)
			}
		}
	})
	if w.Type == "lottie" && hasResource {
		w.ResourceJSON = r.raw(resource)
	}
	return w
}

// wireFromTape reads a decoded editor state object into wire types.
func wireFromTape(t *jsontape.Tape) *wireState {
	r := newTapeReader(t)
	w := &wireState{}
	r.each(t.Root(), func(name string, x uint32) {
		switch name {
		case "compositionWidth":
			w.CompositionWidth = r.fnum(x)
		case "compositionHeight":
			w.CompositionHeight = r.fnum(x)
		case "timebaseTicksPerSecond":
			w.TimebaseTicksPerSecond = r.fnum(x)
		case "outputRatio":
			w.OutputRatio = r.str(x)
		case "tracks":
			for _, e := range t.Elems(x) {
				var tr wireTrack
				r.each(e, func(name string, y uint32) {
					switch name {
					case "id":
						tr.ID = r.str(y)
					case "items":
						tr.Items = r.strings(y)
					case "hidden":
						tr.Hidden = r.boolean(y)
					case "muted":
						tr.Muted = r.boolean(y)
					}
				})
				w.Tracks = append(w.Tracks, tr)
			}
		case "assets":
			if r.isObj(x) {
				m := t.Members(x)
				w.Assets = make(map[string]*wireAsset, len(m)/2)
				for j := 0; j < len(m); j += 2 {
					var a *wireAsset
					if r.isObj(m[j+1]) {
						a = r.asset(m[j+1])
					}
					w.Assets[t.Text(m[j])] = a
				}
			}
		case "items":
			if r.isObj(x) {
				m := t.Members(x)
				w.built = make(map[string]*Item, len(m)/2)
				slab := make([]Item, len(m)/2)
				for j := 0; j < len(m); j += 2 {
					it, key := &slab[j/2], t.Text(m[j])
					if r.isObj(m[j+1]) {
						r.scratch = wireItem{}
						r.item(m[j+1], &r.scratch)
						r.items.build(&r.scratch, it)
					} else {
						*it = placeholderItem(key)
					}
					w.built[key] = it
				}
			}
		case "transitions":
			if r.isObj(x) {
				m := t.Members(x)
				w.Transitions = make(map[string]*wireTransition, len(m)/2)
				for j := 0; j < len(m); j += 2 {
					if r.isObj(m[j+1]) {
						w.Transitions[t.Text(m[j])] = r.transition(m[j+1])
					}
				}
			}
		case "globalBackground":
			if r.isObj(x) {
				b := &wireBackground{}
				r.each(x, func(name string, y uint32) {
					switch name {
					case "type":
						b.Type = r.str(y)
					case "color":
						b.Color = r.str(y)
					case "gradient":
						b.Gradient = r.strPtr(y)
					case "level":
						b.Level = r.fnum(y)
					case "imageAssetId":
						b.ImageAssetID = r.strPtr(y)
					case "imageUrl":
						b.ImageURL = r.str(y)
					case "source":
						b.Source = r.str(y)
					}
				})
				w.GlobalBackground = b
			}
		case "brandRuntime":
			if r.isObj(x) {
				b := &wireBrandRuntime{}
				r.each(x, func(name string, y uint32) {
					switch name {
					case "brandId":
						b.BrandID = r.strPtr(y)
					case "logoX":
						b.LogoX = r.fnum(y)
					case "logoY":
						b.LogoY = r.fnum(y)
					case "managedItemIds":
						b.ManagedItemIDs = r.strings(y)
					case "managedAssetIds":
						b.ManagedAssetIDs = r.strings(y)
					case "introShiftInFrames":
						b.IntroShiftInFrames = r.fnum(y)
					case "overlayTrackId":
						b.OverlayTrackID = r.strPtr(y)
					case "underlayTrackId":
						b.UnderlayTrackID = r.strPtr(y)
					}
				})
				w.BrandRuntime = b
			}
		case "deletedAssets":
			for _, e := range t.Elems(x) {
				var d wireDeletedAsset
				r.each(e, func(name string, y uint32) {
					switch name {
					case "assetId":
						d.AssetID = r.str(y)
					case "remoteUrl":
						d.RemoteURL = r.strPtr(y)
					case "remoteKey":
						d.RemoteKey = r.strPtr(y)
					case "statusAtDeletion":
						r.each(y, func(name string, z uint32) {
							if name == "type" {
								d.StatusAtDeletion.Type = r.str(z)
							}
						})
					}
				})
				w.DeletedAssets = append(w.DeletedAssets, d)
			}
		}
	})
	return w
}

func (r *tapeReader) transition(v uint32) *wireTransition {
	w := &wireTransition{}
	r.each(v, func(name string, x uint32) {
		switch name {
		case "id":
			w.ID = r.str(x)
		case "trackId":
			w.TrackID = r.str(x)
		case "fromClipId":
			w.FromClipID = r.str(x)
		case "toClipId":
			w.ToClipID = r.str(x)
		case "type":
			w.Type = r.str(x)
		case "durationTicks":
			w.DurationTicks = r.fnum(x)
		case "easing":
			w.Easing = r.str(x)
		case "params":
			w.Params = r.params(x)
		}
	})
	return w
}
