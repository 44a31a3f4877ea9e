package app_test

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/apptest"
)

// The App serves frame previews with its renderer and the event stream of its export
// service, and its shutdown ends an open stream instead of waiting for it.
func TestServedPreviewAndEvents(t *testing.T) {
	s := apptest.Serve(t, app.Config{ShutdownGrace: 20 * time.Second}, nil)
	state := `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,` +
		`"tracks":[{"id":"t1","items":["s1"],"hidden":false,"muted":false}],"assets":{},` +
		`"items":{"s1":{"id":"s1","type":"solid","startTicks":0,"durationTicks":240000,"shape":"rectangle","color":"#00ff00",` +
		`"left":{"value":0,"keyframes":[]},"top":{"value":0,"keyframes":[]},"width":{"value":320,"keyframes":[]},"height":{"value":180,"keyframes":[]},` +
		`"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},` +
		`"isDraggingInTimeline":false,"borderRadius":{"value":0,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}},` +
		`"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`
	req, _ := http.NewRequest("POST", s.BaseURL+"/v1/editor/frame", strings.NewReader(`{"editorState":`+state+`,"t":0.5,"format":"png"}`))
	req.Header.Set("x-api-key", s.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !bytes.HasPrefix(body.Bytes(), []byte("\x89PNG")) {
		t.Fatalf("preview: %d %s %.200q", resp.StatusCode, resp.Header.Get("Content-Type"), body.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ = http.NewRequestWithContext(ctx, "GET", s.BaseURL+"/v1/exports/events", nil)
	req.Header.Set("x-api-key", s.Key)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
		}
	}()
	start := time.Now()
	s.Stop()
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("shutdown took %v with a stream open", d)
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end at shutdown")
	}
}
