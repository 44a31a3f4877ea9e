package assets

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/cutroom/cutroom/lottiebudget"
)

// jsonInfo is what a JSON upload turned out to be.
type jsonInfo struct {
	format   Format
	width    float64 // lottie w
	height   float64 // lottie h
	duration float64 // seconds: lottie (op-ip)/fr; captions: the last cue's end
}

// captionEntry is one cue of a caption JSON file (the editor's captionEntry).
type captionEntry struct {
	Text    *string  `json:"text"`
	StartMs *float64 `json:"startMs"`
	EndMs   *float64 `json:"endMs"`
}

// classifyJSON streams a JSON file's top level and decides what it is:
//   - Lottie: an object with all of v, fr, ip, op and layers (the layers and assets are
//     walked token by token, never held, counting layers, precomp references and keyframes
//     for the Lottie budgets of lim);
//   - captions: an object with a "captions" array (the editor's caption asset; an optional
//     timingGranularity is word or line), or a top-level array of caption entries; every
//     entry needs text, startMs and endMs with 0 <= startMs <= endMs.
//
// Anything else is ASSET_TYPE_UNKNOWN.
func classifyJSON(r io.Reader, lim Limits) (jsonInfo, error) {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	dec.UseNumber()
	scan := lottiebudget.NewScan(dec, lim.lottieLimits())
	tok, err := dec.Token()
	if err != nil {
		return jsonInfo{}, invalid("the JSON file is malformed: %v", err)
	}
	if tok == json.Delim('[') {
		end, err := captionArray(dec)
		if err != nil {
			return jsonInfo{}, err
		}
		return jsonInfo{format: formats["caption-json"], duration: end / 1000}, trailing(dec)
	}
	if tok != json.Delim('{') {
		return jsonInfo{}, CodeTypeUnknown.New("the JSON file is neither a Lottie animation nor captions")
	}
	seen := map[string]bool{}
	var nums = map[string]float64{}
	var captionsEnd float64
	granularity := ""
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return jsonInfo{}, invalid("the JSON file is malformed: %v", err)
		}
		key, _ := kt.(string)
		switch key {
		case "v", "fr", "ip", "op", "w", "h":
			var v any
			if err := dec.Decode(&v); err != nil {
				return jsonInfo{}, invalid("the JSON file is malformed: %v", err)
			}
			seen[key] = true
			if n, ok := v.(json.Number); ok {
				nums[key], _ = n.Float64()
			}
		case "layers":
			t, err := dec.Token()
			if err != nil {
				return jsonInfo{}, invalid("the JSON file is malformed: %v", err)
			}
			if t == json.Delim('[') {
				seen[key] = true
				if err := scan.LayersArray(); err != nil {
					return jsonInfo{}, lottieError(err)
				}
			} else if err := skipValue(dec, t); err != nil {
				return jsonInfo{}, err
			}
		case "assets":
			t, err := dec.Token()
			if err != nil {
				return jsonInfo{}, invalid("the JSON file is malformed: %v", err)
			}
			if t == json.Delim('[') {
				if err := scan.AssetsArray(); err != nil {
					return jsonInfo{}, lottieError(err)
				}
			} else if err := skipValue(dec, t); err != nil {
				return jsonInfo{}, err
			}
		case "captions":
			t, err := dec.Token()
			if err != nil {
				return jsonInfo{}, invalid("the JSON file is malformed: %v", err)
			}
			if t != json.Delim('[') {
				return jsonInfo{}, invalid("captions must be an array of caption entries")
			}
			seen[key] = true
			if captionsEnd, err = captionArray(dec); err != nil {
				return jsonInfo{}, err
			}
		case "timingGranularity":
			if err := dec.Decode(&granularity); err != nil || (granularity != "word" && granularity != "line") {
				return jsonInfo{}, invalid("timingGranularity must be \"word\" or \"line\"")
			}
		default:
			t, err := dec.Token()
			if err != nil {
				return jsonInfo{}, invalid("the JSON file is malformed: %v", err)
			}
			if err := skipValue(dec, t); err != nil {
				return jsonInfo{}, err
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return jsonInfo{}, invalid("the JSON file is malformed: %v", err)
	}
	if err := trailing(dec); err != nil {
		return jsonInfo{}, err
	}
	switch {
	case seen["v"] && seen["fr"] && seen["ip"] && seen["op"] && seen["layers"]:
		facts, err := scan.Finish(nums)
		if err != nil {
			return jsonInfo{}, lottieError(err)
		}
		if err := facts.Drawable(); err != nil {
			return jsonInfo{}, CodeUnsupported.New("%v", err)
		}
		info := jsonInfo{format: formats["lottie"], width: nums["w"], height: nums["h"]}
		if fr := nums["fr"]; fr > 0 && nums["op"] > nums["ip"] {
			info.duration = (nums["op"] - nums["ip"]) / fr
		}
		return info, nil
	case seen["captions"]:
		return jsonInfo{format: formats["caption-json"], duration: captionsEnd / 1000}, nil
	}
	return jsonInfo{}, CodeTypeUnknown.New("the JSON file is neither a Lottie animation (v, fr, ip, op, layers) nor captions (a captions array)")
}

// captionArray reads caption entries up to the closing bracket and returns the last end.
func captionArray(dec *json.Decoder) (float64, error) {
	end := 0.0
	for i := 0; dec.More(); i++ {
		var e captionEntry
		if err := dec.Decode(&e); err != nil {
			return 0, invalid("caption entry %d is malformed: %v", i, err)
		}
		if e.Text == nil || e.StartMs == nil || e.EndMs == nil || *e.StartMs < 0 || *e.EndMs < *e.StartMs {
			return 0, invalid("caption entry %d needs text, startMs and endMs with 0 <= startMs <= endMs", i)
		}
		end = max(end, *e.EndMs)
	}
	if _, err := dec.Token(); err != nil {
		return 0, invalid("the caption array is malformed: %v", err)
	}
	return end, nil
}

// skipValue skips the rest of the value that starts with token t.
func skipValue(dec *json.Decoder, t json.Token) error {
	if d, ok := t.(json.Delim); ok && (d == '[' || d == '{') {
		return skipRest(dec, 1)
	}
	return nil
}

// skipRest consumes tokens until depth open arrays/objects are closed.
func skipRest(dec *json.Decoder, depth int) error {
	for depth > 0 {
		t, err := dec.Token()
		if err != nil {
			return invalid("the JSON file is malformed: %v", err)
		}
		if d, ok := t.(json.Delim); ok {
			if d == '[' || d == '{' {
				depth++
				if depth > 10000 {
					return invalid("the JSON file nests deeper than 10000 levels")
				}
			} else {
				depth--
			}
		}
	}
	return nil
}

func trailing(dec *json.Decoder) error {
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return invalid("unexpected data after the JSON value")
	}
	return nil
}

// parseCueTimes parses a SubRip or WebVTT timing line "start --> end [settings]" into
// milliseconds.
func parseCueTimes(line string) (start, end float64, ok bool) {
	a, b, found := strings.Cut(line, "-->")
	if !found {
		return 0, 0, false
	}
	fs := strings.Fields(b)
	if len(fs) == 0 {
		return 0, 0, false
	}
	start, ok1 := cueTime(strings.TrimSpace(a))
	end, ok2 := cueTime(fs[0])
	return start, end, ok1 && ok2 && end >= start
}

// cueTime parses [hh:]mm:ss[,.]mmm into milliseconds.
func cueTime(s string) (float64, bool) {
	s = strings.Replace(s, ",", ".", 1)
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	total := 0.0
	for i, p := range parts {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v < 0 || (i < len(parts)-1 && strings.Contains(p, ".")) {
			return 0, false
		}
		total = total*60 + v
	}
	return total * 1000, true
}

// subtitleDuration reads a SubRip or WebVTT file's cue timings and returns the last end in
// seconds. A file without a single cue is ASSET_INVALID.
func subtitleDuration(r io.Reader) (float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	cues, end := 0, 0.0
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, "-->") {
			continue
		}
		_, e, ok := parseCueTimes(line)
		if !ok {
			return 0, invalid("malformed cue timing line %q", truncate(line, 80))
		}
		cues++
		end = max(end, e)
	}
	if err := sc.Err(); err != nil {
		return 0, invalid("the subtitle file cannot be read: %v", err)
	}
	if cues == 0 {
		return 0, invalid("the subtitle file has no cues")
	}
	return end / 1000, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
