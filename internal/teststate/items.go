package teststate

// Anim is an animated number member of an item: value v, with keyframes of
// {timeTicks, value} pairs kf.
func Anim(v float64, kf ...[2]float64) map[string]any {
	k := []any{}
	for _, p := range kf {
		k = append(k, map[string]any{"timeTicks": int64(p[0]), "value": p[1]})
	}
	return map[string]any{"value": v, "keyframes": k}
}

// Box is the members every item with geometry has: an item id of type typ from start for
// dur ticks, w x h at left, top, unscaled, unrotated and opaque. Callers add the members of
// its type.
func Box(id, typ string, start, dur int64, left, top, w, h float64) map[string]any {
	return map[string]any{
		"id": id, "type": typ, "startTicks": start, "durationTicks": dur,
		"left": Anim(left), "top": Anim(top), "width": Anim(w), "height": Anim(h),
		"scaleX": Anim(1), "scaleY": Anim(1), "opacity": Anim(1), "isDraggingInTimeline": false,
		"rotation": Anim(0), "keepAspectRatio": false,
	}
}
