package editor

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"

	"github.com/cutroom/cutroom/editor/internal/jsontape"
)

// The wire types below mirror the JSON shape: their json tags name the members the tape
// reader reads into them (see fromtape.go). Numbers are float64 and converted, so that
// integer members written as 1.0 (which the schema accepts) still work.

type wireKeyframe struct {
	TimeTicks float64 `json:"timeTicks"`
	Value     float64 `json:"value"`
}

type wireAnimated struct {
	Value     float64        `json:"value"`
	Keyframes []wireKeyframe `json:"keyframes"`
}

type wireAnimation struct {
	Type          string  `json:"type"`
	DurationTicks float64 `json:"durationTicks"`
	Easing        string  `json:"easing"`
	Params        Params  `json:"params"`
}

type wireAnimations struct {
	In   *wireAnimation `json:"in"`
	Out  *wireAnimation `json:"out"`
	Loop *wireAnimation `json:"loop"`
}

type wireFontStyle struct {
	Variant string `json:"variant"`
	Weight  string `json:"weight"`
}

type wireTextBackground struct {
	Color             string  `json:"color"`
	HorizontalPadding float64 `json:"horizontalPadding"`
	BorderRadius      float64 `json:"borderRadius"`
}

type wireTextStyle struct {
	Color         string              `json:"color"`
	Align         string              `json:"align"`
	FontFamily    string              `json:"fontFamily"`
	FontStyle     wireFontStyle       `json:"fontStyle"`
	FontSize      float64             `json:"fontSize"`
	LineHeight    float64             `json:"lineHeight"`
	LetterSpacing float64             `json:"letterSpacing"`
	Direction     string              `json:"direction"`
	StrokeWidth   float64             `json:"strokeWidth"`
	StrokeColor   string              `json:"strokeColor"`
	Background    *wireTextBackground `json:"background"`
}

type wireTemplateNode struct {
	ID                string          `json:"id"`
	Type              string          `json:"type"`
	X                 float64         `json:"x"`
	Y                 float64         `json:"y"`
	Width             float64         `json:"width"`
	Height            float64         `json:"height"`
	Opacity           *float64        `json:"opacity"`
	ImageType         string          `json:"imageType"`
	ImageComponentID  *string         `json:"imageComponentId"`
	ImageLottieJSON   json.RawMessage `json:"imageLottieJson"`
	Text              string          `json:"text"`
	Animations        *wireAnimations `json:"animations"`
	CaptionAnimations *wireAnimations `json:"captionAnimations"`
	wireTextStyle
}

type wireChartSeries struct {
	Key   string `json:"key"`
	Label string `json:"label"`
}

type wireChartRow struct {
	Label  string             `json:"label"`
	Values map[string]float64 `json:"values"`
}

type wireChartSlice struct {
	Label string  `json:"label"`
	Value float64 `json:"value"`
}

type wireChartPoint struct {
	SeriesKey string  `json:"seriesKey"`
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
}

type wireChartData struct {
	Series []wireChartSeries `json:"series"`
	Rows   []wireChartRow    `json:"rows"`
	Slices []wireChartSlice  `json:"slices"`
	Points []wireChartPoint  `json:"points"`
}

type wireItem struct {
	ID                   string  `json:"id"`
	Type                 string  `json:"type"`
	StartTicks           float64 `json:"startTicks"`
	DurationTicks        float64 `json:"durationTicks"`
	IsDraggingInTimeline bool    `json:"isDraggingInTimeline"`

	Top          *wireAnimated `json:"top"`
	Left         *wireAnimated `json:"left"`
	Width        *wireAnimated `json:"width"`
	Height       *wireAnimated `json:"height"`
	ScaleX       *wireAnimated `json:"scaleX"`
	ScaleY       *wireAnimated `json:"scaleY"`
	Opacity      *wireAnimated `json:"opacity"`
	Rotation     *wireAnimated `json:"rotation"`
	BorderRadius *wireAnimated `json:"borderRadius"`
	CropLeft     *wireAnimated `json:"cropLeft"`
	CropTop      *wireAnimated `json:"cropTop"`
	CropRight    *wireAnimated `json:"cropRight"`
	CropBottom   *wireAnimated `json:"cropBottom"`

	KeepAspectRatio   bool            `json:"keepAspectRatio"`
	AssetID           string          `json:"assetId"`
	Animations        *wireAnimations `json:"animations"`
	CaptionAnimations *wireAnimations `json:"captionAnimations"`

	// image
	StickerID      *string  `json:"stickerId"`
	StickerVersion *float64 `json:"stickerVersion"`

	// media
	VideoStartFromInSeconds  float64       `json:"videoStartFromInSeconds"`
	GifStartFromInSeconds    float64       `json:"gifStartFromInSeconds"`
	LottieStartFromInSeconds float64       `json:"lottieStartFromInSeconds"`
	AudioStartFromInSeconds  float64       `json:"audioStartFromInSeconds"`
	PlaybackRate             *float64      `json:"playbackRate"`
	DecibelAdjustment        *wireAnimated `json:"decibelAdjustment"`
	AudioFadeIn              *float64      `json:"audioFadeInDurationInSeconds"`
	AudioFadeOut             *float64      `json:"audioFadeOutDurationInSeconds"`

	// text, captions
	Text string `json:"text"`
	wireTextStyle
	ResizeOnEdit bool `json:"resizeOnEdit"`

	// captions
	HighlightColor             string  `json:"highlightColor"`
	PageDurationInMilliseconds float64 `json:"pageDurationInMilliseconds"`
	MaxLines                   float64 `json:"maxLines"`
	ContentStartOffsetMs       float64 `json:"contentStartOffsetMs"`
	Source                     string  `json:"source"`
	CaptionGroupID             *string `json:"captionGroupId"`

	// text-template
	SchemaVersion    float64            `json:"schemaVersion"`
	TemplateID       string             `json:"templateId"`
	TemplateCategory string             `json:"templateCategory"`
	Nodes            []wireTemplateNode `json:"nodes"`

	// solid, illustration
	Shape            string `json:"shape"`
	IllustrationName string `json:"illustrationName"`

	// effect, filter
	EffectType string   `json:"effectType"`
	FilterType string   `json:"filterType"`
	Intensity  *float64 `json:"intensity"`
	Params     Params   `json:"params"`

	// chart
	ChartType              string        `json:"chartType"`
	ThemeColor             string        `json:"themeColor"`
	Data                   wireChartData `json:"data"`
	AnimationDurationTicks float64       `json:"animationDurationTicks"`
}

type wireCaptionEntry struct {
	Text        string   `json:"text"`
	StartMs     float64  `json:"startMs"`
	EndMs       float64  `json:"endMs"`
	TimestampMs *float64 `json:"timestampMs"`
	Confidence  *float64 `json:"confidence"`
}

type wireAsset struct {
	ID                  string             `json:"id"`
	Type                string             `json:"type"`
	Filename            string             `json:"filename"`
	Size                float64            `json:"size"`
	RemoteURL           *string            `json:"remoteUrl"`
	RemoteKey           *string            `json:"remoteKey"`
	MimeType            string             `json:"mimeType"`
	Width               float64            `json:"width"`
	Height              float64            `json:"height"`
	DurationInSeconds   float64            `json:"durationInSeconds"`
	HasAudioTrack       bool               `json:"hasAudioTrack"`
	LoopBehavior        string             `json:"loopBehavior"`
	ResourceType        string             `json:"resourceType"`
	ResourceJSON        json.RawMessage    `json:"resourceJson" tape:"-"` // lottie only (readTape)
	ResourceComponentID *string            `json:"resourceComponentId"`
	Captions            []wireCaptionEntry `json:"captions"`
	TimingGranularity   string             `json:"timingGranularity"`
}

type wireTrack struct {
	ID     string   `json:"id"`
	Items  []string `json:"items"`
	Hidden bool     `json:"hidden"`
	Muted  bool     `json:"muted"`
}

type wireTransition struct {
	ID            string  `json:"id"`
	TrackID       string  `json:"trackId"`
	FromClipID    string  `json:"fromClipId"`
	ToClipID      string  `json:"toClipId"`
	Type          string  `json:"type"`
	DurationTicks float64 `json:"durationTicks"`
	Easing        string  `json:"easing"`
	Params        Params  `json:"params"`
}

type wireBackground struct {
	Type         string  `json:"type"`
	Color        string  `json:"color"`
	Gradient     *string `json:"gradient"`
	Level        float64 `json:"level"`
	ImageAssetID *string `json:"imageAssetId"`
	ImageURL     string  `json:"imageUrl"`
	Source       string  `json:"source"`
}

type wireBrandRuntime struct {
	BrandID            *string  `json:"brandId"`
	LogoX              float64  `json:"logoX"`
	LogoY              float64  `json:"logoY"`
	ManagedItemIDs     []string `json:"managedItemIds"`
	ManagedAssetIDs    []string `json:"managedAssetIds"`
	IntroShiftInFrames float64  `json:"introShiftInFrames"`
	OverlayTrackID     *string  `json:"overlayTrackId"`
	UnderlayTrackID    *string  `json:"underlayTrackId"`
}

type wireDeletedAsset struct {
	AssetID          string  `json:"assetId"`
	RemoteURL        *string `json:"remoteUrl"`
	RemoteKey        *string `json:"remoteKey"`
	StatusAtDeletion struct {
		Type string `json:"type"`
	} `json:"statusAtDeletion"`
}

type wireState struct {
	CompositionWidth       float64                    `json:"compositionWidth"`
	CompositionHeight      float64                    `json:"compositionHeight"`
	TimebaseTicksPerSecond float64                    `json:"timebaseTicksPerSecond"`
	OutputRatio            string                     `json:"outputRatio"`
	Tracks                 []wireTrack                `json:"tracks"`
	Assets                 map[string]*wireAsset      `json:"assets"`
	Items                  map[string]*wireItem       `json:"items" tape:"-"` // see built
	Transitions            map[string]*wireTransition `json:"transitions"`
	GlobalBackground       *wireBackground            `json:"globalBackground"`
	BrandRuntime           *wireBrandRuntime          `json:"brandRuntime"`
	DeletedAssets          []wireDeletedAsset         `json:"deletedAssets"`

	built map[string]*Item // the items, already built as the tape is read (then Items is nil)
}

// UnmarshalJSON decodes a JSON object of primitives into p. Strings keep their text; other
// values keep their JSON spelling.
func (p *Params) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*p = nil
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(Params, len(raw))
	for k, v := range raw {
		v = bytes.TrimSpace(v)
		if len(v) > 0 && v[0] == '"' {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return err
			}
			out[k] = s
			continue
		}
		out[k] = string(v)
	}
	*p = out
	return nil
}

// Parse decodes an editor state into its typed, read-only view. It fails only when raw is
// not JSON or not a JSON object; it does not validate (use a Validator for that), and a
// member of the wrong JSON type reads as absent. Unknown members are ignored. Parse never
// panics.
func Parse(raw []byte) (*State, error) {
	t, err := jsontape.Decode(raw)
	if err != nil {
		return nil, newError(CodeInvalidJSON, "", "editor state is not valid JSON: "+err.Error())
	}
	if t.Kind(t.Root()) != jsontape.Object {
		return nil, newError(CodeInvalidJSON, "", "editor state must be a JSON object")
	}
	return build(wireFromTape(t)), nil
}

// toTicks converts a JSON number to integer ticks, truncating and clamping to int64.
func toTicks(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

func toInt(f float64) int {
	t := toTicks(f)
	if t > math.MaxInt32 {
		return math.MaxInt32
	}
	if t < math.MinInt32 {
		return math.MinInt32
	}
	return int(t)
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func isNullRaw(r json.RawMessage) bool {
	r = bytes.TrimSpace(r)
	return len(r) == 0 || bytes.Equal(r, []byte("null"))
}

func animated(w *wireAnimated, def float64) AnimatedNumber {
	if w == nil {
		return AnimatedNumber{Value: def}
	}
	a := AnimatedNumber{Value: w.Value}
	if len(w.Keyframes) > 0 {
		a.Keyframes = make([]Keyframe, len(w.Keyframes))
		sorted := true
		for i, k := range w.Keyframes {
			a.Keyframes[i] = Keyframe{TimeTicks: toTicks(k.TimeTicks), Value: k.Value}
			if i > 0 && a.Keyframes[i].TimeTicks < a.Keyframes[i-1].TimeTicks {
				sorted = false
			}
		}
		if !sorted {
			idx := make([]int, len(a.Keyframes))
			for i := range idx {
				idx[i] = i
			}
			sort.Stable(byTime{a.Keyframes, idx})
			a.docIndex = &idx
		}
	}
	return a
}

// byTime sorts keyframes by time together with their document indexes.
type byTime struct {
	k   []Keyframe
	idx []int
}

func (b byTime) Len() int           { return len(b.k) }
func (b byTime) Less(i, j int) bool { return b.k[i].TimeTicks < b.k[j].TimeTicks }
func (b byTime) Swap(i, j int) {
	b.k[i], b.k[j] = b.k[j], b.k[i]
	b.idx[i], b.idx[j] = b.idx[j], b.idx[i]
}

func animation(w *wireAnimation) *AnimationSpec {
	if w == nil {
		return nil
	}
	return &AnimationSpec{Type: w.Type, DurationTicks: toTicks(w.DurationTicks), Easing: Easing(w.Easing), Params: w.Params}
}

func animations(w *wireAnimations) Animations {
	if w == nil {
		return Animations{}
	}
	return Animations{In: animation(w.In), Out: animation(w.Out)}
}

func captionAnimations(w *wireAnimations) CaptionAnimations {
	if w == nil {
		return CaptionAnimations{}
	}
	return CaptionAnimations{In: animation(w.In), Out: animation(w.Out), Loop: animation(w.Loop)}
}

func textStyle(w *wireTextStyle) TextStyle {
	ts := TextStyle{
		Color:         w.Color,
		Align:         Align(w.Align),
		FontFamily:    w.FontFamily,
		FontStyle:     FontStyle{Variant: w.FontStyle.Variant, Weight: w.FontStyle.Weight},
		FontSize:      w.FontSize,
		LineHeight:    w.LineHeight,
		LetterSpacing: w.LetterSpacing,
		Direction:     Direction(w.Direction),
		StrokeWidth:   w.StrokeWidth,
		StrokeColor:   w.StrokeColor,
	}
	if w.Background != nil {
		ts.Background = &TextBackground{Color: w.Background.Color, HorizontalPadding: w.Background.HorizontalPadding, BorderRadius: w.Background.BorderRadius}
	}
	return ts
}

// itemBuilder turns wire items into Items. The keyframes of a wireAnimated shared by
// several items (see tapeReader) are converted once, and the Items share them (a State is
// read-only).
type itemBuilder struct {
	anims map[*wireAnimated]AnimatedNumber
}

func newItemBuilder() *itemBuilder {
	return &itemBuilder{anims: map[*wireAnimated]AnimatedNumber{}}
}

func (b *itemBuilder) animated(w *wireAnimated, def float64) AnimatedNumber {
	if w == nil || len(w.Keyframes) == 0 {
		return animated(w, def)
	}
	if a, ok := b.anims[w]; ok {
		return a
	}
	a := animated(w, def)
	b.anims[w] = a
	return a
}

// build fills *it from w.
func (b *itemBuilder) build(w *wireItem, it *Item) {
	animated := b.animated
	*it = Item{
		ID:                w.ID,
		Type:              ItemType(w.Type),
		StartTicks:        toTicks(w.StartTicks),
		DurationTicks:     toTicks(w.DurationTicks),
		IsDragging:        w.IsDraggingInTimeline,
		KeepAspectRatio:   w.KeepAspectRatio,
		AssetID:           w.AssetID,
		Animations:        animations(w.Animations),
		CaptionAnimations: captionAnimations(w.CaptionAnimations),
		trackIndex:        -1,
	}
	it.HasGeometry = it.Type != ItemEffect && it.Type != ItemFilter && it.Type != ItemAudio
	it.Top = animated(w.Top, 0)
	it.Left = animated(w.Left, 0)
	it.Width = animated(w.Width, 0)
	it.Height = animated(w.Height, 0)
	it.ScaleX = animated(w.ScaleX, 1)
	it.ScaleY = animated(w.ScaleY, 1)
	it.Opacity = animated(w.Opacity, 1)
	it.Rotation = animated(w.Rotation, 0)
	it.BorderRadius = animated(w.BorderRadius, 0)
	it.CropLeft = animated(w.CropLeft, 0)
	it.CropTop = animated(w.CropTop, 0)
	it.CropRight = animated(w.CropRight, 0)
	it.CropBottom = animated(w.CropBottom, 0)
	it.HasCrop = w.CropLeft != nil || w.CropTop != nil || w.CropRight != nil || w.CropBottom != nil

	media := func(startFrom float64) *MediaProps {
		m := &MediaProps{StartFromSeconds: startFrom, PlaybackRate: 1}
		if w.PlaybackRate != nil {
			m.PlaybackRate = *w.PlaybackRate
		}
		if w.DecibelAdjustment != nil {
			m.DecibelAdjustment = animated(w.DecibelAdjustment, 0)
			m.HasDecibelAdjustment = true
		}
		if w.AudioFadeIn != nil || w.AudioFadeOut != nil {
			m.HasAudioFadeDurations = true
		}
		if w.AudioFadeIn != nil {
			m.AudioFadeInSeconds = *w.AudioFadeIn
		}
		if w.AudioFadeOut != nil {
			m.AudioFadeOutSeconds = *w.AudioFadeOut
		}
		return m
	}

	switch it.Type {
	case ItemImage:
		ip := &ImageProps{StickerID: str(w.StickerID)}
		if w.StickerVersion != nil {
			ip.StickerVersion = toTicks(*w.StickerVersion)
		}
		it.Image = ip
	case ItemVideo:
		it.Media = media(w.VideoStartFromInSeconds)
	case ItemGif:
		it.Media = media(w.GifStartFromInSeconds)
	case ItemLottie:
		it.Media = media(w.LottieStartFromInSeconds)
	case ItemAudio:
		it.Media = media(w.AudioStartFromInSeconds)
	case ItemText:
		it.Text = &TextProps{Text: w.Text, TextStyle: textStyle(&w.wireTextStyle), ResizeOnEdit: w.ResizeOnEdit}
	case ItemCaptions:
		it.Captions = &CaptionsProps{
			TextStyle:            textStyle(&w.wireTextStyle),
			HighlightColor:       w.HighlightColor,
			PageDurationMs:       w.PageDurationInMilliseconds,
			MaxLines:             toInt(w.MaxLines),
			ContentStartOffsetMs: w.ContentStartOffsetMs,
			Source:               w.Source,
			CaptionGroupID:       str(w.CaptionGroupID),
		}
	case ItemTextTemplate:
		tp := &TextTemplateProps{SchemaVersion: toTicks(w.SchemaVersion), TemplateID: w.TemplateID, TemplateCategory: w.TemplateCategory}
		tp.Nodes = make([]TemplateNode, len(w.Nodes))
		for i := range w.Nodes {
			wn := &w.Nodes[i]
			n := TemplateNode{
				ID: wn.ID, Type: TemplateNodeType(wn.Type),
				X: wn.X, Y: wn.Y, Width: wn.Width, Height: wn.Height, Opacity: 1,
				Animations:        animations(wn.Animations),
				CaptionAnimations: captionAnimations(wn.CaptionAnimations),
			}
			if wn.Opacity != nil {
				n.Opacity = *wn.Opacity
			}
			switch n.Type {
			case TemplateNodeImage:
				n.ImageType = wn.ImageType
				n.ImageComponentID = str(wn.ImageComponentID)
				if !isNullRaw(wn.ImageLottieJSON) {
					n.ImageLottieJSON = wn.ImageLottieJSON
				}
			case TemplateNodeText:
				n.Text = wn.Text
				n.Style = textStyle(&wn.wireTextStyle)
			}
			tp.Nodes[i] = n
		}
		it.Template = tp
	case ItemSolid:
		it.Solid = &SolidProps{Color: w.Color, Shape: w.Shape}
	case ItemIllustration:
		it.Illustration = &IllustrationProps{Name: w.IllustrationName, Color: w.Color}
	case ItemEffect:
		ep := &EffectProps{EffectType: w.EffectType, Params: w.Params}
		if w.Intensity != nil {
			ep.Intensity = *w.Intensity
		}
		it.Effect = ep
	case ItemFilter:
		fp := &FilterProps{FilterType: w.FilterType, Params: w.Params}
		if w.Intensity != nil {
			fp.Intensity = *w.Intensity
		}
		it.Filter = fp
	case ItemChart:
		it.Chart = buildChart(w)
	}
}

func buildChart(w *wireItem) *ChartProps {
	c := &ChartProps{
		ChartType:              ChartType(w.ChartType),
		ThemeColor:             w.ThemeColor,
		AnimationDurationTicks: toTicks(w.AnimationDurationTicks),
	}
	d := &w.Data
	if len(d.Series) > 0 {
		c.Series = make([]ChartSeries, len(d.Series))
		for i, s := range d.Series {
			c.Series[i] = ChartSeries(s)
		}
	}
	seriesIndex := func(key string) int {
		for i := range c.Series {
			if c.Series[i].Key == key {
				return i
			}
		}
		return -1
	}
	if len(d.Rows) > 0 {
		c.Rows = make([]ChartRow, len(d.Rows))
		for i, r := range d.Rows {
			row := ChartRow{Label: r.Label, Values: r.Values, SeriesValues: make([]float64, len(c.Series))}
			for j, s := range c.Series {
				if v, ok := r.Values[s.Key]; ok {
					row.SeriesValues[j] = v
				} else {
					row.SeriesValues[j] = math.NaN()
				}
			}
			c.Rows[i] = row
		}
	}
	if len(d.Slices) > 0 {
		c.Slices = make([]ChartSlice, len(d.Slices))
		for i, s := range d.Slices {
			c.Slices[i] = ChartSlice(s)
		}
	}
	if len(d.Points) > 0 {
		c.Points = make([]ChartPoint, len(d.Points))
		for i, p := range d.Points {
			c.Points[i] = ChartPoint{SeriesKey: p.SeriesKey, SeriesIndex: seriesIndex(p.SeriesKey), X: p.X, Y: p.Y}
		}
	}
	return c
}

func buildAsset(w *wireAsset) *Asset {
	a := &Asset{
		ID: w.ID, Type: AssetType(w.Type), Filename: w.Filename, Size: w.Size,
		RemoteURL: str(w.RemoteURL), RemoteKey: str(w.RemoteKey), MimeType: w.MimeType,
		Width: w.Width, Height: w.Height, DurationSeconds: w.DurationInSeconds,
		HasAudioTrack: w.HasAudioTrack, LoopBehavior: w.LoopBehavior,
		ResourceType: w.ResourceType, ResourceComponentID: str(w.ResourceComponentID),
		TimingGranularity: w.TimingGranularity,
	}
	if !isNullRaw(w.ResourceJSON) {
		a.ResourceJSON = w.ResourceJSON
	}
	if len(w.Captions) > 0 {
		a.Captions = make([]CaptionEntry, len(w.Captions))
		for i, c := range w.Captions {
			e := CaptionEntry{Text: c.Text, StartMs: c.StartMs, EndMs: c.EndMs, TimestampMs: c.StartMs, Confidence: -1}
			if c.TimestampMs != nil {
				e.TimestampMs = *c.TimestampMs
			}
			if c.Confidence != nil {
				e.Confidence = *c.Confidence
			}
			a.Captions[i] = e
		}
	}
	return a
}

// placeholderItem is the Item for a member of items that is not an object; the semantic
// rules skip it.
func placeholderItem(key string) Item { return Item{ID: key, trackIndex: -1, broken: true} }

// build turns w into a State. Its items are w.built when set (see wireFromTape), and
// otherwise built from w.Items.
func build(w *wireState) *State {
	s := &State{
		CompositionWidth:       toInt(w.CompositionWidth),
		CompositionHeight:      toInt(w.CompositionHeight),
		TimebaseTicksPerSecond: toTicks(w.TimebaseTicksPerSecond),
		OutputRatio:            w.OutputRatio,
		Tracks:                 make([]Track, len(w.Tracks)),
		Assets:                 make(map[string]*Asset, len(w.Assets)),
		Items:                  make(map[string]*Item, len(w.Items)+len(w.built)),
		Transitions:            make(map[string]*Transition, len(w.Transitions)),
		GlobalBackground:       Background{Type: BackgroundNone},
	}
	for i, t := range w.Tracks {
		s.Tracks[i] = Track{ID: t.ID, ItemIDs: t.Items, Hidden: t.Hidden, Muted: t.Muted}
	}
	for k, a := range w.Assets {
		if a == nil { // not an object: a placeholder the semantic rules skip
			s.Assets[k] = &Asset{ID: k, broken: true}
			continue
		}
		s.Assets[k] = buildAsset(a)
	}
	if w.built != nil {
		s.Items = w.built
	} else {
		b := newItemBuilder()
		slab := make([]Item, len(w.Items))
		i := 0
		for k, wi := range w.Items {
			it := &slab[i]
			i++
			if wi == nil {
				*it = placeholderItem(k)
			} else {
				b.build(wi, it)
			}
			s.Items[k] = it
		}
	}
	for k, t := range w.Transitions {
		if t == nil {
			continue
		}
		s.Transitions[k] = &Transition{
			ID: t.ID, TrackID: t.TrackID, FromClipID: t.FromClipID, ToClipID: t.ToClipID,
			Type: t.Type, DurationTicks: toTicks(t.DurationTicks), Easing: Easing(t.Easing), Params: t.Params,
		}
		s.transitionsOrder = append(s.transitionsOrder, k)
	}
	sort.Strings(s.transitionsOrder)
	if b := w.GlobalBackground; b != nil && b.Type != "" {
		s.GlobalBackground = Background{
			Type: BackgroundType(b.Type), Color: b.Color, Gradient: str(b.Gradient),
			Level: toInt(b.Level), ImageAssetID: str(b.ImageAssetID), ImageURL: b.ImageURL, Source: b.Source,
		}
	}
	if b := w.BrandRuntime; b != nil {
		s.BrandRuntime = &BrandRuntime{
			BrandID: str(b.BrandID), LogoX: b.LogoX, LogoY: b.LogoY,
			ManagedItemIDs: b.ManagedItemIDs, ManagedAssetIDs: b.ManagedAssetIDs,
			IntroShiftInFrames: toTicks(b.IntroShiftInFrames),
			OverlayTrackID:     str(b.OverlayTrackID), UnderlayTrackID: str(b.UnderlayTrackID),
		}
	}
	for _, d := range w.DeletedAssets {
		s.DeletedAssets = append(s.DeletedAssets, DeletedAsset{
			AssetID: d.AssetID, RemoteURL: str(d.RemoteURL), RemoteKey: str(d.RemoteKey),
			StatusAtDeletion: d.StatusAtDeletion.Type,
		})
	}

	// Resolve assets, caption entries and transitions per item.
	for _, it := range s.Items {
		if it.AssetID != "" {
			it.Asset = s.Assets[it.AssetID]
			if it.Asset != nil && it.Asset.broken {
				it.Asset = nil
			}
		}
		if it.Captions != nil && it.Asset != nil && it.Asset.Type == AssetCaption {
			it.Captions.Entries = it.Asset.Captions
		}
	}
	for _, k := range s.transitionsOrder {
		t := s.Transitions[k]
		if from := s.Items[t.FromClipID]; from != nil && from.TransitionOut == nil && !from.broken {
			from.TransitionOut = t
		}
		if to := s.Items[t.ToClipID]; to != nil && to.TransitionIn == nil && !to.broken {
			to.TransitionIn = t
		}
	}

	// Per-track item lists sorted by start time, track membership, and duration.
	s.trackItems = make([][]*Item, len(s.Tracks))
	for ti := range s.Tracks {
		ids := s.Tracks[ti].ItemIDs
		list := make([]*Item, 0, len(ids))
		sorted := true
		for _, id := range ids {
			it := s.Items[id]
			if it == nil {
				continue
			}
			if it.trackIndex < 0 {
				it.trackIndex = ti
			}
			if n := len(list); n > 0 && list[n-1].StartTicks > it.StartTicks {
				sorted = false
			}
			list = append(list, it)
			if e := satAdd(it.StartTicks, it.DurationTicks); e > s.duration {
				s.duration = e
			}
		}
		if !sorted {
			sort.SliceStable(list, func(i, j int) bool { return list[i].StartTicks < list[j].StartTicks })
		}
		s.trackItems[ti] = list
	}
	return s
}

// satAdd adds two int64 values, saturating instead of overflowing.
func satAdd(a, b int64) int64 {
	c := a + b
	if (c > a) == (b > 0) {
		return c
	}
	if b > 0 {
		return math.MaxInt64
	}
	return math.MinInt64
}

// formatFloat formats f the shortest way that round-trips.
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
