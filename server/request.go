package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
)

// readBody reads the (already capped) request body.
func readBody(c *gin.Context) ([]byte, error) {
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, err
		}
		var bt *errBodyTimeout
		if errors.As(err, &bt) {
			return nil, errBodyTooSlow.New("%v; the connection is closed", err)
		}
		return nil, errBodyUnreadable.New("could not read the request body: %v", err)
	}
	return body, nil
}

// readJSON reads the request's body and decodes it into a T by decodeJSON's rules,
// answering the problem itself when either fails (ok false). body is the bytes read (an
// idempotent create hashes them).
func readJSON[T any](s *Server, c *gin.Context) (req T, body []byte, ok bool) {
	body, err := readBody(c)
	if err == nil {
		err = decodeJSON(body, &req)
	}
	if err != nil {
		s.fail(c, err)
		return req, nil, false
	}
	return req, body, true
}

// decodeJSON decodes a JSON object body into dst, turning every decoding failure into a 400
// problem that names the field where it can. A member bound to an integer field accepts any
// integral JSON number (30, 30.0, 3e1, 30.000); a non-integral one (30.5) is refused with a
// message saying an integer is needed.
func decodeJSON(body []byte, dst any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return errBodyRequired.New("a JSON object body is required")
	}
	if trimmed[0] != '{' {
		return errInvalidJSON.New("the body must be a JSON object")
	}
	err := decodeStrict(trimmed, dst)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && isIntKind(te.Type) && strings.HasPrefix(te.Value, "number ") {
		// An integer field got a number literal Go's decoder does not take as an integer
		// (a fraction or an exponent, or too large). Rare: decode again with the integral
		// literals of the top-level integer members rewritten as plain integers.
		fixed, ferr := integralMembers(trimmed, dst)
		if ferr != nil {
			return ferr
		}
		rv := reflect.ValueOf(dst).Elem()
		rv.Set(reflect.Zero(rv.Type()))
		err = decodeStrict(fixed, dst)
	}
	return decodeProblem(err)
}

// errTrailing is decodeStrict's error for data after the object.
var errTrailing = errors.New("unexpected data after the JSON object")

// decodeStrict decodes one JSON object into dst; it returns encoding/json's errors.
func decodeStrict(body []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if dec.More() {
		return errTrailing
	}
	if _, err := dec.Token(); err != io.EOF {
		return errTrailing
	}
	return nil
}

// decodeProblem maps a decoding error to a 400 problem (nil stays nil).
func decodeProblem(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errTrailing):
		return errInvalidJSON.New("unexpected data after the JSON object")
	case errors.As(err, &te):
		field := te.Field
		if lit, ok := strings.CutPrefix(te.Value, "number "); ok && isIntKind(te.Type) {
			return intFieldError(field, lit, te.Type)
		}
		return errInvalidFieldType.Field(field,
			"field %q must be %s, not JSON %s", field, jsonTypeName(te.Type.Kind().String()), te.Value)
	case errors.As(err, &se):
		return errInvalidJSON.New("malformed JSON at byte %d: %v", se.Offset, err)
	}
	return errInvalidJSON.New("malformed JSON: %v", err)
}

// intFieldError describes a number literal an integer field cannot take.
func intFieldError(field, lit string, t reflect.Type) error {
	if _, integral, _ := canonicalInt(lit); integral {
		lo, hi := intRange(t)
		return errInvalidFieldType.Field(field,
			"field %q must be an integer from %s to %s, got %s", field, lo, hi, truncate(lit, 32))
	}
	return errInvalidFieldType.Field(field,
		"field %q must be an integer (a number without a fractional part), got %s", field, truncate(lit, 32))
}

func isIntKind(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// intRange returns the bounds of an integer type as text.
func intRange(t reflect.Type) (lo, hi string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	bitsN := t.Bits()
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "0", strconv.FormatUint(1<<bitsN-1, 10)
	}
	return strconv.FormatInt(-1<<(bitsN-1), 10), strconv.FormatInt(1<<(bitsN-1)-1, 10)
}

// integralMembers rewrites, in a JSON object body, the number literals of the members that
// dst (a pointer to a struct) binds to integer fields: an integral literal becomes a plain
// integer (30.0, 3e1 -> 30); a non-integral one is an error naming the member. Member names
// match field names as encoding/json matches them (the tag name, case-insensitively).
func integralMembers(body []byte, dst any) ([]byte, error) {
	t := reflect.TypeOf(dst)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return body, nil
	}
	var ints []string // JSON names of the integer fields
	st := t.Elem()
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if isIntKind(f.Type) {
			ints = append(ints, name)
		}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, errInvalidJSON.New("malformed JSON: %v", err)
	}
	for k, raw := range members {
		if !slices.ContainsFunc(ints, func(n string) bool { return strings.EqualFold(n, k) }) {
			continue
		}
		lit := string(bytes.TrimSpace(raw))
		if lit == "" || (lit[0] != '-' && (lit[0] < '0' || lit[0] > '9')) {
			continue // not a number: the strict decode reports it
		}
		n, integral, ok := canonicalInt(lit)
		switch {
		case !ok:
			continue
		case !integral:
			return nil, errInvalidFieldType.Field(k,
				"field %q must be an integer (a number without a fractional part), got %s", k, truncate(lit, 32))
		case n == "" || len(n) > 20:
			continue // too large for any integer field: the strict decode reports the range
		}
		members[k] = json.RawMessage(n)
	}
	return json.Marshal(members)
}

// canonicalInt reads a JSON number literal exactly (no float rounding): integral reports
// whether its value is an integer, and then n is that integer in plain decimal digits
// (which may be too large for any Go integer type). ok is false for a literal that is not
// a JSON number. Exponents beyond ±1000 are not expanded: a nonzero value with such an
// exponent is reported as integral (too large) or not, and n is left empty.
func canonicalInt(lit string) (n string, integral, ok bool) {
	neg := strings.HasPrefix(lit, "-")
	s := strings.TrimPrefix(lit, "-")
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(expText)
		if err != nil {
			if ne, ok2 := err.(*strconv.NumError); !ok2 || ne.Err != strconv.ErrRange {
				return "", false, false
			}
			e = 1 << 30 // only the sign matters
			if strings.HasPrefix(expText, "-") {
				e = -e
			}
		}
		exp = e
	}
	ip, fp, _ := strings.Cut(mant, ".")
	if ip == "" || strings.Trim(ip+fp, "0123456789") != "" {
		return "", false, false
	}
	digits := strings.TrimLeft(ip+fp, "0")
	point := len(ip) - (len(ip+fp) - len(digits)) + exp // position of the point in digits
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return "0", true, true
	}
	switch {
	case exp > 1000 || exp < -1000:
		return "", point >= len(digits), true
	case point < len(digits):
		return "", false, true
	}
	n = digits + strings.Repeat("0", point-len(digits))
	if neg {
		n = "-" + n
	}
	return n, true, true
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int64", "int32", "int16", "int8", "uint", "uint64", "uint32", "uint16", "uint8":
		return "an integer"
	case "float64", "float32":
		return "a number"
	case "bool":
		return "a boolean"
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "an array"
	}
	return "of another type"
}

// optString is a JSON string member that may be absent or null.
type optString struct {
	Set   bool    // present in the body, null included
	Value *string // nil for null
}

// UnmarshalJSON records presence and accepts a string or null.
func (o *optString) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Value = nil
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	o.Value = &s
	return nil
}

// checkLen enforces a maximum length in characters on an optional string field.
func checkLen(field string, v *string, max int) error {
	if v != nil && utf8.RuneCountInString(*v) > max {
		return errFieldTooLong.Field(field,
			"%s must be at most %d characters (got %d)", field, max, utf8.RuneCountInString(*v))
	}
	return nil
}

// pathUUID returns a path parameter that must be a UUID, in canonical lower-case form.
func pathUUID(c *gin.Context, name string) (string, error) {
	raw := c.Param(name)
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return "", errInvalidPathParameter.Field(name, "%s must be a UUID, got %q", name, truncate(raw, 64))
	}
	return id.String(), nil
}

// pageParams reads pageSize (1..max, default def) and pageCursor.
func pageParams(c *gin.Context, def, max int) (int, string, error) {
	size := def
	if v, ok := c.GetQuery("pageSize"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > max {
			return 0, "", errInvalidQuery.Field("pageSize",
				"pageSize must be an integer from 1 to %d, got %q", max, truncate(v, 32))
		}
		size = n
	}
	cursor := c.Query("pageCursor")
	if len(cursor) > 512 {
		return 0, "", errInvalidPageCursor.Field("pageCursor", "pageCursor is not a cursor this server handed out")
	}
	return size, cursor, nil
}

func pageMeta(next string) map[string]any {
	if next == "" {
		return map[string]any{}
	}
	return map[string]any{"nextPageCursor": next}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s…", s[:n])
}
