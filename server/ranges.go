package server

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// MaxRanges is the largest number of byte ranges one request is served, counted after
// overlapping and adjacent ranges are merged. A request asking for more is refused with 416
// RANGE_TOO_MANY (RFC 9110 section 14.2 lets a server reject many small ranges, a sign of a
// broken client or a denial-of-service attempt); merging means the response never holds more
// bytes than the file itself.
const MaxRanges = 16

// byteRange is a half-open range [start, end) of a file.
type byteRange struct{ start, end int64 }

// rangeError says why a Range header cannot be served; code is the problem's errorCode.
type rangeError struct {
	code, detail string
}

func (e *rangeError) Error() string { return e.detail }

const (
	codeRangeInvalid        = "RANGE_INVALID"
	codeRangeNotSatisfiable = "RANGE_NOT_SATISFIABLE"
	codeRangeTooMany        = "RANGE_TOO_MANY"
)

// parseRange parses a Range header value for a file of size bytes. It returns nil ranges
// and no error when the header asks for the whole file in effect (a unit other than bytes,
// which RFC 9110 says to ignore). Otherwise it returns the ranges in ascending order,
// overlapping and adjacent ones merged, each clamped to the file, or a *rangeError:
// RANGE_INVALID for a malformed header, RANGE_NOT_SATISFIABLE when no range overlaps the
// file, RANGE_TOO_MANY when more than MaxRanges remain after merging. Numbers too large for
// int64 are clamped (a last byte past the end means the end). The work is linear in the
// header's length plus a sort of the ranges.
func parseRange(header string, size int64) ([]byteRange, error) {
	unit, set, ok := strings.Cut(header, "=")
	if !ok {
		return nil, &rangeError{codeRangeInvalid, "the Range header must be bytes=<first>-<last>[, …]"}
	}
	if !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		return nil, nil
	}
	var rs []byteRange
	specs := 0
	for _, spec := range strings.Split(set, ",") {
		spec = strings.Trim(spec, " \t")
		if spec == "" { // empty list elements are allowed (RFC 9110 section 5.6.1)
			continue
		}
		specs++
		first, last, ok := strings.Cut(spec, "-")
		if !ok {
			return nil, &rangeError{codeRangeInvalid, fmt.Sprintf("range %q has no '-'", truncate(spec, 32))}
		}
		var r byteRange
		if first == "" { // suffix: the last n bytes
			n, ok := parseDigits(last)
			if !ok {
				return nil, &rangeError{codeRangeInvalid, fmt.Sprintf("range %q is not a number of bytes", truncate(spec, 32))}
			}
			if n == 0 || size == 0 {
				continue // unsatisfiable on its own
			}
			r = byteRange{max(size-n, 0), size}
		} else {
			start, ok := parseDigits(first)
			if !ok {
				return nil, &rangeError{codeRangeInvalid, fmt.Sprintf("range %q does not start with a byte position", truncate(spec, 32))}
			}
			end := size
			if last != "" {
				l, ok := parseDigits(last)
				if !ok || l < start {
					return nil, &rangeError{codeRangeInvalid, fmt.Sprintf("range %q does not end with a byte position at or after its start", truncate(spec, 32))}
				}
				if l < size-1 {
					end = l + 1
				}
			}
			if start >= size {
				continue // unsatisfiable on its own
			}
			r = byteRange{start, end}
		}
		rs = append(rs, r)
	}
	if specs == 0 {
		return nil, &rangeError{codeRangeInvalid, "the Range header names no range"}
	}
	if len(rs) == 0 {
		return nil, &rangeError{codeRangeNotSatisfiable, fmt.Sprintf("no requested range overlaps the %d bytes of the file", size)}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].start < rs[j].start })
	merged := rs[:1]
	for _, r := range rs[1:] {
		last := &merged[len(merged)-1]
		if r.start <= last.end { // overlapping or adjacent
			last.end = max(last.end, r.end)
			continue
		}
		merged = append(merged, r)
	}
	if len(merged) > MaxRanges {
		return nil, &rangeError{codeRangeTooMany, fmt.Sprintf("the request asks for %d separate ranges; at most %d are served at once", len(merged), MaxRanges)}
	}
	return merged, nil
}

// parseDigits parses a non-empty string of ASCII digits, clamping values too large for an
// int64 to math.MaxInt64.
func parseDigits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (1<<63-1-int64(c-'0'))/10 {
			n = 1<<63 - 1
			continue // keep checking that the rest are digits
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// condResult is the outcome of one conditional header: absent, true or false.
type condResult int

const (
	condNone condResult = iota
	condTrue
	condFalse
)

// serveContent answers a GET or HEAD for a file like http.ServeContent (Last-Modified,
// If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since, If-Range, Range, HEAD),
// with three differences: ranges are parsed by parseRange (at most MaxRanges, merged), every
// error is a problem+json (416 with Content-Range: bytes */size, 412), and the Content-Type
// must already be set by the caller. These routes set no ETag, so an entity tag in If-Match
// or If-Range never matches and one in If-None-Match always does not match; "*" matches.
func (s *Server) serveContent(c *gin.Context, modtime time.Time, content io.ReadSeeker) {
	w, r := c.Writer, c.Request
	size, err := content.Seek(0, io.SeekEnd)
	if err == nil {
		_, err = content.Seek(0, io.SeekStart)
	}
	if err != nil {
		s.failFile(c, fmt.Errorf("seek: %w", err))
		return
	}
	h := w.Header()
	if !isZeroTime(modtime) {
		h.Set("Last-Modified", modtime.UTC().Format(http.TimeFormat))
	}
	// Preconditions, in the order of RFC 9110 section 13.2.2.
	ch := checkIfMatch(r)
	if ch == condNone {
		ch = checkIfUnmodifiedSince(r, modtime)
	}
	if ch == condFalse {
		s.failFile(c, newError(http.StatusPreconditionFailed, "PRECONDITION_FAILED", "the file does not match If-Match or If-Unmodified-Since"))
		return
	}
	notModified := false
	switch checkIfNoneMatch(r) {
	case condFalse:
		notModified = true
	case condNone:
		notModified = checkIfModifiedSince(r, modtime) == condFalse
	}
	if notModified {
		h.Del("Content-Type")
		h.Del("Content-Length")
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	rangeHeader := r.Header.Get("Range")
	if rangeHeader != "" && checkIfRange(r, modtime) == condFalse {
		rangeHeader = ""
	}
	h.Set("Accept-Ranges", "bytes")
	var ranges []byteRange
	if rangeHeader != "" {
		ranges, err = parseRange(rangeHeader, size)
		if err != nil {
			var re *rangeError
			errors.As(err, &re)
			h.Set("Content-Range", fmt.Sprintf("bytes */%d", size))
			s.failFile(c, newError(http.StatusRequestedRangeNotSatisfiable, re.code, "%s", re.detail))
			return
		}
	}
	status := http.StatusOK
	var body io.Reader = io.LimitReader(content, size)
	length := size
	switch {
	case len(ranges) == 1:
		rg := ranges[0]
		if _, err := content.Seek(rg.start, io.SeekStart); err != nil {
			s.failFile(c, fmt.Errorf("seek: %w", err))
			return
		}
		length = rg.end - rg.start
		body = io.LimitReader(content, length)
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", rg.start, rg.end-1, size))
		status = http.StatusPartialContent
	case len(ranges) > 1:
		ctype := h.Get("Content-Type")
		mw := multipart.NewWriter(w)
		h.Set("Content-Type", "multipart/byteranges; boundary="+mw.Boundary())
		h.Set("Content-Length", strconv.FormatInt(multipartSize(ranges, ctype, size, mw.Boundary()), 10))
		w.WriteHeader(http.StatusPartialContent)
		if r.Method == http.MethodHead {
			return
		}
		for _, rg := range ranges {
			part, err := mw.CreatePart(partHeader(rg, ctype, size))
			if err != nil {
				return
			}
			if _, err := content.Seek(rg.start, io.SeekStart); err != nil {
				return
			}
			if _, err := io.CopyN(part, content, rg.end-rg.start); err != nil {
				return
			}
		}
		_ = mw.Close()
		return
	}
	h.Set("Content-Length", strconv.FormatInt(length, 10))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = io.CopyN(w, body, length)
	}
}

// failFile answers a file route with a problem: the file's own headers are dropped first.
func (s *Server) failFile(c *gin.Context, err error) {
	h := c.Writer.Header()
	for _, k := range []string{"Content-Type", "Content-Disposition", "Content-Length", "Last-Modified", "Accept-Ranges", "Cache-Control"} {
		h.Del(k)
	}
	s.fail(c, err)
}

func partHeader(rg byteRange, ctype string, size int64) textproto.MIMEHeader {
	return textproto.MIMEHeader{
		"Content-Range": {fmt.Sprintf("bytes %d-%d/%d", rg.start, rg.end-1, size)},
		"Content-Type":  {ctype},
	}
}

// multipartSize is the exact length of the multipart/byteranges body of ranges.
func multipartSize(ranges []byteRange, ctype string, size int64, boundary string) int64 {
	var cw countWriter
	mw := multipart.NewWriter(&cw)
	_ = mw.SetBoundary(boundary)
	var n int64
	for _, rg := range ranges {
		_, _ = mw.CreatePart(partHeader(rg, ctype, size))
		n += rg.end - rg.start
	}
	mw.Close()
	return n + int64(cw)
}

type countWriter int64

func (w *countWriter) Write(p []byte) (int, error) {
	*w += countWriter(len(p))
	return len(p), nil
}

var unixEpoch = time.Unix(0, 0)

func isZeroTime(t time.Time) bool { return t.IsZero() || t.Equal(unixEpoch) }

// etagListMatches reports whether a list of entity tags (If-Match, If-None-Match) holds
// "*"; these routes have no ETag, so no other tag can match.
func etagListMatches(list string) bool {
	for _, e := range strings.Split(list, ",") {
		if strings.TrimSpace(e) == "*" {
			return true
		}
	}
	return false
}

func checkIfMatch(r *http.Request) condResult {
	im := r.Header.Get("If-Match")
	if im == "" {
		return condNone
	}
	if etagListMatches(im) {
		return condTrue
	}
	return condFalse
}

func checkIfUnmodifiedSince(r *http.Request, modtime time.Time) condResult {
	ius := r.Header.Get("If-Unmodified-Since")
	if ius == "" || isZeroTime(modtime) {
		return condNone
	}
	t, err := http.ParseTime(ius)
	if err != nil {
		return condNone
	}
	if modtime.Truncate(time.Second).Compare(t) <= 0 {
		return condTrue
	}
	return condFalse
}

func checkIfNoneMatch(r *http.Request) condResult {
	inm := r.Header.Get("If-None-Match")
	if inm == "" {
		return condNone
	}
	if etagListMatches(inm) {
		return condFalse
	}
	return condTrue
}

func checkIfModifiedSince(r *http.Request, modtime time.Time) condResult {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return condNone
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" || isZeroTime(modtime) {
		return condNone
	}
	t, err := http.ParseTime(ims)
	if err != nil {
		return condNone
	}
	if modtime.Truncate(time.Second).Compare(t) <= 0 {
		return condFalse
	}
	return condTrue
}

// checkIfRange: an entity tag never matches (no ETag here); a date must equal Last-Modified.
func checkIfRange(r *http.Request, modtime time.Time) condResult {
	ir := r.Header.Get("If-Range")
	if ir == "" {
		return condNone
	}
	if strings.HasPrefix(ir, `"`) || strings.HasPrefix(ir, `W/"`) || isZeroTime(modtime) {
		return condFalse
	}
	t, err := http.ParseTime(ir)
	if err != nil {
		return condFalse
	}
	if t.Unix() == modtime.Unix() {
		return condTrue
	}
	return condFalse
}
