package lottie

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// normalize rewrites a Lottie document (already measured by the budget) for rlottie, so it
// draws what lottie-web draws:
//   - every object's "ty" member moves first: rlottie 0.1 reads an object's type only from
//     its first member and mis-draws shapes written in any other order (lottie-web takes
//     members in any order);
//   - a polystar's rotation ("r" of a "ty":"sr" shape, star or polygon, static or keyframed)
//     is halved: rlottie 0.1 applies it twice when it builds the path (a star with r 20 came
//     out turned 40 degrees; SSIM 0.65 against lottie-web before, 0.999 after);
//   - every asset with a "p" (an image asset to rlottie, whatever else it has) gets "e": 1
//     and "u": "" in place of its own: without "e": 1 rlottie takes "p", data URI or not, for
//     a file name and opens u + p (lottie-web draws a data URI in "p" either way). The budget
//     has made sure every such "p" is a data:image/ URI, so no path is handed to rlottie.
//
// It streams tokens and re-encodes values; memory is a small multiple of the document.
func normalize(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out bytes.Buffer
	out.Grow(len(data) + len(data)/8)
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if err := normValue(dec, t, &out, 0, inRoot); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

type member struct {
	key string
	val []byte
}

// where is what a value is in the document, as far as normalize cares.
type where int

const (
	inValue  where = iota
	inRoot         // the document
	inAssets       // the document's assets array
	inAsset        // one of its assets
)

func normValue(dec *json.Decoder, t json.Token, out *bytes.Buffer, depth int, in where) error {
	if depth > 10000 {
		return fmt.Errorf("nesting deeper than 10000 levels")
	}
	switch v := t.(type) {
	case json.Delim:
		if v == '[' {
			return normArray(dec, out, depth, in)
		}
		return normObject(dec, out, depth, in)
	case string:
		b, _ := json.Marshal(v)
		out.Write(b)
	case json.Number:
		out.WriteString(v.String())
	case bool:
		out.WriteString(strconv.FormatBool(v))
	case nil:
		out.WriteString("null")
	}
	return nil
}

func normArray(dec *json.Decoder, out *bytes.Buffer, depth int, in where) error {
	elem := inValue
	if in == inAssets {
		elem = inAsset
	}
	out.WriteByte('[')
	for i := 0; dec.More(); i++ {
		if i > 0 {
			out.WriteByte(',')
		}
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if err := normValue(dec, t, out, depth+1, elem); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	out.WriteByte(']')
	return nil
}

func normObject(dec *json.Decoder, out *bytes.Buffer, depth int, in where) error {
	var ms []member
	ty := -1
	star, image := false, false
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := kt.(string)
		vt, err := dec.Token()
		if err != nil {
			return err
		}
		sub := inValue
		if in == inRoot && k == "assets" {
			sub = inAssets
		}
		var b bytes.Buffer
		if err := normValue(dec, vt, &b, depth+1, sub); err != nil {
			return err
		}
		if in == inAsset && (k == "e" || k == "u") {
			continue
		}
		if k == "ty" {
			ty = len(ms)
			star = vt == "sr"
		}
		image = image || (in == inAsset && k == "p")
		ms = append(ms, member{k, b.Bytes()})
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if image {
		ms = append(ms, member{"u", []byte(`""`)}, member{"e", []byte("1")})
	}
	if ty > 0 {
		m := ms[ty]
		copy(ms[1:ty+1], ms[:ty])
		ms[0] = m
	}
	out.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			out.WriteByte(',')
		}
		kb, _ := json.Marshal(m.key)
		out.Write(kb)
		out.WriteByte(':')
		if star && m.key == "r" {
			m.val = halveProperty(m.val)
		}
		out.Write(m.val)
	}
	out.WriteByte('}')
	return nil
}

// halveProperty halves a scalar property: {"a":0,"k":n} or keyframes {"k":[{"s":[n]...}]}
// ("s" and the legacy "e"). Anything else is left as it is.
func halveProperty(b []byte) []byte {
	var p map[string]json.RawMessage
	if json.Unmarshal(b, &p) != nil {
		return b
	}
	k := p["k"]
	var n float64
	if json.Unmarshal(k, &n) == nil {
		p["k"] = half(n)
	} else {
		var kfs []map[string]json.RawMessage
		if json.Unmarshal(k, &kfs) != nil {
			return b
		}
		for _, kf := range kfs {
			for _, key := range []string{"s", "e"} {
				var vs []float64
				if json.Unmarshal(kf[key], &vs) == nil {
					for i := range vs {
						vs[i] /= 2
					}
					kf[key], _ = json.Marshal(vs)
				}
			}
		}
		p["k"], _ = json.Marshal(kfs)
	}
	// "a" and "k" keep their order for rlottie: "a" first
	var out bytes.Buffer
	out.WriteByte('{')
	i := 0
	for _, key := range append([]string{"a"}, keysExcept(p, "a")...) {
		v, ok := p[key]
		if !ok {
			continue
		}
		if i > 0 {
			out.WriteByte(',')
		}
		i++
		kb, _ := json.Marshal(key)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(v)
	}
	out.WriteByte('}')
	return out.Bytes()
}

func half(n float64) json.RawMessage {
	b, _ := json.Marshal(n / 2)
	return b
}

func keysExcept(p map[string]json.RawMessage, skip string) []string {
	var ks []string
	for k := range p {
		if k != skip {
			ks = append(ks, k)
		}
	}
	// deterministic order
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}
