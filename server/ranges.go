package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cutroom/cutroom/apierr"
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
	code   apierr.Code
	detail string
}

func (e *rangeError) Error() string { return e.detail }

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

// serveContent answers a GET or HEAD for a file with http.ServeContent (Last-Modified,
// conditional requests, HEAD, single and multipart ranges), after checking the Range header
// with parseRange: the ranges ServeContent sees are the merged ones (at most MaxRanges, so a
// response never holds more bytes than the file), and every error it would answer in plain
// text (416, 412) is a problem+json instead, 416 with Content-Range: bytes */size. The
// caller sets the Content-Type. A Range that parseRange refuses is replaced by one no file
// can satisfy, so that ServeContent still decides (If-Range) whether ranges apply at all:
// when they do not, the whole file is served, as for any Range.
func (s *Server) serveContent(c *gin.Context, modtime time.Time, content io.ReadSeeker) {
	r := c.Request
	size, err := content.Seek(0, io.SeekEnd)
	if err == nil {
		_, err = content.Seek(0, io.SeekStart)
	}
	if err != nil {
		s.failFile(c, fmt.Errorf("seek: %w", err))
		return
	}
	w := &problemWriter{ResponseWriter: c.Writer, s: s, c: c,
		rangeErr: &rangeError{codeRangeNotSatisfiable, fmt.Sprintf("no requested range overlaps the %d bytes of the file", size)}}
	if header := r.Header.Get("Range"); header != "" {
		ranges, err := parseRange(header, size)
		var re *rangeError
		switch {
		case errors.As(err, &re):
			w.rangeErr = re
			r.Header.Set("Range", fmt.Sprintf("bytes=%d-", size)) // past the end: 416
		case ranges == nil: // a unit other than bytes: the whole file
			r.Header.Del("Range")
		default:
			r.Header.Set("Range", rangeHeader(ranges))
		}
	}
	c.Writer.Header().Set("Accept-Ranges", "bytes")
	http.ServeContent(w, r, "", modtime, content)
}

// rangeHeader writes ranges back as a Range header value.
func rangeHeader(ranges []byteRange) string {
	var b strings.Builder
	b.WriteString("bytes=")
	for i, rg := range ranges {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(rg.start, 10))
		b.WriteByte('-')
		b.WriteString(strconv.FormatInt(rg.end-1, 10))
	}
	return b.String()
}

// problemWriter passes http.ServeContent's answer through, except its error statuses: a 416
// becomes the problem of rangeErr, a 412 PRECONDITION_FAILED, and the plain-text body
// ServeContent writes after them is dropped.
type problemWriter struct {
	http.ResponseWriter
	s        *Server
	c        *gin.Context
	rangeErr *rangeError
	replaced bool
}

func (w *problemWriter) WriteHeader(code int) {
	switch code {
	case http.StatusRequestedRangeNotSatisfiable:
		w.replaced = true
		w.s.failFile(w.c, w.rangeErr.code.New("%s", w.rangeErr.detail))
	case http.StatusPreconditionFailed:
		w.replaced = true
		w.Header().Del("Content-Range")
		w.s.failFile(w.c, errPreconditionFailed.New("the file does not match If-Match or If-Unmodified-Since"))
	default:
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *problemWriter) Write(p []byte) (int, error) {
	if w.replaced {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// failFile answers a file route with a problem: the file's own headers are dropped first.
func (s *Server) failFile(c *gin.Context, err error) {
	h := c.Writer.Header()
	for _, k := range []string{"Content-Type", "Content-Disposition", "Content-Length", "Last-Modified", "Accept-Ranges", "Cache-Control"} {
		h.Del(k)
	}
	s.fail(c, err)
}
