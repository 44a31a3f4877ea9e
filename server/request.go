package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
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
			return nil, newError(http.StatusRequestTimeout, "BODY_TIMEOUT", "%v; the connection is closed", err)
		}
		return nil, newError(http.StatusBadRequest, "BODY_UNREADABLE", "could not read the request body: %v", err)
	}
	return body, nil
}

// decodeJSON decodes a JSON object body into dst, turning every decoding failure into a 400
// problem that names the field where it can.
func decodeJSON(body []byte, dst any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return newError(http.StatusBadRequest, "BODY_REQUIRED", "a JSON object body is required")
	}
	if trimmed[0] != '{' {
		return newError(http.StatusBadRequest, "INVALID_JSON", "the body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(dst); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			field := te.Field
			return fieldError(http.StatusBadRequest, "INVALID_FIELD_TYPE", field,
				"field %q must be %s, not JSON %s", field, jsonTypeName(te.Type.Kind().String()), te.Value)
		case errors.As(err, &se):
			return newError(http.StatusBadRequest, "INVALID_JSON", "malformed JSON at byte %d: %v", se.Offset, err)
		default:
			return newError(http.StatusBadRequest, "INVALID_JSON", "malformed JSON: %v", err)
		}
	}
	if dec.More() {
		return newError(http.StatusBadRequest, "INVALID_JSON", "unexpected data after the JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return newError(http.StatusBadRequest, "INVALID_JSON", "unexpected data after the JSON object")
	}
	return nil
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int64", "int32", "float64", "float32", "uint", "uint64":
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
		return fieldError(http.StatusUnprocessableEntity, "FIELD_TOO_LONG", field,
			"%s must be at most %d characters (got %d)", field, max, utf8.RuneCountInString(*v))
	}
	return nil
}

// pathUUID returns a path parameter that must be a UUID, in canonical lower-case form.
func pathUUID(c *gin.Context, name string) (string, error) {
	raw := c.Param(name)
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return "", fieldError(http.StatusBadRequest, "INVALID_PATH_PARAMETER", name, "%s must be a UUID, got %q", name, truncate(raw, 64))
	}
	return id.String(), nil
}

// pageParams reads pageSize (1..max, default def) and pageCursor.
func pageParams(c *gin.Context, def, max int) (int, string, error) {
	size := def
	if v, ok := c.GetQuery("pageSize"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > max {
			return 0, "", fieldError(http.StatusBadRequest, "INVALID_QUERY_PARAMETER", "pageSize",
				"pageSize must be an integer from 1 to %d, got %q", max, truncate(v, 32))
		}
		size = n
	}
	cursor := c.Query("pageCursor")
	if len(cursor) > 512 {
		return 0, "", fieldError(http.StatusBadRequest, "INVALID_PAGE_CURSOR", "pageCursor", "pageCursor is not a cursor this server handed out")
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
