package export

import (
	"bytes"
	"encoding/json"
	"math"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/assets"
	"github.com/cutroom/cutroom/webhook"
)

// Codes of the request's field rules (check, maxLen, checkFilename, checkHeaders).
var (
	errFieldRequired         = apierr.Define(apierr.Invalid, "FIELD_REQUIRED")
	errFieldType             = apierr.Define(apierr.Invalid, "INVALID_FIELD_TYPE")
	errFieldInvalid          = apierr.Define(apierr.Unprocessable, "INVALID_FIELD_VALUE")
	errFieldTooLong          = apierr.Define(apierr.Unprocessable, "FIELD_TOO_LONG")
	errFieldNotAllowed       = apierr.Define(apierr.Unprocessable, "FIELD_NOT_ALLOWED")
	errSchemaVersion         = apierr.Define(apierr.Unprocessable, "UNSUPPORTED_STATE_SCHEMA_VERSION")
	errFilenameInvalid       = apierr.Define(apierr.Unprocessable, "FILENAME_INVALID")
	errCallbackHeaderInvalid = apierr.Define(apierr.Unprocessable, "CALLBACK_HEADER_NOT_ALLOWED")
)

// Limits of the create routes (the interface's create request and limits) and of callback
// headers.
const (
	MaxClientTaskID       = 128
	MaxCallbackURL        = 1024
	MaxStateVersion       = 32
	MaxFilename           = 255
	MinComposition        = 50
	MaxComposition        = 1920
	MinScale              = 0.6
	MaxScale              = 8.0
	MaxCallbackHeaders    = 20
	MaxCallbackHeaderName = 64
	MaxCallbackHeaderVal  = 1024
	MaxCallbackHeaderSize = 8 << 10
)

// Ratios are the values of `ratio`; every one but custom is width:height.
var Ratios = map[string][2]int{"16:9": {16, 9}, "9:16": {9, 16}, "1:1": {1, 1}, "4:3": {4, 3}, "3:4": {3, 4}, "custom": {0, 0}}

// Request is the body of both create routes. Pointer members are nil when absent or null.
// The project route refuses the members only the stateless route takes.
type Request struct {
	EditorState        json.RawMessage   `json:"editorState"`
	StateVersion       *string           `json:"stateVersion"`
	StateSchemaVersion *string           `json:"stateSchemaVersion"`
	FPS                *int              `json:"fps"`
	Ratio              *string           `json:"ratio"`
	Scale              *float64          `json:"scale"`
	Format             *string           `json:"format"`
	CompositionWidth   *int              `json:"compositionWidth"`
	CompositionHeight  *int              `json:"compositionHeight"`
	ClientTaskID       *string           `json:"clientTaskId"`
	Filename           *string           `json:"filename"`
	CallbackURL        *string           `json:"callbackUrl"`
	CallbackHeaders    map[string]string `json:"callbackHeaders"`
}

func present(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && string(t) != "null"
}

// check applies every field rule that needs no state, in the order of the interface's
// table, and returns the first failure.
func (r *Request) check(stateless bool, headerPrefix string) error {
	if stateless {
		if !present(r.EditorState) {
			return errFieldRequired.Field("editorState", "editorState is required")
		}
		if t := bytes.TrimSpace(r.EditorState); t[0] != '{' {
			return errFieldType.Field("editorState", "editorState must be a JSON object")
		}
		if err := maxLen("stateVersion", r.StateVersion, MaxStateVersion); err != nil {
			return err
		}
		if r.StateSchemaVersion == nil {
			return errFieldRequired.Field("stateSchemaVersion", `stateSchemaVersion is required for a stateless export; send "v1"`)
		}
		if *r.StateSchemaVersion != "v1" {
			return errSchemaVersion.Field("stateSchemaVersion", `stateSchemaVersion %q is not supported; send "v1"`, truncate(*r.StateSchemaVersion, 32))
		}
	} else {
		for name, set := range map[string]bool{"editorState": present(r.EditorState), "stateVersion": r.StateVersion != nil,
			"stateSchemaVersion": r.StateSchemaVersion != nil, "compositionWidth": r.CompositionWidth != nil,
			"compositionHeight": r.CompositionHeight != nil} {
			if set {
				return errFieldNotAllowed.Field(name, "%s is not accepted by a project export: it renders the project's latest saved state (sync it first)", name)
			}
		}
	}
	if r.FPS == nil {
		return errFieldRequired.Field("fps", "fps is required (30 or 60)")
	}
	if *r.FPS != 30 && *r.FPS != 60 {
		return errFieldInvalid.Field("fps", "fps must be 30 or 60, got %d", *r.FPS)
	}
	if r.Ratio == nil {
		return errFieldRequired.Field("ratio", "ratio is required (16:9, 9:16, 1:1, 4:3, 3:4 or custom)")
	}
	if _, ok := Ratios[*r.Ratio]; !ok {
		return errFieldInvalid.Field("ratio", "ratio must be one of 16:9, 9:16, 1:1, 4:3, 3:4, custom; got %q", truncate(*r.Ratio, 32))
	}
	if r.Scale == nil {
		return errFieldRequired.Field("scale", "scale is required (0.6 to 8)")
	}
	if math.IsNaN(*r.Scale) || *r.Scale < MinScale || *r.Scale > MaxScale {
		return errFieldInvalid.Field("scale", "scale must be from 0.6 to 8, got %g", *r.Scale)
	}
	if r.Format == nil {
		return errFieldRequired.Field("format", "format is required (mp4 or webm)")
	}
	if *r.Format != "mp4" && *r.Format != "webm" {
		return errFieldInvalid.Field("format", "format must be mp4 or webm, got %q", truncate(*r.Format, 32))
	}
	for _, c := range []struct {
		name string
		v    *int
	}{{"compositionWidth", r.CompositionWidth}, {"compositionHeight", r.CompositionHeight}} {
		if c.v != nil && (*c.v < MinComposition || *c.v > MaxComposition) {
			return errFieldInvalid.Field(c.name, "%s must be from 50 to 1920, got %d", c.name, *c.v)
		}
	}
	if err := maxLen("clientTaskId", r.ClientTaskID, MaxClientTaskID); err != nil {
		return err
	}
	if r.ClientTaskID != nil && *r.ClientTaskID == "" {
		return errFieldInvalid.Field("clientTaskId", "clientTaskId must not be empty")
	}
	if r.Filename != nil {
		if err := checkFilename(*r.Filename, *r.Format); err != nil {
			return err
		}
	}
	if err := maxLen("callbackUrl", r.CallbackURL, MaxCallbackURL); err != nil {
		return err
	}
	if r.CallbackURL != nil {
		u, err := url.Parse(*r.CallbackURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return errFieldInvalid.Field("callbackUrl", "callbackUrl must be an absolute http or https URL without user info")
		}
	}
	if r.CallbackHeaders != nil {
		if r.CallbackURL == nil {
			return errFieldInvalid.Field("callbackHeaders", "callbackHeaders need a callbackUrl")
		}
		if err := checkHeaders(r.CallbackHeaders, headerPrefix); err != nil {
			return err
		}
	}
	return nil
}

func maxLen(field string, v *string, max int) error {
	if v != nil && utf8.RuneCountInString(*v) > max {
		return errFieldTooLong.Field(field, "%s must be at most %d characters (got %d)", field, max, utf8.RuneCountInString(*v))
	}
	return nil
}

// checkFilename accepts a plain file name (no directories, no control characters) whose
// extension is the chosen format's.
func checkFilename(name, format string) error {
	if err := maxLen("filename", &name, MaxFilename); err != nil {
		return err
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) ||
		strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) >= 0 {
		return errFilenameInvalid.Field("filename", "filename must be a plain file name without directories or control characters")
	}
	// Bidi controls and other invisible format characters would make the name the client
	// sees differ from the file's (evil\u202egnp.exe shows as evilexe.png).
	if i := strings.IndexFunc(name, assets.UnsafeNameRune); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		return errFilenameInvalid.Field("filename", "filename must not contain control, format or bidi characters (U+%04X at character %d)",
			r, utf8.RuneCountInString(name[:i])+1)
	}
	if ext := strings.ToLower(filepath.Ext(name)); ext != "."+format {
		return errFilenameInvalid.Field("filename", "filename %q must end in .%s to match format %s", truncate(name, 64), format, format)
	}
	return nil
}

func checkHeaders(h map[string]string, prefix string) error {
	if len(h) > MaxCallbackHeaders {
		return errCallbackHeaderInvalid.Field("callbackHeaders", "at most %d callbackHeaders are allowed, got %d", MaxCallbackHeaders, len(h))
	}
	total := 0
	for k, v := range h {
		field := "callbackHeaders." + truncate(k, MaxCallbackHeaderName)
		if k == "" || len(k) > MaxCallbackHeaderName || strings.IndexFunc(k, func(r rune) bool { return !isTokenChar(r) }) >= 0 {
			return errCallbackHeaderInvalid.Field(field, "callback header name %q must be 1..%d token characters", truncate(k, 64), MaxCallbackHeaderName)
		}
		if len(v) > MaxCallbackHeaderVal || strings.IndexFunc(v, func(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f }) >= 0 {
			return errCallbackHeaderInvalid.Field(field, "callback header %s must have a value of at most %d bytes without control characters", k, MaxCallbackHeaderVal)
		}
		if webhook.ReservedHeader(prefix, k) {
			return errCallbackHeaderInvalid.Field(field, "callback header %s is set by the server (hop-by-hop, Host, content or signature headers cannot be overridden)", k)
		}
		total += len(k) + len(v)
	}
	if total > MaxCallbackHeaderSize {
		return errCallbackHeaderInvalid.Field("callbackHeaders", "callbackHeaders total %d bytes; at most %d are allowed", total, MaxCallbackHeaderSize)
	}
	return nil
}

func isTokenChar(r rune) bool {
	return r < 0x7f && r > 0x20 && !strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// OutputSize returns the output size for a composition of w x h at scale: each side
// rounded to the nearest even number (at least 2).
func OutputSize(w, h int, scale float64) (int, int) {
	return evenRound(float64(w) * scale), evenRound(float64(h) * scale)
}

// evenRound rounds v to the nearest even integer (at least 2).
func evenRound(v float64) int {
	n := int(math.Round(v/2)) * 2
	return max(n, 2)
}

// ratioMatches reports whether w:h is the ratio rw:rh within 1% (composition sizes are
// integers, so e.g. 1366x768 passes as 16:9).
func ratioMatches(w, h, rw, rh int) bool {
	got := float64(w) / float64(h)
	want := float64(rw) / float64(rh)
	return math.Abs(got-want)/want <= 0.01
}

// Billing: billedStandardSeconds = ceil(video seconds x factor), at least 1, where
// factor = max(MinBillingFactor, (outW x outH) / (1920 x 1080)) x fps / 30; 1080p at 30 fps
// is 1. One credit is charged per billed standard second.
const (
	MinBillingFactor = 0.25
	CreditsPerSecond = 1
)

// Billed returns the billed standard seconds of a video.
func Billed(videoSeconds float64, outW, outH, fps int) int64 {
	factor := math.Max(MinBillingFactor, float64(outW*outH)/(1920*1080)) * float64(fps) / 30
	// A tiny epsilon keeps float noise (e.g. 10 x 1.0000000001) from adding a second.
	b := int64(math.Ceil(videoSeconds*factor - 1e-9))
	return max(b, 1)
}
