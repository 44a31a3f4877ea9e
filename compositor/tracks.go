package compositor

import (
	"context"
	"image"
	"iter"
	"sort"

	"github.com/cutroom/cutroom/editor"
)

// transPlan is one transition resolved against its clips.
type transPlan struct {
	tr         *editor.Transition
	from, to   *editor.Item
	start, end int64 // ticks: the window centred on the cut
}

// trackPlan is what one track draws.
type trackPlan struct {
	hidden bool
	items  []*editor.Item // by start time
	trans  []transPlan
}

// progress is how far the transition is at tick t, eased (0..1 over its window).
func (tp *transPlan) progress(t int64) float64 {
	return tp.tr.Easing.Apply(float64(t-tp.start) / float64(tp.tr.DurationTicks))
}

// activeAt returns the track's transition drawn at tick t (the first whose window holds t),
// or nil.
func (tp *trackPlan) activeAt(t int64) *transPlan {
	for i := range tp.trans {
		if tp.trans[i].start <= t && t < tp.trans[i].end {
			return &tp.trans[i]
		}
	}
	return nil
}

// activeOfTypes yields, in track order, the items of the visible tracks that are of type a
// or b and active at tick t.
func (c *Compositor) activeOfTypes(t int64, a, b editor.ItemType) iter.Seq[*editor.Item] {
	return func(yield func(*editor.Item) bool) {
		for i := range c.tracks {
			if c.tracks[i].hidden {
				continue
			}
			for _, it := range c.tracks[i].items {
				if (it.Type == a || it.Type == b) && it.ActiveAt(t) && !yield(it) {
					return
				}
			}
		}
	}
}

// planTracks resolves the state's tracks: their items by start time, and their transitions
// against the clips they join (one between clips that do not touch is ignored), by start.
func (c *Compositor) planTracks() {
	st := c.st
	c.tracks = make([]trackPlan, len(st.Tracks))
	for i, tr := range st.Tracks {
		c.tracks[i].hidden = tr.Hidden
		c.tracks[i].items = st.ItemsInTrack(i)
	}
	for _, tr := range st.TransitionsSorted() {
		ti := st.TrackByID(tr.TrackID)
		from, to := st.Item(tr.FromClipID), st.Item(tr.ToClipID)
		if ti < 0 || from == nil || to == nil || tr.DurationTicks <= 0 {
			continue
		}
		cut := from.EndTicks()
		if to.StartTicks != cut {
			c.log.Warn("compositor: transition between clips that do not touch is ignored", "transition", tr.ID)
			continue
		}
		start := cut - tr.DurationTicks/2
		c.tracks[ti].trans = append(c.tracks[ti].trans, transPlan{tr: tr, from: from, to: to, start: start, end: start + tr.DurationTicks})
	}
	for i := range c.tracks {
		sort.SliceStable(c.tracks[i].trans, func(a, b int) bool { return c.tracks[i].trans[a].start < c.tracks[i].trans[b].start })
	}
}

// drawTracks draws the tracks back to front. Items are numbered in drawing order as
// collectOccluders numbers them.
func (c *Compositor) drawTracks(ctx context.Context, t int64, dst *image.RGBA, sc *scratch) error {
	seq := 0
	for ti := len(c.tracks) - 1; ti >= 0; ti-- {
		if c.tracks[ti].hidden {
			continue
		}
		if ti >= sc.tracks {
			seq += len(c.tracks[ti].items)
			continue
		}
		if err := c.drawTrack(ctx, &c.tracks[ti], t, dst, sc, &seq); err != nil {
			return err
		}
	}
	return nil
}

func (c *Compositor) drawTrack(ctx context.Context, tp *trackPlan, t int64, dst *image.RGBA, sc *scratch, seq *int) error {
	active := tp.activeAt(t)
	for _, it := range tp.items {
		*seq++
		if active != nil && (it == active.from || it == active.to) {
			if it == active.from {
				if sc.fadeOnly == active.from || sc.fadeOnly == active.to {
					clip := sc.fadeOnly
					if _, err := c.drawItem(ctx, sc, clip, t-clip.StartTicks, dst, &extra{m: identity, opacity: 1}, sc.clip); err != nil {
						return err
					}
					continue
				}
				if err := c.drawTransition(ctx, active, t, dst, sc, *seq); err != nil {
					return err
				}
			}
			continue
		}
		if !it.ActiveAt(t) || sc.skips(it) {
			continue
		}
		switch it.Type {
		case editor.ItemEffect:
			c.applyEffect(it, t, dst, sc)
		case editor.ItemFilter:
			c.applyFilter(it, dst)
		default:
			if _, err := c.drawItem(ctx, sc, it, t-it.StartTicks, dst, nil, sc.clip); err != nil {
				return err
			}
		}
	}
	return nil
}
