package assets

import (
	"bytes"
	"encoding/binary"
	"mime"
	"strings"
)

// Asset types (the `type` of an asset record). They match the editor's asset types where
// one exists (image, gif, video, audio, caption, lottie), so an uploaded asset maps onto an
// editor asset of the same type; font has no editor asset type and is used by text items
// through their font family.
const (
	TypeImage   = "image"
	TypeGIF     = "gif"
	TypeVideo   = "video"
	TypeAudio   = "audio"
	TypeFont    = "font"
	TypeLottie  = "lottie"
	TypeCaption = "caption"
)

// SourceUpload is the `source` of an asset created by POST /v1/uploads, the only source
// there is so far.
const SourceUpload = "upload"

// Format is a file format recognised from a file's bytes.
type Format struct {
	// Name is a short name: png, jpeg, webp, gif, svg, mp4, mov, webm, mkv, mp3, aac, wav,
	// m4a, ogg, flac, ttf, otf, ttc, woff, woff2, lottie, caption-json, srt, vtt; "json"
	// while a JSON file is not yet known to be lottie or captions.
	Name string
	// Type is the asset type (TypeImage ...).
	Type string
	// MimeType is the media type files of this format are served with.
	MimeType string
}

// sniffLen is how many leading bytes Sniff looks at.
const sniffLen = 4096

var formats = map[string]Format{
	"png":          {"png", TypeImage, "image/png"},
	"jpeg":         {"jpeg", TypeImage, "image/jpeg"},
	"webp":         {"webp", TypeImage, "image/webp"},
	"gif":          {"gif", TypeGIF, "image/gif"},
	"svg":          {"svg", TypeImage, "image/svg+xml"},
	"mp4":          {"mp4", TypeVideo, "video/mp4"},
	"mov":          {"mov", TypeVideo, "video/quicktime"},
	"webm":         {"webm", TypeVideo, "video/webm"},
	"mkv":          {"mkv", TypeVideo, "video/x-matroska"},
	"mp3":          {"mp3", TypeAudio, "audio/mpeg"},
	"aac":          {"aac", TypeAudio, "audio/aac"},
	"wav":          {"wav", TypeAudio, "audio/wav"},
	"m4a":          {"m4a", TypeAudio, "audio/mp4"},
	"ogg":          {"ogg", TypeAudio, "audio/ogg"},
	"flac":         {"flac", TypeAudio, "audio/flac"},
	"ttf":          {"ttf", TypeFont, "font/ttf"},
	"otf":          {"otf", TypeFont, "font/otf"},
	"ttc":          {"ttc", TypeFont, "font/collection"},
	"woff":         {"woff", TypeFont, "font/woff"},
	"woff2":        {"woff2", TypeFont, "font/woff2"},
	"lottie":       {"lottie", TypeLottie, "application/json"},
	"caption-json": {"caption-json", TypeCaption, "application/json"},
	"srt":          {"srt", TypeCaption, "application/x-subrip"},
	"vtt":          {"vtt", TypeCaption, "text/vtt"},
	"json":         {"json", "", "application/json"},
}

// Sniff recognises a format from a file's first bytes (up to 4096 are looked at). A JSON
// file comes back as the pending format "json"; which of lottie or captions it is needs
// the whole file (see the upload). ok is false for a format cutroom does not take.
func Sniff(head []byte) (f Format, ok bool) {
	name := sniffName(head)
	f, ok = formats[name]
	return f, ok
}

func sniffName(h []byte) string {
	has := func(off int, s string) bool { return len(h) >= off+len(s) && string(h[off:off+len(s)]) == s }
	switch {
	case has(0, "\x89PNG\r\n\x1a\n"):
		return "png"
	case has(0, "\xff\xd8\xff"):
		return "jpeg"
	case has(0, "GIF87a"), has(0, "GIF89a"):
		return "gif"
	case has(0, "RIFF") && has(8, "WEBP"):
		return "webp"
	case has(0, "RIFF") && has(8, "WAVE"), has(0, "RF64") && has(8, "WAVE"):
		return "wav"
	case has(0, "fLaC"):
		return "flac"
	case has(0, "OggS"):
		n := min(len(h), 512)
		if bytes.Contains(h[:n], []byte("OpusHead")) || bytes.Contains(h[:n], []byte("\x01vorbis")) || bytes.Contains(h[:n], []byte("\x7fFLAC")) {
			return "ogg"
		}
		return "" // theora and other Ogg streams are not taken
	case has(0, "\x1a\x45\xdf\xa3"):
		switch ebmlDocType(h) {
		case "webm":
			return "webm"
		case "matroska":
			return "mkv"
		}
		return ""
	case has(4, "ftyp"):
		brand := ""
		if len(h) >= 12 {
			brand = string(h[8:12])
		}
		switch brand {
		case "qt  ":
			return "mov"
		case "M4A ", "M4B ", "M4P ", "F4A ":
			return "m4a"
		case "heic", "heix", "hevc", "hevx", "mif1", "msf1", "avif", "avis", "crx ":
			return "" // still images and raw photos in an ISO box file
		}
		return "mp4"
	case has(4, "moov"), has(4, "mdat"), has(4, "wide"), has(4, "free") && len(h) >= 16 && isBoxType(h[12:16]):
		return "mov"
	case has(0, "wOFF"):
		return "woff"
	case has(0, "wOF2"):
		return "woff2"
	case has(0, "OTTO"):
		return "otf"
	case has(0, "\x00\x01\x00\x00") && len(h) >= 12 && binary.BigEndian.Uint16(h[4:6]) > 0 && binary.BigEndian.Uint16(h[4:6]) < 1000, has(0, "true"):
		return "ttf"
	case has(0, "ttcf"):
		return "ttc"
	case has(0, "ID3"):
		return id3Next(h)
	case len(h) >= 4 && h[0] == 0xff && h[1]&0xf6 == 0xf0:
		return "aac" // ADTS: sync word, layer 0
	case len(h) >= 4 && mpegAudioHeader(binary.BigEndian.Uint32(h)) > 0:
		return "mp3"
	}
	return sniffText(h)
}

// id3Next names the audio format after an ID3v2 tag, when the head reaches it.
func id3Next(h []byte) string {
	if len(h) >= 10 {
		size := int(h[6]&0x7f)<<21 | int(h[7]&0x7f)<<14 | int(h[8]&0x7f)<<7 | int(h[9]&0x7f)
		off := 10 + size
		if h[5]&0x10 != 0 {
			off += 10
		}
		if off+2 <= len(h) && h[off] == 0xff && h[off+1]&0xf6 == 0xf0 {
			return "aac"
		}
	}
	return "mp3"
}

func isBoxType(b []byte) bool {
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == ' ') {
			return false
		}
	}
	return true
}

// sniffText recognises the text formats: SVG, JSON, WebVTT and SubRip.
func sniffText(h []byte) string {
	t := bytes.TrimPrefix(h, []byte("\xef\xbb\xbf"))
	t = bytes.TrimLeft(t, " \t\r\n")
	if len(t) == 0 {
		return ""
	}
	switch {
	case t[0] == '{' || t[0] == '[':
		return "json"
	case t[0] == '<':
		if bytes.Contains(t, []byte("<svg")) {
			return "svg"
		}
		return ""
	case bytes.HasPrefix(t, []byte("WEBVTT")) && (len(t) == 6 || t[6] == ' ' || t[6] == '\t' || t[6] == '\n' || t[6] == '\r'):
		return "vtt"
	}
	// SubRip: a cue number line, then a "00:00:01,000 --> 00:00:02,000" line.
	lines := strings.SplitN(string(t), "\n", 3)
	if len(lines) >= 2 {
		num := strings.TrimSpace(lines[0])
		if num != "" && strings.Trim(num, "0123456789") == "" && strings.Contains(lines[1], "-->") {
			if _, _, ok := parseCueTimes(lines[1]); ok {
				return "srt"
			}
		}
	}
	return ""
}

// declaredType returns the media type a Content-Type header declares, lower case and
// without parameters; "" when it declares nothing (absent, octet-stream or unparsable).
func declaredType(contentType string) string {
	if strings.TrimSpace(contentType) == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.SplitN(contentType, ";", 2)[0]))
	}
	switch mt {
	case "application/octet-stream", "binary/octet-stream", "application/unknown", "application/binary",
		// a form encoding says nothing about a file's media type; it is what
		// `curl --data-binary @file` sends when the caller sets no Content-Type
		"application/x-www-form-urlencoded":
		return ""
	}
	return mt
}

// Compatible reports whether a declared media type agrees with a detected format. The rules
// are lenient within a family and strict across families:
//   - no declaration (absent, application/octet-stream) agrees with everything;
//   - image/*, video/* and audio/* agree with any format of that asset type (a PNG sent as
//     image/jpeg is taken; its stored media type is the detected one);
//   - containers that hold audio or video (mp4, mov, webm, mkv, ogg, m4a) agree with both
//     video/* and audio/*;
//   - fonts agree with font/* and the legacy application/(x-)font-* types;
//   - JSON (lottie, captions) agrees with application/json, text/json, text/plain and any
//     +json type; SubRip and WebVTT with text/*, application/x-subrip;
//   - everything else (image/png for MP3 bytes, ...) is a mismatch.
func Compatible(declared string, f Format) bool {
	d := declaredType(declared)
	if d == "" || d == f.MimeType {
		return true
	}
	top, _, _ := strings.Cut(d, "/")
	switch f.Name {
	case "mp4", "mov", "webm", "mkv", "ogg", "m4a":
		return top == "video" || top == "audio" || d == "application/mp4" || d == "application/ogg" || d == "application/x-matroska"
	case "svg":
		return top == "image" || d == "text/xml" || d == "application/xml" || d == "text/plain"
	case "json", "lottie", "caption-json":
		return d == "application/json" || d == "text/json" || d == "text/plain" || strings.HasSuffix(d, "+json")
	case "srt", "vtt":
		return top == "text" || d == "application/x-subrip"
	}
	switch f.Type {
	case TypeImage, TypeGIF:
		return top == "image"
	case TypeVideo:
		return top == "video"
	case TypeAudio:
		return top == "audio"
	case TypeFont:
		return top == "font" || strings.HasPrefix(d, "application/font-") || strings.HasPrefix(d, "application/x-font") ||
			d == "application/vnd.ms-opentype" || d == "application/vnd.ms-fontobject"
	}
	return false
}
