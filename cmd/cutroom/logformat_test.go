package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// serve's --log-format: text is key=value lines, json one object per line; anything else is
// refused before the server starts.
func TestServeLogFormat(t *testing.T) {
	var buf bytes.Buffer
	log, err := newLogger(&buf, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	log.Info("request", "route", "/v1/projects")
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil || line["msg"] != "request" || line["route"] != "/v1/projects" {
		t.Fatalf("json line %q: %v", buf.String(), err)
	}
	buf.Reset()
	if log, err = newLogger(&buf, "info", "text"); err != nil {
		t.Fatal(err)
	}
	log.Info("request", "route", "/v1/projects")
	if !strings.Contains(buf.String(), "msg=request route=/v1/projects") {
		t.Fatalf("text line %q", buf.String())
	}
	if _, err := newLogger(&buf, "info", "xml"); err == nil || !strings.Contains(err.Error(), "--log-format") {
		t.Fatalf("--log-format xml: %v", err)
	}
}
