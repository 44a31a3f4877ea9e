package editor

import (
	"sort"
	"strconv"

	"github.com/cutroom/cutroom/apierr"
)

// Codes of the semantic rules, one per rule.
const (
	// CodeItemIDMismatch: an item's id differs from its key in items.
	CodeItemIDMismatch = "EDITOR_ITEM_ID_MISMATCH"
	// CodeAssetIDMismatch: an asset's id differs from its key in assets.
	CodeAssetIDMismatch = "EDITOR_ASSET_ID_MISMATCH"
	// CodeTransitionIDMismatch: a transition's id differs from its key in transitions.
	CodeTransitionIDMismatch = "EDITOR_TRANSITION_ID_MISMATCH"
	// CodeTrackIDDuplicate: two tracks have the same id.
	CodeTrackIDDuplicate = "EDITOR_TRACK_ID_DUPLICATE"
	// CodeTrackItemNotFound: a track lists an id that is not a key of items.
	CodeTrackItemNotFound = "EDITOR_TRACK_ITEM_NOT_FOUND"
	// CodeTrackItemDuplicate: an item is listed more than once (in one track or several).
	CodeTrackItemDuplicate = "EDITOR_TRACK_ITEM_DUPLICATE"
	// CodeItemNotInTrack: an item is listed in no track.
	CodeItemNotInTrack = "EDITOR_ITEM_NOT_IN_TRACK"
	// CodeTrackItemsOverlap: two items of one track overlap in time (touching is fine).
	CodeTrackItemsOverlap = "EDITOR_TRACK_ITEMS_OVERLAP"
	// CodeKeyframeOutOfRange: a keyframe's timeTicks is not below the item's durationTicks.
	CodeKeyframeOutOfRange = "EDITOR_KEYFRAME_OUT_OF_RANGE"
	// CodeAnimationTooLong: an in or out animation lasts longer than its item.
	CodeAnimationTooLong = "EDITOR_ANIMATION_TOO_LONG"
	// CodeAssetNotFound: an assetId (or the background's imageAssetId) names no asset.
	CodeAssetNotFound = "EDITOR_ASSET_NOT_FOUND"
	// CodeAssetTypeMismatch: an item refers to an asset of a type it cannot show.
	CodeAssetTypeMismatch = "EDITOR_ASSET_TYPE_MISMATCH"
	// CodeAssetDeleted: an item (or the background) refers to an asset in deletedAssets.
	CodeAssetDeleted = "EDITOR_ASSET_DELETED"
	// CodeCropOutOfRange: a crop fraction is outside 0..1.
	CodeCropOutOfRange = "EDITOR_CROP_OUT_OF_RANGE"
	// CodeCropEmpty: cropLeft+cropRight or cropTop+cropBottom reaches 1 at some time, so
	// nothing of the media would be visible.
	CodeCropEmpty = "EDITOR_CROP_EMPTY"
	// CodeTransitionTrackNotFound: a transition's trackId names no track.
	CodeTransitionTrackNotFound = "EDITOR_TRANSITION_TRACK_NOT_FOUND"
	// CodeTransitionClipNotFound: a transition's fromClipId or toClipId names no item.
	CodeTransitionClipNotFound = "EDITOR_TRANSITION_CLIP_NOT_FOUND"
	// CodeTransitionClipNotInTrack: a transition's clip is not in the transition's track.
	CodeTransitionClipNotInTrack = "EDITOR_TRANSITION_CLIP_NOT_IN_TRACK"
	// CodeTransitionTooLong: a transition lasts longer than one of its clips.
	CodeTransitionTooLong = "EDITOR_TRANSITION_TOO_LONG"
	// CodeTransitionDuplicate: two transitions join the same pair of clips.
	CodeTransitionDuplicate = "EDITOR_TRANSITION_DUPLICATE"
	// CodeCaptionEntryRange: a caption entry ends before it starts.
	CodeCaptionEntryRange = "EDITOR_CAPTION_ENTRY_RANGE"
	// CodeChartSeriesDuplicate: two series of a chart have the same key.
	CodeChartSeriesDuplicate = "EDITOR_CHART_SERIES_DUPLICATE"
	// CodeChartSeriesUnknown: a row value or scatter point names an undeclared series key.
	CodeChartSeriesUnknown = "EDITOR_CHART_SERIES_UNKNOWN"
	// CodeChartPieEmpty: every slice of a pie chart is 0, so there is nothing to draw.
	CodeChartPieEmpty = "EDITOR_CHART_PIE_EMPTY"
	// CodeChartAnimationTooLong: a chart's animationDurationTicks exceeds its durationTicks.
	CodeChartAnimationTooLong = "EDITOR_CHART_ANIMATION_TOO_LONG"
	// CodeTemplateNodeIDDuplicate: two nodes of a text template have the same id.
	CodeTemplateNodeIDDuplicate = "EDITOR_TEMPLATE_NODE_ID_DUPLICATE"
)

// semanticCodes are the codes of the semantic rules as API codes (see APICode).
var semanticCodes = []apierr.Code{
	apierr.Define(apierr.Unprocessable, "EDITOR_ITEM_ID_MISMATCH"),
	apierr.Define(apierr.Unprocessable, "EDITOR_ASSET_ID_MISMATCH"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_ID_MISMATCH"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TRACK_ID_DUPLICATE"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TRACK_ITEM_NOT_FOUND"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TRACK_ITEM_DUPLICATE"),
	apierr.Define(apierr.Unprocessable, "EDITOR_ITEM_NOT_IN_TRACK"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TRACK_ITEMS_OVERLAP"),
	apierr.Define(apierr.Unprocessable, "EDITOR_KEYFRAME_OUT_OF_RANGE"),
	apierr.Define(apierr.Unprocessable, "EDITOR_ANIMATION_TOO_LONG"),
	apierr.Define(apierr.Unprocessable, "EDITOR_ASSET_NOT_FOUND"),
	apierr.Define(apierr.Unprocessable, "EDITOR_ASSET_TYPE_MISMATCH"),
	apierr.Define(apierr.Unprocessable, "EDITOR_ASSET_DELETED"),
	apierr.Define(apierr.Unprocessable, "EDITOR_CROP_OUT_OF_RANGE"),
	apierr.Define(apierr.Unprocessable, "EDITOR_CROP_EMPTY"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_TRACK_NOT_FOUND"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_CLIP_NOT_FOUND"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_CLIP_NOT_IN_TRACK"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_TOO_LONG"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_DUPLICATE"),
	apierr.Define(apierr.Unprocessable, "EDITOR_CAPTION_ENTRY_RANGE"),
	apierr.Define(apierr.Unprocessable, "EDITOR_CHART_SERIES_DUPLICATE"),
	apierr.Define(apierr.Unprocessable, "EDITOR_CHART_SERIES_UNKNOWN"),
	apierr.Define(apierr.Unprocessable, "EDITOR_CHART_PIE_EMPTY"),
	apierr.Define(apierr.Unprocessable, "EDITOR_CHART_ANIMATION_TOO_LONG"),
	apierr.Define(apierr.Unprocessable, "EDITOR_TEMPLATE_NODE_ID_DUPLICATE"),
}

// SemanticCodes returns the code of every semantic rule, sorted.
func SemanticCodes() []string {
	c := []string{
		CodeItemIDMismatch, CodeAssetIDMismatch, CodeTransitionIDMismatch, CodeTrackIDDuplicate,
		CodeTrackItemNotFound, CodeTrackItemDuplicate, CodeItemNotInTrack, CodeTrackItemsOverlap,
		CodeKeyframeOutOfRange, CodeAnimationTooLong, CodeAssetNotFound, CodeAssetTypeMismatch,
		CodeAssetDeleted, CodeCropOutOfRange, CodeCropEmpty, CodeTransitionTrackNotFound,
		CodeTransitionClipNotFound, CodeTransitionClipNotInTrack, CodeTransitionClipNotAdjacent,
		CodeTransitionTooLong, CodeTransitionDuplicate, CodeCaptionEntryRange,
		CodeChartSeriesDuplicate, CodeChartSeriesUnknown, CodeChartPieEmpty,
		CodeChartAnimationTooLong, CodeTemplateNodeIDDuplicate, CodeValueOutOfRange,
	}
	sort.Strings(c)
	return c
}

// SemanticIssues checks the semantic rules on a parsed state (not the schema). Use it for a
// State built by Parse; Validator.Validate already includes these issues.
func SemanticIssues(s *State) []Issue {
	if s == nil {
		return nil
	}
	is := semanticIssues(s)
	sortIssues(&is)
	return is
}

type semChecker struct {
	s       *State
	out     []Issue
	deleted map[string]bool
	listed  map[string]listInfo // item id -> the tracks listing it
	trackID map[string]int      // track id -> index of the first track with it
}

func (c *semChecker) add(code, path, msg string) {
	c.out = append(c.out, Issue{Code: code, Path: path, Message: msg})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func itoa(i int) string { return strconv.Itoa(i) }

func ticks(t int64) string { return strconv.FormatInt(t, 10) }

func semanticIssues(s *State) []Issue {
	c := &semChecker{s: s, deleted: map[string]bool{}, listed: make(map[string]listInfo, len(s.Items))}
	for _, d := range s.DeletedAssets {
		if d.AssetID != "" {
			c.deleted[d.AssetID] = true
		}
	}
	c.ids()
	c.ranges()
	c.tracks()
	// The rules of one item or asset do not depend on the others, and callers sort the
	// issues, so the maps are walked in any order.
	for k, it := range s.Items {
		if !it.broken {
			c.item(k, it)
		}
	}
	for k, a := range s.Assets {
		if !a.broken {
			c.asset(k, a)
		}
	}
	c.transitions()
	c.background()
	return c.out
}

func (c *semChecker) ids() {
	s := c.s
	for k, it := range s.Items {
		if !it.broken && it.ID != k {
			c.add(CodeItemIDMismatch, pointer("items", k, "id"), "item id "+strconv.Quote(it.ID)+" differs from its key "+strconv.Quote(k))
		}
	}
	for k, a := range s.Assets {
		if !a.broken && a.ID != k {
			c.add(CodeAssetIDMismatch, pointer("assets", k, "id"), "asset id "+strconv.Quote(a.ID)+" differs from its key "+strconv.Quote(k))
		}
	}
	for k, t := range s.Transitions {
		if t.ID != k {
			c.add(CodeTransitionIDMismatch, pointer("transitions", k, "id"), "transition id "+strconv.Quote(t.ID)+" differs from its key "+strconv.Quote(k))
		}
	}
}

type listing struct{ track, index int }

// listInfo tells which tracks list an id.
type listInfo struct {
	track int     // the first track listing it
	more  []int   // the other tracks listing it, in order
	first listing // where it is first listed, when found
	found bool    // it is in items
}

// inTrack reports whether track ti lists the id.
func (c *semChecker) inTrack(id string, ti int) bool {
	l, ok := c.listed[id]
	return ok && (l.track == ti || has(l.more, ti))
}

func (c *semChecker) tracks() {
	s := c.s
	trackIDs := map[string]int{}
	c.trackID = trackIDs
	for ti, tr := range s.Tracks {
		if first, ok := trackIDs[tr.ID]; ok {
			c.add(CodeTrackIDDuplicate, pointer("tracks", itoa(ti), "id"), "track id "+strconv.Quote(tr.ID)+" is also used by track "+itoa(first))
		} else {
			trackIDs[tr.ID] = ti
		}
		type entry struct {
			it  *Item
			idx int
		}
		var entries []entry
		for j, id := range tr.ItemIDs {
			l, seen := c.listed[id]
			switch {
			case !seen:
				l.track = ti
			case ti != l.track && (len(l.more) == 0 || l.more[len(l.more)-1] != ti):
				l.more = append(l.more, ti)
			}
			it := s.Items[id]
			if it == nil {
				c.listed[id] = l
				c.add(CodeTrackItemNotFound, pointer("tracks", itoa(ti), "items", itoa(j)), "track lists "+strconv.Quote(id)+", which is not in items")
				continue
			}
			if l.found {
				c.listed[id] = l
				c.add(CodeTrackItemDuplicate, pointer("tracks", itoa(ti), "items", itoa(j)), "item "+strconv.Quote(id)+" is already listed at "+pointer("tracks", itoa(l.first.track), "items", itoa(l.first.index)))
				continue
			}
			l.first, l.found = listing{ti, j}, true
			c.listed[id] = l
			if !it.broken {
				entries = append(entries, entry{it, j})
			}
		}
		sort.SliceStable(entries, func(a, b int) bool { return entries[a].it.StartTicks < entries[b].it.StartTicks })
		var last *Item
		var lastEnd int64
		for _, e := range entries {
			if last != nil && e.it.StartTicks < lastEnd {
				c.add(CodeTrackItemsOverlap, pointer("tracks", itoa(ti), "items", itoa(e.idx)),
					"item "+strconv.Quote(e.it.ID)+" ("+ticks(e.it.StartTicks)+".."+ticks(e.it.EndTicks())+") overlaps item "+
						strconv.Quote(last.ID)+" ("+ticks(last.StartTicks)+".."+ticks(lastEnd)+") in track "+strconv.Quote(tr.ID))
			}
			if end := e.it.EndTicks(); last == nil || end > lastEnd {
				last, lastEnd = e.it, end
			}
		}
	}
	for k := range s.Items {
		if !c.listed[k].found {
			c.add(CodeItemNotInTrack, pointer("items", k), "item "+strconv.Quote(k)+" is not listed in any track")
		}
	}
}

// animatedMember is one animatable member of an item with its JSON name.
type animatedMember struct {
	name string
	a    *AnimatedNumber
}

// appendAnimatedMembers appends the item's animatable members with their JSON names.
func appendAnimatedMembers(out []animatedMember, it *Item) []animatedMember {
	out = append(out,
		animatedMember{"top", &it.Top}, animatedMember{"left", &it.Left},
		animatedMember{"width", &it.Width}, animatedMember{"height", &it.Height},
		animatedMember{"scaleX", &it.ScaleX}, animatedMember{"scaleY", &it.ScaleY},
		animatedMember{"opacity", &it.Opacity}, animatedMember{"rotation", &it.Rotation},
		animatedMember{"borderRadius", &it.BorderRadius},
		animatedMember{"cropLeft", &it.CropLeft}, animatedMember{"cropTop", &it.CropTop},
		animatedMember{"cropRight", &it.CropRight}, animatedMember{"cropBottom", &it.CropBottom},
	)
	if it.Media != nil && it.Media.HasDecibelAdjustment {
		out = append(out, animatedMember{"decibelAdjustment", &it.Media.DecibelAdjustment})
	}
	return out
}

// docIdx returns the document index of sorted keyframe i.
func (a *AnimatedNumber) docIdx(i int) int {
	if a.docIndex != nil && i < len(*a.docIndex) {
		return (*a.docIndex)[i]
	}
	return i
}

func (c *semChecker) item(k string, it *Item) {
	var buf [14]animatedMember
	for _, m := range appendAnimatedMembers(buf[:0], it) {
		for i, kf := range m.a.Keyframes {
			if kf.TimeTicks >= it.DurationTicks {
				c.add(CodeKeyframeOutOfRange, pointer("items", k, m.name, "keyframes", itoa(m.a.docIdx(i)), "timeTicks"),
					"keyframe at "+ticks(kf.TimeTicks)+" ticks is not inside the item (durationTicks "+ticks(it.DurationTicks)+")")
			}
		}
	}
	c.animations(it.DurationTicks, it.Animations.In, it.Animations.Out, "items", k, "animations")
	c.animations(it.DurationTicks, it.CaptionAnimations.In, it.CaptionAnimations.Out, "items", k, "captionAnimations")
	if it.HasCrop {
		c.crop(k, it)
	}
	c.assetRef(k, it)
	if ch := it.Chart; ch != nil {
		c.chart(k, it, ch)
	}
	if tp := it.Template; tp != nil {
		seen := map[string]int{}
		for i, n := range tp.Nodes {
			if n.ID == "" {
				continue
			}
			if first, ok := seen[n.ID]; ok {
				c.add(CodeTemplateNodeIDDuplicate, pointer("items", k, "nodes", itoa(i), "id"), "node id "+strconv.Quote(n.ID)+" is also used by node "+itoa(first))
			} else {
				seen[n.ID] = i
			}
			c.animations(it.DurationTicks, n.Animations.In, n.Animations.Out, "items", k, "nodes", itoa(i), "animations")
		}
	}
}

func (c *semChecker) animations(dur int64, in, out *AnimationSpec, base ...string) {
	for _, a := range []struct {
		name string
		spec *AnimationSpec
	}{{"in", in}, {"out", out}} {
		if a.spec != nil && a.spec.DurationTicks > dur {
			p := pointer(append(append([]string{}, base...), a.name, "durationTicks")...)
			c.add(CodeAnimationTooLong, p, a.name+" animation lasts "+ticks(a.spec.DurationTicks)+" ticks, longer than the item ("+ticks(dur)+")")
		}
	}
}

func (c *semChecker) crop(k string, it *Item) {
	members := []struct {
		name string
		a    *AnimatedNumber
	}{{"cropLeft", &it.CropLeft}, {"cropTop", &it.CropTop}, {"cropRight", &it.CropRight}, {"cropBottom", &it.CropBottom}}
	inRange := true
	for _, m := range members {
		if len(m.a.Keyframes) == 0 {
			if v := m.a.Value; !(v >= 0 && v <= 1) {
				inRange = false
				c.add(CodeCropOutOfRange, pointer("items", k, m.name, "value"), m.name+" "+formatFloat(v)+" is outside 0..1")
			}
			continue
		}
		for i, kf := range m.a.Keyframes {
			if v := kf.Value; !(v >= 0 && v <= 1) {
				inRange = false
				c.add(CodeCropOutOfRange, pointer("items", k, m.name, "keyframes", itoa(m.a.docIdx(i)), "value"), m.name+" "+formatFloat(v)+" is outside 0..1")
			}
		}
	}
	if !inRange {
		return
	}
	pairs := []struct {
		a, b       *AnimatedNumber
		name, axis string
	}{{&it.CropLeft, &it.CropRight, "cropRight", "horizontal"}, {&it.CropTop, &it.CropBottom, "cropBottom", "vertical"}}
	for _, p := range pairs {
		// Both are piecewise linear with breakpoints at their keyframes, so their sum is
		// largest at one of those times.
		times := []int64{0}
		for _, kf := range p.a.Keyframes {
			times = append(times, kf.TimeTicks)
		}
		for _, kf := range p.b.Keyframes {
			times = append(times, kf.TimeTicks)
		}
		for _, t := range times {
			if sum := p.a.At(t) + p.b.At(t); sum >= 1 {
				c.add(CodeCropEmpty, pointer("items", k, p.name), p.axis+" crop fractions add up to "+formatFloat(sum)+" at "+ticks(t)+" ticks, leaving nothing visible")
				break
			}
		}
	}
}

// assetTypesFor returns the asset types an item type can show, or nil when it has none.
func assetTypesFor(t ItemType) []AssetType {
	switch t {
	case ItemImage:
		return []AssetType{AssetImage}
	case ItemVideo:
		return []AssetType{AssetVideo}
	case ItemGif:
		return []AssetType{AssetGif}
	case ItemLottie:
		return []AssetType{AssetLottie}
	case ItemAudio:
		return []AssetType{AssetAudio, AssetVideo}
	case ItemCaptions:
		return []AssetType{AssetCaption}
	}
	return nil
}

func (c *semChecker) assetRef(k string, it *Item) {
	want := assetTypesFor(it.Type)
	if want == nil {
		return
	}
	p := func() string { return pointer("items", k, "assetId") }
	if c.deleted[it.AssetID] {
		c.add(CodeAssetDeleted, p(), "asset "+strconv.Quote(it.AssetID)+" was deleted (it is in deletedAssets)")
		return
	}
	a := c.s.Assets[it.AssetID]
	if a == nil {
		c.add(CodeAssetNotFound, p(), "asset "+strconv.Quote(it.AssetID)+" is not in assets")
		return
	}
	if a.broken {
		return
	}
	for _, w := range want {
		if a.Type == w {
			return
		}
	}
	c.add(CodeAssetTypeMismatch, p(), string(it.Type)+" item cannot show "+strconv.Quote(string(a.Type))+" asset "+strconv.Quote(it.AssetID))
}

func (c *semChecker) chart(k string, it *Item, ch *ChartProps) {
	if ch.AnimationDurationTicks > it.DurationTicks {
		c.add(CodeChartAnimationTooLong, pointer("items", k, "animationDurationTicks"),
			"chart animation lasts "+ticks(ch.AnimationDurationTicks)+" ticks, longer than the item ("+ticks(it.DurationTicks)+")")
	}
	keys := map[string]bool{}
	for i, s := range ch.Series {
		if keys[s.Key] {
			c.add(CodeChartSeriesDuplicate, pointer("items", k, "data", "series", itoa(i), "key"), "series key "+strconv.Quote(s.Key)+" is declared twice")
		}
		keys[s.Key] = true
	}
	switch ch.ChartType {
	case ChartLine, ChartBar, ChartArea, ChartRadar:
		for i, r := range ch.Rows {
			for _, key := range sortedKeys(r.Values) {
				if !keys[key] {
					c.add(CodeChartSeriesUnknown, pointer("items", k, "data", "rows", itoa(i), "values", key), "value for undeclared series "+strconv.Quote(key))
				}
			}
		}
	case ChartScatter:
		for i, p := range ch.Points {
			if !keys[p.SeriesKey] {
				c.add(CodeChartSeriesUnknown, pointer("items", k, "data", "points", itoa(i), "seriesKey"), "point of undeclared series "+strconv.Quote(p.SeriesKey))
			}
		}
	case ChartPie:
		if len(ch.Slices) > 0 {
			var sum float64
			for _, s := range ch.Slices {
				sum += s.Value
			}
			if !(sum > 0) {
				c.add(CodeChartPieEmpty, pointer("items", k, "data", "slices"), "every pie slice is 0")
			}
		}
	}
}

func (c *semChecker) asset(k string, a *Asset) {
	for i, e := range a.Captions {
		if e.EndMs < e.StartMs {
			c.add(CodeCaptionEntryRange, pointer("assets", k, "captions", itoa(i), "endMs"),
				"caption ends at "+formatFloat(e.EndMs)+" ms, before it starts ("+formatFloat(e.StartMs)+" ms)")
		}
	}
}

func (c *semChecker) transitions() {
	s := c.s
	pairs := map[[2]string]string{}
	keys := s.transitionsOrder // sorted by build
	if len(keys) != len(s.Transitions) {
		keys = sortedKeys(s.Transitions) // a State not made by build
	}
	for _, k := range keys {
		t := s.Transitions[k]
		ti, found := c.trackID[t.TrackID]
		if !found {
			c.add(CodeTransitionTrackNotFound, pointer("transitions", k, "trackId"), "track "+strconv.Quote(t.TrackID)+" does not exist")
			continue
		}
		from, to := s.Items[t.FromClipID], s.Items[t.ToClipID]
		ok := true
		for _, e := range []struct {
			it     *Item
			id, nm string
		}{{from, t.FromClipID, "fromClipId"}, {to, t.ToClipID, "toClipId"}} {
			switch {
			case e.it == nil:
				c.add(CodeTransitionClipNotFound, pointer("transitions", k, e.nm), "clip "+strconv.Quote(e.id)+" is not in items")
				ok = false
			case !c.inTrack(e.id, ti):
				c.add(CodeTransitionClipNotInTrack, pointer("transitions", k, e.nm), "clip "+strconv.Quote(e.id)+" is not in track "+strconv.Quote(t.TrackID))
				ok = false
			case e.it.broken:
				ok = false
			}
		}
		if !ok {
			continue
		}
		if key := [2]string{t.FromClipID, t.ToClipID}; pairs[key] != "" {
			c.add(CodeTransitionDuplicate, pointer("transitions", k), "transition "+strconv.Quote(pairs[key])+" already joins these clips")
		} else {
			pairs[key] = k
		}
		if !adjacent(from, to) {
			c.add(CodeTransitionClipNotAdjacent, pointer("transitions", k, "toClipId"),
				"clip "+strconv.Quote(t.ToClipID)+" ("+ticks(to.StartTicks)+".."+ticks(to.EndTicks())+") does not directly follow clip "+
					strconv.Quote(t.FromClipID)+" ("+ticks(from.StartTicks)+".."+ticks(from.EndTicks())+") in track "+strconv.Quote(t.TrackID))
			continue
		}
		if t.DurationTicks > from.DurationTicks || t.DurationTicks > to.DurationTicks {
			c.add(CodeTransitionTooLong, pointer("transitions", k, "durationTicks"),
				"transition lasts "+ticks(t.DurationTicks)+" ticks, longer than one of its clips ("+ticks(from.DurationTicks)+", "+ticks(to.DurationTicks)+")")
		}
	}
}

// adjacent reports whether to starts exactly where from ends. With no overlap in the track
// (a separate rule), no other item can lie between them.
func adjacent(from, to *Item) bool {
	return from != to && from.EndTicks() == to.StartTicks
}

func (c *semChecker) background() {
	b := c.s.GlobalBackground
	if b.Type != BackgroundImage || b.ImageAssetID == "" {
		return
	}
	p := pointer("globalBackground", "imageAssetId")
	if c.deleted[b.ImageAssetID] {
		c.add(CodeAssetDeleted, p, "asset "+strconv.Quote(b.ImageAssetID)+" was deleted (it is in deletedAssets)")
		return
	}
	a := c.s.Assets[b.ImageAssetID]
	switch {
	case a == nil:
		c.add(CodeAssetNotFound, p, "asset "+strconv.Quote(b.ImageAssetID)+" is not in assets")
	case !a.broken && a.Type != AssetImage:
		c.add(CodeAssetTypeMismatch, p, "background image cannot be "+strconv.Quote(string(a.Type))+" asset "+strconv.Quote(b.ImageAssetID))
	}
}

// tickRange reports a tick value (or another integer the server computes with) above
// MaxTicks.
func (c *semChecker) tickRange(v int64, what string, tokens ...string) {
	if v > MaxTicks || v < -MaxTicks {
		c.add(CodeValueOutOfRange, pointer(tokens...), what+" "+ticks(v)+" is past the largest value allowed ("+ticks(MaxTicks)+")")
	}
}

// animationRange checks the durations of an in, out or loop animation.
func (c *semChecker) animationRange(specs []*AnimationSpec, names []string, base ...string) {
	for i, a := range specs {
		if a != nil {
			c.tickRange(a.DurationTicks, names[i]+" animation durationTicks", append(append([]string{}, base...), names[i], "durationTicks")...)
		}
	}
}

// ranges checks that every tick value and integer the server computes with is within the
// limits (MaxTicks, MaxTimebase), so that frame, tick and sample arithmetic cannot overflow.
// Values above them read as math.MaxInt64 (see toTicks), which is past every limit.
func (c *semChecker) ranges() {
	s := c.s
	if tb := s.TimebaseTicksPerSecond; tb > MaxTimebase {
		c.add(CodeValueOutOfRange, pointer("timebaseTicksPerSecond"), "timebaseTicksPerSecond "+ticks(tb)+" is past the largest value allowed ("+ticks(MaxTimebase)+")")
	}
	inOut := []string{"in", "out"}
	inOutLoop := []string{"in", "out", "loop"}
	var buf [14]animatedMember
	for k, it := range s.Items {
		if it.broken {
			continue
		}
		switch {
		case it.StartTicks > MaxTicks:
			c.tickRange(it.StartTicks, "startTicks", "items", k, "startTicks")
		case it.DurationTicks > MaxTicks:
			c.tickRange(it.DurationTicks, "durationTicks", "items", k, "durationTicks")
		case it.EndTicks() > MaxTicks:
			c.add(CodeValueOutOfRange, pointer("items", k, "durationTicks"), "the item ends at "+ticks(it.EndTicks())+" ticks (startTicks "+
				ticks(it.StartTicks)+" + durationTicks "+ticks(it.DurationTicks)+"), past the largest value allowed ("+ticks(MaxTicks)+")")
		}
		for _, m := range appendAnimatedMembers(buf[:0], it) {
			for i, kf := range m.a.Keyframes {
				c.tickRange(kf.TimeTicks, "keyframe timeTicks", "items", k, m.name, "keyframes", itoa(m.a.docIdx(i)), "timeTicks")
			}
		}
		c.animationRange([]*AnimationSpec{it.Animations.In, it.Animations.Out}, inOut, "items", k, "animations")
		ca := it.CaptionAnimations
		c.animationRange([]*AnimationSpec{ca.In, ca.Out, ca.Loop}, inOutLoop, "items", k, "captionAnimations")
		if ch := it.Chart; ch != nil {
			c.tickRange(ch.AnimationDurationTicks, "animationDurationTicks", "items", k, "animationDurationTicks")
		}
		if im := it.Image; im != nil {
			c.tickRange(im.StickerVersion, "stickerVersion", "items", k, "stickerVersion")
		}
		if tp := it.Template; tp != nil {
			for i, n := range tp.Nodes {
				c.animationRange([]*AnimationSpec{n.Animations.In, n.Animations.Out}, inOut, "items", k, "nodes", itoa(i), "animations")
				na := n.CaptionAnimations
				c.animationRange([]*AnimationSpec{na.In, na.Out, na.Loop}, inOutLoop, "items", k, "nodes", itoa(i), "captionAnimations")
			}
		}
	}
	for k, t := range s.Transitions {
		c.tickRange(t.DurationTicks, "durationTicks", "transitions", k, "durationTicks")
	}
	if b := s.BrandRuntime; b != nil {
		c.tickRange(b.IntroShiftInFrames, "introShiftInFrames", "brandRuntime", "introShiftInFrames")
	}
}
