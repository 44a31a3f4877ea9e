package editor

import (
	"encoding/json"
	"iter"
	"math"
	"sort"
)

// ItemType names the kind of a timeline item (the item's "type" member).
type ItemType string

// The item types of editor state v1.
const (
	ItemImage        ItemType = "image"
	ItemVideo        ItemType = "video"
	ItemGif          ItemType = "gif"
	ItemLottie       ItemType = "lottie"
	ItemAudio        ItemType = "audio"
	ItemText         ItemType = "text"
	ItemTextTemplate ItemType = "text-template"
	ItemCaptions     ItemType = "captions"
	ItemSolid        ItemType = "solid"
	ItemIllustration ItemType = "illustration"
	ItemEffect       ItemType = "effect"
	ItemFilter       ItemType = "filter"
	ItemChart        ItemType = "chart"
)

// AllItemTypes lists every item type of editor state v1 in schema order.
func AllItemTypes() []ItemType {
	return []ItemType{ItemImage, ItemVideo, ItemGif, ItemLottie, ItemAudio, ItemText,
		ItemTextTemplate, ItemCaptions, ItemSolid, ItemIllustration, ItemEffect, ItemFilter, ItemChart}
}

// AssetType names the kind of an editor asset (the asset's "type" member).
type AssetType string

// The asset types of editor state v1.
const (
	AssetImage   AssetType = "image"
	AssetVideo   AssetType = "video"
	AssetGif     AssetType = "gif"
	AssetAudio   AssetType = "audio"
	AssetCaption AssetType = "caption"
	AssetLottie  AssetType = "lottie"
)

// Easing names an easing curve: "linear" or one of the CSS cubic-bezier keywords.
type Easing string

// The easings of editor state v1. An empty Easing means linear.
const (
	EaseLinear Easing = "linear"
	EaseIn     Easing = "ease-in"
	EaseOut    Easing = "ease-out"
	EaseInOut  Easing = "ease-in-out"
)

// Align is the horizontal alignment of text lines inside their box.
type Align string

// The text alignments.
const (
	AlignLeft   Align = "left"
	AlignCenter Align = "center"
	AlignRight  Align = "right"
)

// Direction is the base writing direction of text.
type Direction string

// The text directions.
const (
	DirectionLTR Direction = "ltr"
	DirectionRTL Direction = "rtl"
)

// ChartType names the kind of a chart item.
type ChartType string

// The chart types. Line, bar, area and radar charts use series and rows; pie charts use
// slices; scatter charts use series and points.
const (
	ChartLine    ChartType = "line"
	ChartBar     ChartType = "bar"
	ChartArea    ChartType = "area"
	ChartPie     ChartType = "pie"
	ChartRadar   ChartType = "radar"
	ChartScatter ChartType = "scatter"
)

// BackgroundType names the kind of the global background.
type BackgroundType string

// The global background types. A missing global background behaves like BackgroundNone.
const (
	BackgroundNone  BackgroundType = "none"
	BackgroundColor BackgroundType = "color"
	BackgroundBlur  BackgroundType = "blur"
	BackgroundImage BackgroundType = "image"
)

// Keyframe is one point of an animated number, at a time local to its item.
type Keyframe struct {
	TimeTicks int64
	Value     float64
}

// AnimatedNumber is a numeric property that may change over the item's lifetime.
// Keyframes are sorted by TimeTicks (stably, so equal times keep document order).
type AnimatedNumber struct {
	Value     float64
	Keyframes []Keyframe
	// docIndex holds the document index of each keyframe; nil when the document had them
	// sorted (a pointer keeps AnimatedNumber, of which an Item has thirteen, small).
	docIndex *[]int
}

// Const returns an AnimatedNumber that is v at all times.
func Const(v float64) AnimatedNumber { return AnimatedNumber{Value: v} }

// Animated reports whether the number has keyframes.
func (a AnimatedNumber) Animated() bool { return len(a.Keyframes) > 0 }

// At returns the value at localTicks, a time relative to the item's start. Without
// keyframes it is Value; otherwise it interpolates linearly between neighbouring keyframes,
// holding the first keyframe's value before it and the last one's after it.
func (a AnimatedNumber) At(localTicks int64) float64 {
	k := a.Keyframes
	n := len(k)
	if n == 0 {
		return a.Value
	}
	if localTicks <= k[0].TimeTicks {
		return k[0].Value
	}
	if localTicks >= k[n-1].TimeTicks {
		return k[n-1].Value
	}
	// First index whose time is greater than localTicks; 1 <= i <= n-1 here.
	i := sort.Search(n, func(i int) bool { return k[i].TimeTicks > localTicks })
	p, q := k[i-1], k[i]
	span := q.TimeTicks - p.TimeTicks
	if span <= 0 {
		return q.Value
	}
	f := float64(localTicks-p.TimeTicks) / float64(span)
	return p.Value + (q.Value-p.Value)*f
}

// Params holds the free-form parameters of animations, transitions, effects and filters.
// Strings keep their text; numbers and booleans keep their JSON spelling (e.g. "0.65",
// "true").
type Params map[string]string

// AnimationSpec is an in or out animation of an item.
type AnimationSpec struct {
	Type          string // fade, slide-up, slide-down, slide-left, slide-right, zoom-in, zoom-out
	DurationTicks int64
	Easing        Easing // empty means linear
	Params        Params
}

// Animations holds an item's optional in and out animations.
type Animations struct {
	In  *AnimationSpec
	Out *AnimationSpec
}

// CaptionAnimations holds the optional per-word caption animations of text and captions.
// The Type of each is one of the caption animation ids (converge, elastic-pop, ...).
type CaptionAnimations struct {
	In   *AnimationSpec
	Out  *AnimationSpec
	Loop *AnimationSpec
}

// FontStyle selects a face of a font family.
type FontStyle struct {
	Variant string // "normal" or "italic" (CSS font-style)
	Weight  string // CSS font-weight, e.g. "400", "700", "bold"
}

// Italic reports whether the style asks for an italic or oblique face.
func (f FontStyle) Italic() bool { return f.Variant == "italic" || f.Variant == "oblique" }

// TextBackground is a rounded box drawn behind each line of text.
type TextBackground struct {
	Color             string
	HorizontalPadding float64
	BorderRadius      float64
}

// TextStyle holds the typographic members shared by text, captions and template text nodes.
type TextStyle struct {
	Color         string
	Align         Align
	FontFamily    string
	FontStyle     FontStyle
	FontSize      float64 // px
	LineHeight    float64 // multiple of FontSize
	LetterSpacing float64 // px
	Direction     Direction
	StrokeWidth   float64 // px, painted under the fill
	StrokeColor   string
	Background    *TextBackground // nil: none
}

// Track is one timeline layer. Tracks[0] of a State is the front layer.
type Track struct {
	ID      string
	ItemIDs []string // as listed in the state
	Hidden  bool
	Muted   bool
}

// ImageProps holds the members specific to image items.
type ImageProps struct {
	StickerID      string // empty when absent or null
	StickerVersion int64  // 0 when absent or null
}

// MediaProps holds the timing and audio members of video, gif, lottie and audio items.
type MediaProps struct {
	// StartFromSeconds is the media time shown at the item's start
	// (videoStartFromInSeconds, gifStartFromInSeconds, lottieStartFromInSeconds or
	// audioStartFromInSeconds).
	StartFromSeconds float64
	PlaybackRate     float64 // 1 when absent
	// DecibelAdjustment is the gain in dB (video and audio only).
	DecibelAdjustment     AnimatedNumber
	AudioFadeInSeconds    float64
	AudioFadeOutSeconds   float64
	HasDecibelAdjustment  bool // the member was present (video and audio)
	HasAudioFadeDurations bool // the fade members were present (video and audio)
}

// TextProps holds the members specific to text items.
type TextProps struct {
	Text string
	TextStyle
	ResizeOnEdit bool
}

// CaptionsProps holds the members specific to captions items. The caption entries live in
// the caption asset named by Item.AssetID; Entries is that asset's list (nil when the
// asset is missing or not a caption asset).
type CaptionsProps struct {
	TextStyle
	Entries              []CaptionEntry
	HighlightColor       string
	PageDurationMs       float64
	MaxLines             int
	ContentStartOffsetMs float64
	Source               string // manual, auto or upload
	CaptionGroupID       string
}

// TemplateNodeType names the kind of a text-template node.
type TemplateNodeType string

// The text-template node types.
const (
	TemplateNodeImage TemplateNodeType = "image"
	TemplateNodeText  TemplateNodeType = "text"
)

// TemplateNode is one layer of a text-template item, positioned in the item's box.
type TemplateNode struct {
	ID                  string
	Type                TemplateNodeType
	X, Y, Width, Height float64
	Opacity             float64 // image nodes; 1 for text nodes
	Animations          Animations
	ImageType           string          // image nodes: "svg" or "lottie"
	ImageComponentID    string          // image nodes; empty when null
	ImageLottieJSON     json.RawMessage // image nodes; nil when null
	Text                string          // text nodes
	Style               TextStyle       // text nodes
	CaptionAnimations   CaptionAnimations
}

// TextTemplateProps holds the members specific to text-template items.
type TextTemplateProps struct {
	SchemaVersion    int64
	TemplateID       string
	TemplateCategory string
	Nodes            []TemplateNode // in document order (first is drawn first)
}

// SolidProps holds the members specific to solid items.
type SolidProps struct {
	Color string
	Shape string // rectangle, circle, triangle or star
}

// IllustrationProps holds the members specific to illustration items.
type IllustrationProps struct {
	Name  string // a name from the built-in illustration library
	Color string // fill colour (the illustration's currentColor)
}

// EffectProps holds the members specific to effect items.
type EffectProps struct {
	EffectType string // flash-to-black, blur, blurred-opening, fade-in, fade-out
	Intensity  float64
	Params     Params
}

// FilterProps holds the members specific to filter items.
type FilterProps struct {
	FilterType string // verdant-glow, cyberpunk-neon, ...
	Intensity  float64
	Params     Params
}

// ChartSeries is one named data series of a chart.
type ChartSeries struct {
	Key   string
	Label string
}

// ChartRow is one category of a line, bar, area or radar chart.
type ChartRow struct {
	Label string
	// Values holds the row's values by series key, as in the state.
	Values map[string]float64
	// SeriesValues holds the row's values in the order of ChartProps.Series; a series
	// without a value in this row has NaN.
	SeriesValues []float64
}

// ChartSlice is one slice of a pie chart.
type ChartSlice struct {
	Label string
	Value float64
}

// ChartPoint is one point of a scatter chart.
type ChartPoint struct {
	SeriesKey   string
	SeriesIndex int // index into ChartProps.Series, or -1 when the key is not declared
	X, Y        float64
}

// ChartProps holds the members specific to chart items. Which data slices are filled
// depends on ChartType.
type ChartProps struct {
	ChartType              ChartType
	ThemeColor             string
	AnimationDurationTicks int64
	Series                 []ChartSeries // line, bar, area, radar, scatter
	Rows                   []ChartRow    // line, bar, area, radar
	Slices                 []ChartSlice  // pie
	Points                 []ChartPoint  // scatter
}

// Item is one timeline item. The common timing and geometry members are fields of Item;
// the members of one type are in the matching pointer field (Image, Media, Text, ...),
// which is nil for items of other types.
//
// Geometry members absent from the state default to 0, except ScaleX, ScaleY and Opacity,
// which default to 1. HasGeometry is false for items that are not drawn as a box: effect
// and filter items (which have no geometry; they apply to the frame) and audio items.
type Item struct {
	ID            string
	Type          ItemType
	StartTicks    int64
	DurationTicks int64
	IsDragging    bool

	HasGeometry                              bool
	Top, Left, Width, Height                 AnimatedNumber
	ScaleX, ScaleY, Opacity                  AnimatedNumber
	Rotation                                 AnimatedNumber // degrees clockwise
	BorderRadius                             AnimatedNumber // px
	CropLeft, CropTop, CropRight, CropBottom AnimatedNumber // fractions of the box
	HasCrop                                  bool           // any crop member was present
	KeepAspectRatio                          bool
	AssetID                                  string // image, video, gif, lottie, audio, captions
	// Asset is the asset AssetID names, or nil when it names none.
	Asset *Asset
	// TransitionIn and TransitionOut are the transitions whose toClipId and fromClipId are
	// this item (the first by transition key when several are), or nil.
	TransitionIn, TransitionOut *Transition
	Animations                  Animations
	CaptionAnimations           CaptionAnimations // text and captions
	Image                       *ImageProps
	Media                       *MediaProps // video, gif, lottie, audio
	Text                        *TextProps
	Captions                    *CaptionsProps
	Template                    *TextTemplateProps
	Solid                       *SolidProps
	Illustration                *IllustrationProps
	Effect                      *EffectProps
	Filter                      *FilterProps
	Chart                       *ChartProps
	trackIndex                  int  // index into State.Tracks, -1 when in none
	broken                      bool // placeholder for an item that did not decode
}

// EndTicks returns the first tick after the item (StartTicks + DurationTicks).
func (it *Item) EndTicks() int64 { return satAdd(it.StartTicks, it.DurationTicks) }

// ActiveAt reports whether the item is visible or audible at the absolute tick t
// (StartTicks <= t < EndTicks).
func (it *Item) ActiveAt(t int64) bool { return t >= it.StartTicks && t < it.EndTicks() }

// TrackIndex returns the index in State.Tracks of the first track listing the item, or -1.
func (it *Item) TrackIndex() int { return it.trackIndex }

// CaptionEntry is one timed piece of caption text (a word or a line).
type CaptionEntry struct {
	Text        string
	StartMs     float64
	EndMs       float64
	TimestampMs float64 // StartMs when absent or null
	Confidence  float64 // -1 when absent or null
}

// Asset is an editor asset: media an item refers to by its map key.
type Asset struct {
	ID        string
	Type      AssetType
	Filename  string
	Size      float64
	RemoteURL string // empty when absent or null
	RemoteKey string // empty when absent or null
	MimeType  string
	Width     float64 // image, video, gif, lottie
	Height    float64 // image, video, gif, lottie
	// DurationSeconds is durationInSeconds (video, gif, audio, lottie).
	DurationSeconds float64
	HasAudioTrack   bool   // video
	LoopBehavior    string // gif: finite or loop
	// ResourceType is "lottie" or "svg" (lottie assets).
	ResourceType        string
	ResourceJSON        json.RawMessage // lottie assets; nil when absent or null
	ResourceComponentID string          // lottie assets
	Captions            []CaptionEntry  // caption assets, in document order
	TimingGranularity   string          // caption assets: word or line
	broken              bool            // placeholder for an asset that did not decode
}

// Transition joins two adjacent clips of one track.
type Transition struct {
	ID            string
	TrackID       string
	FromClipID    string
	ToClipID      string
	Type          string // fade, slide, wipe, flip, clock-wipe, iris
	DurationTicks int64
	Easing        Easing // empty means linear
	Params        Params
}

// Background is the global background drawn behind every track.
type Background struct {
	Type         BackgroundType // BackgroundNone when absent
	Color        string         // color
	Gradient     string         // color: a CSS gradient, empty when null
	Level        int            // blur: 0..4
	ImageAssetID string         // image: empty when null
	ImageURL     string         // image
	Source       string         // image: preset or custom
}

// BrandRuntime is the editor's brand-kit bookkeeping. It does not affect rendering.
type BrandRuntime struct {
	BrandID            string
	LogoX, LogoY       float64
	ManagedItemIDs     []string
	ManagedAssetIDs    []string
	IntroShiftInFrames int64
	OverlayTrackID     string
	UnderlayTrackID    string
}

// DeletedAsset records an asset the user deleted; items must not refer to it.
type DeletedAsset struct {
	AssetID          string
	RemoteURL        string
	RemoteKey        string
	StatusAtDeletion string // the type of statusAtDeletion, e.g. "uploaded"
}

// State is a parsed, read-only view of an editor state. Build it with Parse; do not modify
// it after that (it is safe for concurrent readers).
type State struct {
	CompositionWidth       int
	CompositionHeight      int
	TimebaseTicksPerSecond int64
	OutputRatio            string
	Tracks                 []Track           // Tracks[0] is the front layer
	Assets                 map[string]*Asset // by map key
	Items                  map[string]*Item  // by map key
	Transitions            map[string]*Transition
	GlobalBackground       Background
	BrandRuntime           *BrandRuntime // nil when absent or null
	DeletedAssets          []DeletedAsset

	trackItems       [][]*Item // per track: existing items sorted by start time
	transitionsOrder []string  // transition keys sorted
	duration         int64
}

// Item returns the item with the given id (map key), or nil.
func (s *State) Item(id string) *Item { return s.Items[id] }

// Asset returns the asset with the given id (map key), or nil.
func (s *State) Asset(id string) *Asset { return s.Assets[id] }

// ItemsInTrack returns the existing items of Tracks[i] sorted by start time (ties keep the
// track's order). Ids that name no item are skipped. The slice is shared: do not modify it.
func (s *State) ItemsInTrack(i int) []*Item {
	if i < 0 || i >= len(s.trackItems) {
		return nil
	}
	return s.trackItems[i]
}

// renderedItems yields, track by track, the items a render draws or plays: those listed in
// a track that is not both hidden and muted, except placeholders for items that did not
// decode.
func (s *State) renderedItems() iter.Seq[*Item] {
	return func(yield func(*Item) bool) {
		for ti, tr := range s.Tracks {
			if tr.Hidden && tr.Muted {
				continue
			}
			for _, it := range s.ItemsInTrack(ti) {
				if !it.broken && !yield(it) {
					return
				}
			}
		}
	}
}

// TrackByID returns the index of the first track with the given id, or -1.
func (s *State) TrackByID(id string) int {
	for i := range s.Tracks {
		if s.Tracks[i].ID == id {
			return i
		}
	}
	return -1
}

// TransitionsSorted returns the transitions ordered by their map key.
func (s *State) TransitionsSorted() []*Transition {
	out := make([]*Transition, 0, len(s.transitionsOrder))
	for _, k := range s.transitionsOrder {
		out = append(out, s.Transitions[k])
	}
	return out
}

// CaptionEntries returns the caption entries of a captions item's asset, or nil when the
// item is not a captions item or its asset is missing or not a caption asset.
func (s *State) CaptionEntries(it *Item) []CaptionEntry {
	if it == nil || it.Captions == nil {
		return nil
	}
	a := s.Assets[it.AssetID]
	if a == nil || a.Type != AssetCaption {
		return nil
	}
	return a.Captions
}

// DurationTicks returns the end of the last item (the largest StartTicks+DurationTicks over
// all items in tracks), or 0 when there are none.
func (s *State) DurationTicks() int64 { return s.duration }

// FrameTicks returns the tick at which frame n starts at fps frames per second in the
// state's timebase (see the package function FrameTicks).
func (s *State) FrameTicks(n, fps int64) int64 { return FrameTicks(n, fps, s.TimebaseTicksPerSecond) }

// FrameTicks returns the tick at which frame n starts at fps frames per second:
// n*tbps/fps, computed in integers (rounded towards zero) without overflow; a result past
// the int64 range saturates. It returns 0 when fps <= 0 or tbps <= 0.
func FrameTicks(n, fps, tbps int64) int64 {
	if fps <= 0 || tbps <= 0 {
		return 0
	}
	if n < 0 {
		if n == math.MinInt64 {
			n++ // so that -n fits; the result saturates anyway
		}
		q, _ := MulDiv(-n, tbps, fps)
		return -q
	}
	q, _ := MulDiv(n, tbps, fps)
	return q
}

// FrameCount returns the number of frames of a state lasting durationTicks at fps: the
// smallest n with FrameTicks(n, fps, tbps) >= durationTicks. It is computed without
// overflow; a count past the int64 range saturates at math.MaxInt64, so callers compare it
// with their limit (a state within MaxTicks at up to MaxFPS never comes near).
func FrameCount(durationTicks, fps, tbps int64) int64 {
	if fps <= 0 || tbps <= 0 || durationTicks <= 0 {
		return 0
	}
	n, _ := MulDivCeil(durationTicks, fps, tbps)
	return n
}

// Apply maps linear progress p (0..1, clamped) through the easing curve: linear, or the CSS
// cubic-bezier of ease-in (0.42,0,1,1), ease-out (0,0,0.58,1) or ease-in-out
// (0.42,0,0.58,1). Unknown or empty easings are linear.
func (e Easing) Apply(p float64) float64 {
	switch {
	case !(p > 0): // also NaN
		return 0
	case p >= 1:
		return 1
	}
	switch e {
	case EaseIn:
		return cubicBezier(0.42, 0, 1, 1, p)
	case EaseOut:
		return cubicBezier(0, 0, 0.58, 1, p)
	case EaseInOut:
		return cubicBezier(0.42, 0, 0.58, 1, p)
	}
	return p
}

// cubicBezier evaluates the CSS timing function cubic-bezier(x1, y1, x2, y2) at x.
func cubicBezier(x1, y1, x2, y2, x float64) float64 {
	// Coefficients of the x and y polynomials in t.
	cx := 3 * x1
	bx := 3*(x2-x1) - cx
	ax := 1 - cx - bx
	cy := 3 * y1
	by := 3*(y2-y1) - cy
	ay := 1 - cy - by
	sampleX := func(t float64) float64 { return ((ax*t+bx)*t + cx) * t }
	// Newton's method, then bisection if it does not converge.
	t := x
	for i := 0; i < 8; i++ {
		dx := sampleX(t) - x
		if dx < 1e-7 && dx > -1e-7 {
			return ((ay*t+by)*t + cy) * t
		}
		d := (3*ax*t+2*bx)*t + cx
		if d < 1e-6 && d > -1e-6 {
			break
		}
		t -= dx / d
	}
	lo, hi := 0.0, 1.0
	t = x
	for i := 0; i < 40; i++ {
		v := sampleX(t)
		if v < x {
			lo = t
		} else {
			hi = t
		}
		t = (lo + hi) / 2
	}
	return ((ay*t+by)*t + cy) * t
}
