package server_test

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// TestFileRanges drives the Range parser through the signed file route: merged and capped
// ranges, suffixes, huge numbers, and every refusal as a 416 problem with Content-Range.
func TestFileRanges(t *testing.T) {
	e := newEnv(t)
	body := testdata(t, "video.mp4")
	size := len(body)
	link := mustUpload(e, "v.mp4", "video/mp4", body)["fileUrl"].(string)
	get := func(rng string, hdr ...string) response {
		t.Helper()
		return e.fetch(link, append([]string{"Range", rng}, hdr...)...)
	}
	single := func(rng string, from, to int) {
		t.Helper()
		r := get(rng)
		want := fmt.Sprintf("bytes %d-%d/%d", from, to, size)
		if r.Status != 206 || r.Header.Get("Content-Range") != want || !bytes.Equal(r.Body, body[from:to+1]) ||
			r.Header.Get("Content-Length") != fmt.Sprint(to+1-from) || r.Header.Get("Content-Type") != "video/mp4" {
			t.Fatalf("%s: %d %q (want %q), %d bytes, %v", truncate(rng), r.Status, r.Header.Get("Content-Range"), want, len(r.Body), r.Header)
		}
	}
	refused := func(rng, code string) {
		t.Helper()
		r := get(rng)
		r.Problem(416, code)
		if cr := r.Header.Get("Content-Range"); cr != fmt.Sprintf("bytes */%d", size) {
			t.Fatalf("%s: Content-Range %q", truncate(rng), cr)
		}
		if r.Header.Get("Content-Disposition") != "" || len(r.Body) > 1024 {
			t.Fatalf("%s: a refusal carries the file's headers or a big body: %v %d bytes", truncate(rng), r.Header, len(r.Body))
		}
	}
	single("bytes=100-199", 100, 199)
	single("bytes=0-", 0, size-1)
	single("bytes=-10", size-10, size-1)
	single(fmt.Sprintf("bytes=-%d", size+5), 0, size-1)
	single("bytes=0-99999999999999999999999999", 0, size-1)
	single(fmt.Sprintf("bytes=%d-%d", size-5, size+100), size-5, size-1)
	// Overlapping and adjacent ranges are merged into one.
	single("bytes=0-9,5-14, 15-19", 0, 19)
	single("bytes=50-59,0-49", 0, 59)
	// 98 one-byte ranges next to each other: one range of 98 bytes.
	var adj []string
	for i := 0; i < 98; i++ {
		adj = append(adj, fmt.Sprintf("%d-%d", i, i))
	}
	single("bytes="+strings.Join(adj, ","), 0, 97)
	// 98 copies of the whole file: one copy.
	single("bytes="+strings.Repeat("0-,", 97)+"0-", 0, size-1)
	// A range past the end next to a good one is dropped.
	single(fmt.Sprintf("bytes=%d-,0-0", size+10), 0, 0)

	// Up to MaxRanges separate ranges: multipart/byteranges with exact parts.
	var sep []string
	for i := 0; i < 16; i++ {
		sep = append(sep, fmt.Sprintf("%d-%d", i*10, i*10+2))
	}
	r := get("bytes=" + strings.Join(sep, ","))
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if r.Status != 206 || err != nil || mt != "multipart/byteranges" || r.Header.Get("Content-Length") != fmt.Sprint(len(r.Body)) {
		t.Fatalf("16 ranges: %d %v (%v)", r.Status, r.Header, err)
	}
	mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
	for i := 0; ; i++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			if i != 16 {
				t.Fatalf("%d parts, want 16", i)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(p)
		if p.Header.Get("Content-Range") != fmt.Sprintf("bytes %d-%d/%d", i*10, i*10+2, size) || p.Header.Get("Content-Type") != "video/mp4" ||
			!bytes.Equal(got, body[i*10:i*10+3]) {
			t.Fatalf("part %d: %v %x", i, p.Header, got)
		}
	}
	// HEAD of the same: the headers, no body.
	h := e.do("HEAD", strings.TrimPrefix(link, publicURL), "", nil, "Range", "bytes="+strings.Join(sep, ","))
	if h.Status != 206 || h.Header.Get("Content-Length") != fmt.Sprint(len(r.Body)) || len(h.Body) != 0 {
		t.Fatalf("HEAD 16 ranges: %d %v %d bytes", h.Status, h.Header, len(h.Body))
	}

	// The attack: 98 separate one-byte ranges (12 KB of multipart for 139 bytes before).
	var spread []string
	for i := 0; i < 98; i++ {
		spread = append(spread, fmt.Sprintf("%d-%d", i*2, i*2))
	}
	refused("bytes="+strings.Join(spread, ","), "RANGE_TOO_MANY")
	refused("bytes="+strings.Join(append(sep, "1000-1001"), ","), "RANGE_TOO_MANY")
	refused(fmt.Sprintf("bytes=%d-", size), "RANGE_NOT_SATISFIABLE")
	refused(fmt.Sprintf("bytes=%d-", size+10), "RANGE_NOT_SATISFIABLE")
	refused("bytes=99999999999999999999999999-", "RANGE_NOT_SATISFIABLE")
	refused("bytes=-0", "RANGE_NOT_SATISFIABLE")
	for _, bad := range []string{"bytes=5-2", "bytes=abc", "bytes=1-x", "bytes=--5", "bytes=", "bytes= , ", "bytes=0-1;2-3", "bytes=+1-2", "bytes"} {
		refused(bad, "RANGE_INVALID")
	}
	// Another unit is ignored: the whole file.
	if r := get("items=0-5"); r.Status != 200 || !bytes.Equal(r.Body, body) {
		t.Fatalf("items unit: %d", r.Status)
	}
}

// TestFileConditionals keeps the conditional-request behaviour of the file routes: 304,
// If-Range, and 412 as a problem.
func TestFileConditionals(t *testing.T) {
	e := newEnv(t)
	body := testdata(t, "video.mp4")
	link := mustUpload(e, "v.mp4", "video/mp4", body)["fileUrl"].(string)
	full := e.fetch(link)
	lm := full.Header.Get("Last-Modified")
	if full.Status != 200 || lm == "" || full.Header.Get("Accept-Ranges") != "bytes" || !bytes.Equal(full.Body, body) {
		t.Fatalf("plain GET: %d %v", full.Status, full.Header)
	}
	if r := e.fetch(link, "If-Modified-Since", lm); r.Status != http.StatusNotModified || len(r.Body) != 0 || r.Header.Get("Content-Type") != "" {
		t.Fatalf("If-Modified-Since: %d %v", r.Status, r.Header)
	}
	if r := e.fetch(link, "If-Modified-Since", "Mon, 02 Jan 2006 15:04:05 GMT"); r.Status != 200 {
		t.Fatalf("If-Modified-Since in the past: %d", r.Status)
	}
	if r := e.fetch(link, "If-None-Match", "*"); r.Status != http.StatusNotModified {
		t.Fatalf("If-None-Match *: %d", r.Status)
	}
	if r := e.fetch(link, "If-None-Match", `"abc"`, "If-Modified-Since", lm); r.Status != 200 {
		t.Fatalf("If-None-Match overrides If-Modified-Since: %d", r.Status)
	}
	if r := e.fetch(link, "Range", "bytes=0-9", "If-Range", lm); r.Status != 206 || len(r.Body) != 10 {
		t.Fatalf("If-Range matching: %d", r.Status)
	}
	for _, ir := range []string{"Mon, 02 Jan 2006 15:04:05 GMT", `"etag"`} {
		if r := e.fetch(link, "Range", "bytes=0-9", "If-Range", ir); r.Status != 200 || !bytes.Equal(r.Body, body) {
			t.Fatalf("If-Range %s not matching: %d", ir, r.Status)
		}
	}
	// A stale If-Range turns even a bad Range into the whole file.
	if r := e.fetch(link, "Range", "bytes=5-2", "If-Range", `"etag"`); r.Status != 200 {
		t.Fatalf("If-Range stale with a bad range: %d", r.Status)
	}
	e.fetch(link, "If-Match", `"etag"`).Problem(412, "PRECONDITION_FAILED")
	e.fetch(link, "If-Unmodified-Since", "Mon, 02 Jan 2006 15:04:05 GMT").Problem(412, "PRECONDITION_FAILED")
	if r := e.fetch(link, "If-Match", "*", "If-Unmodified-Since", lm); r.Status != 200 {
		t.Fatalf("If-Match * and If-Unmodified-Since now: %d", r.Status)
	}
}

func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
