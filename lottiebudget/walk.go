package lottiebudget

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// member reads an object member: its key and the first token of its value.
func (s *Scan) member() (string, json.Token, error) {
	kt, err := s.token()
	if err != nil {
		return "", nil, err
	}
	k, _ := kt.(string)
	vt, err := s.token()
	return k, vt, err
}

// end reads the closing delimiter of the object or array being walked.
func (s *Scan) end() error {
	_, err := s.token()
	return err
}

func nested(depth int) error {
	if depth > maxNesting {
		return malformed("the JSON file nests deeper than %d levels", maxNesting)
	}
	return nil
}

// members walks an object whose '{' was read: each is handed every member's key and the
// first token of its value, which it walks; the closing '}' is read last.
func (s *Scan) members(depth int, each func(k string, vt json.Token) error) error {
	if err := nested(depth); err != nil {
		return err
	}
	for s.dec.More() {
		k, vt, err := s.member()
		if err != nil {
			return err
		}
		if err := each(k, vt); err != nil {
			return err
		}
	}
	return s.end()
}

// elements walks an array whose '[' was read as members walks an object.
func (s *Scan) elements(depth int, each func(el json.Token) error) error {
	if err := nested(depth); err != nil {
		return err
	}
	for s.dec.More() {
		el, err := s.token()
		if err != nil {
			return err
		}
		if err := each(el); err != nil {
			return err
		}
	}
	return s.end()
}

// skip walks the value starting with t that no rule reads (key is the member it is the
// value of), counting keyframes (objects in a "k" array) and path points (arrays in a "v"
// array), and bounding path coordinates (the numbers of arrays in "v", "i" and "o" arrays).
func (s *Scan) skip(t json.Token, key string, depth int) error {
	d, ok := t.(json.Delim)
	if !ok {
		return nil
	}
	if d == '{' {
		return s.members(depth, func(k string, vt json.Token) error { return s.skip(vt, k, depth+1) })
	}
	path := key == "v" || key == "i" || key == "o"
	return s.elements(depth, func(el json.Token) error {
		switch {
		case key == "k" && el == json.Delim('{'):
			if err := s.keyframe(); err != nil {
				return err
			}
		case path && el == json.Delim('['):
			if key == "v" {
				s.points++
				if s.points > s.lim.MaxPoints {
					return tooComplex("points", s.lim.MaxPoints, "more than %d path points", s.lim.MaxPoints)
				}
			}
			var r rng
			err := s.values(&r, el, key, depth+1)
			s.check(pathPoint, r)
			return err
		}
		return s.skip(el, "", depth+1)
	})
}

// layersArray walks a composition's layers (its '[' already read); where names the
// composition in errors ("" for the top level).
func (s *Scan) layersArray(c *comp, where string, depth int) error {
	i := 0
	return s.elements(depth, func(el json.Token) error {
		i++
		s.layers++
		c.layers++
		if s.layers > s.lim.MaxLayers {
			return tooComplex("layers", s.lim.MaxLayers, "more than %d layers", s.lim.MaxLayers)
		}
		if el == json.Delim('{') {
			return s.layer(c, where, i, depth+1)
		}
		return s.skip(el, "", depth+1)
	})
}

// layer walks the index'th layer of c (its '{' already read).
func (s *Scan) layer(c *comp, where string, index, depth int) error {
	var name, refID string
	hasRef := false
	ty := -1.0
	err := s.members(depth, func(k string, vt json.Token) (err error) {
		switch p, bounded := layerParams[k]; {
		case k == "ty":
			if n, ok := vt.(json.Number); ok {
				ty = number(n)
			}
		case k == "nm":
			name, _ = vt.(string)
		case k == "refId":
			refID, hasRef = assetID(vt), true
		case k == "shapes" && vt == json.Delim('['):
			var n int64
			n, err = s.shapesArray(depth + 1)
			c.shapes = s.addShapes(c.shapes, n)
		case k == "masksProperties" && vt == json.Delim('['):
			var n int64
			n, err = s.items(depth + 1)
			c.shapes = s.addShapes(c.shapes, n)
		case k == "ks" && vt == json.Delim('{'):
			var t map[string]rng
			t, err = s.params(depth+1, "", func(k string) bool { return k == "s" })
			s.check(layerScale, t["s"])
		case bounded:
			var r rng
			r, err = s.property(vt, k, depth+1)
			s.check(p, r)
		default:
			err = s.skip(vt, k, depth+1)
		}
		return err
	})
	if err != nil {
		return err
	}
	if ty == 5 {
		s.TextLayers++
	}
	if ty == 0 && hasRef {
		c.refs = append(c.refs, refID)
	}
	if s.fault != nil {
		loc := fmt.Sprintf("layer %d", index)
		if name != "" {
			loc += fmt.Sprintf(" (%q)", name)
		}
		if where != "" {
			loc = where + ", " + loc
		}
		return s.fault.err(loc)
	}
	return nil
}

// items walks an array, skipping its elements, and returns how many there are.
func (s *Scan) items(depth int) (int64, error) {
	var n int64
	err := s.elements(depth, func(el json.Token) error {
		n++
		return s.skip(el, "", depth+1)
	})
	return n, err
}

// addShapes and copied count shapes, saturating past the budget.
func (s *Scan) addShapes(a, b int64) int64 { return min(a+b, s.lim.MaxShapes+1) }

// copied is what the n shapes before a repeater of copies copies become: each copy is a
// group of them.
func (s *Scan) copied(n int64, copies float64) int64 {
	v := (float64(n) + 1) * copies
	if v > float64(s.lim.MaxShapes) {
		return s.lim.MaxShapes + 1
	}
	return int64(v)
}

// shapesArray walks a layer's shapes or a group's items (its '[' already read) and returns
// how many shape items rlottie builds of them: a repeater repeats everything before it in
// its array (earlier repeaters included), so the count so far is multiplied by its copies.
func (s *Scan) shapesArray(depth int) (int64, error) {
	var n int64
	err := s.elements(depth, func(el json.Token) error {
		if el != json.Delim('{') {
			return s.skip(el, "", depth+1)
		}
		sh, err := s.shape(depth + 1)
		if sh.repeater {
			n = s.copied(n, sh.copies)
		}
		n = s.addShapes(n, sh.count)
		if n > s.lim.MaxShapes {
			s.overBudget("shapes", s.lim.MaxShapes, "its shapes, with their repeaters' copies, are more than %d", s.lim.MaxShapes)
		}
		return err
	})
	return n, err
}

// shapeFacts are what a shape item adds to its array's count.
type shapeFacts struct {
	count    int64 // itself and its items
	repeater bool
	copies   float64
}

// shape walks one shape item (its '{' already read). Its type ("ty") may come after its
// parameters, so the parameters are gathered and checked at its end.
func (s *Scan) shape(depth int) (shapeFacts, error) {
	before := s.fault
	var ty, name string
	vals := map[string]rng{}
	var dash []rng
	f := shapeFacts{count: 1}
	err := s.members(depth, func(k string, vt json.Token) (err error) {
		switch {
		case k == "ty":
			ty, _ = vt.(string)
		case k == "nm":
			name, _ = vt.(string)
		case k == "it" && vt == json.Delim('['):
			var n int64
			n, err = s.shapesArray(depth + 1)
			f.count = s.addShapes(f.count, n)
		case k == "d" && vt == json.Delim('['):
			var d []rng
			d, err = s.dash(depth + 1)
			dash = append(dash, d...)
		case (k == "g" || k == "tr") && vt == json.Delim('{'):
			var sub map[string]rng
			sub, err = s.params(depth+1, k+".", func(sk string) bool { return shapeParamK[k+"."+sk] })
			for sk, r := range sub {
				merge(vals, sk, r)
			}
		case shapeParamK[k]:
			var r rng
			r, err = s.property(vt, k, depth+1)
			merge(vals, k, r)
		default:
			err = s.skip(vt, k, depth+1)
		}
		return err
	})
	if err != nil {
		return f, err
	}
	for _, p := range shapeParams[ty] {
		s.check(p.p, vals[p.key])
	}
	s.checkDash(dash)
	if ty == "rp" {
		f.repeater = true
		f.copies = 1 // rlottie makes none without "c"; counting one is on the safe side
		if c, ok := vals["c"]; ok && c.n > 0 {
			f.copies = max(math.Ceil(c.hi), 0)
		}
		s.checkGrowth(vals["tr.s"], vals["o"], f.copies)
	}
	if before == nil && s.fault != nil && s.fault.shape == "" {
		s.fault.shape = name
	}
	return f, nil
}

// merge adds r to vals[k] (a member written twice is read twice by rlottie).
func merge(vals map[string]rng, k string, r rng) {
	v := vals[k]
	v.merge(r)
	vals[k] = v
}

// params walks an object (its '{' already read) whose members want names are parameters
// and returns what they can be, keyed prefix+name; the rest is skipped.
func (s *Scan) params(depth int, prefix string, want func(string) bool) (map[string]rng, error) {
	vals := map[string]rng{}
	err := s.members(depth, func(k string, vt json.Token) error {
		if !want(k) {
			return s.skip(vt, k, depth+1)
		}
		r, err := s.property(vt, k, depth+1)
		merge(vals, prefix+k, r)
		return err
	})
	return vals, err
}

// dash walks a stroke's dash array (its '[' already read): rlottie takes the value ("v")
// of every entry, in order, whatever its name ("n").
func (s *Scan) dash(depth int) ([]rng, error) {
	var d []rng
	err := s.elements(depth, func(el json.Token) error {
		if el != json.Delim('{') {
			return s.skip(el, "", depth+1)
		}
		return s.members(depth+1, func(k string, vt json.Token) error {
			if k != "v" {
				return s.skip(vt, k, depth+2)
			}
			r, err := s.property(vt, k, depth+2)
			d = append(d, r)
			return err
		})
	})
	return d, err
}

// assetsArray walks the assets (its '[' already read).
func (s *Scan) assetsArray(depth int) error {
	return s.elements(depth, func(el json.Token) error {
		s.nAssets++
		if el == json.Delim('{') {
			return s.asset(depth + 1)
		}
		return s.skip(el, "", depth+1)
	})
}

// asset walks one asset (its '{' already read). rlottie takes an asset for an image when
// its last "p" or "layers" member is "p", and for a precomp otherwise; which comes last
// is no guard, so an asset with a "p" meets the image rules and one with layers is
// counted as a precomp, whatever else it has.
func (s *Scan) asset(depth int) error {
	where := fmt.Sprintf("asset %d", s.nAssets)
	var id string
	var own *comp
	var img imageAsset
	var size rng
	err := s.members(depth, func(k string, vt json.Token) (err error) {
		switch {
		case k == "id":
			id = assetID(vt)
			where = fmt.Sprintf("precomp %q", id)
		case k == "p":
			img.p = append(img.p, vt)
			err = s.skip(vt, k, depth+1)
		case k == "u":
			img.u = append(img.u, vt)
			err = s.skip(vt, k, depth+1)
		case k == "layers" && vt == json.Delim('['):
			if own == nil {
				own = &comp{}
			}
			err = s.layersArray(own, where, depth+1)
		case k == "w" || k == "h":
			var r rng
			r, err = s.property(vt, k, depth+1)
			size.merge(r)
		default:
			err = s.skip(vt, k, depth+1)
		}
		return err
	})
	if err != nil {
		return err
	}
	s.check(assetSize, size)
	if len(img.p) > 0 || len(img.u) > 0 {
		where = fmt.Sprintf("image asset %q", id)
		if err := s.image(img, where); err != nil {
			return err
		}
	}
	if s.fault != nil {
		return s.fault.err(where)
	}
	if own != nil {
		if old := s.assets[id]; old != nil { // a duplicate id: keep the larger
			own.layers = max(own.layers, old.layers)
			own.shapes = max(own.shapes, old.shapes)
			own.refs = append(own.refs, old.refs...)
		}
		s.assets[id] = own
	}
	return nil
}

// assetID is the key rlottie files an asset's id or a layer's refId under: a string as it
// is, an integer as its decimal digits (rlottie reads a numeric id with GetInt and
// to_string, so "id": 1 is the asset "refId": "1" names). Other numbers are kept as
// written (rlottie refuses them).
func assetID(t json.Token) string {
	switch v := t.(type) {
	case string:
		return v
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 32); err == nil {
			return strconv.FormatInt(n, 10)
		}
		return string(v)
	}
	return ""
}
