package app_test

import (
	"bufio"
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/apptest"
	"github.com/cutroom/cutroom/internal/testlog"
	"github.com/cutroom/cutroom/internal/teststate"
	"github.com/cutroom/cutroom/server"
)

// greenState is a 320x180 state, green for one second.
const greenState = `{"compositionWidth":320,"compositionHeight":180,"timebaseTicksPerSecond":240000,` +
	`"tracks":[{"id":"t1","items":["s1"],"hidden":false,"muted":false}],"assets":{},` +
	`"items":{"s1":{"id":"s1","type":"solid","startTicks":0,"durationTicks":240000,"shape":"rectangle","color":"#00ff00",` +
	`"left":{"value":0,"keyframes":[]},"top":{"value":0,"keyframes":[]},"width":{"value":320,"keyframes":[]},"height":{"value":180,"keyframes":[]},` +
	`"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},` +
	`"isDraggingInTimeline":false,"borderRadius":{"value":0,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}},` +
	`"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`

// The App serves frame previews with its renderer and the event stream of its export
// service, and its shutdown ends an open stream instead of waiting for it.
func TestServedPreviewAndEvents(t *testing.T) {
	s := apptest.Serve(t, app.Config{ShutdownGrace: 20 * time.Second}, nil)
	req, _ := http.NewRequest("POST", s.BaseURL+"/v1/editor/frame", strings.NewReader(`{"editorState":`+greenState+`,"t":0.5,"format":"png"}`))
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

// TestPreviewClientGone (issue 26): a client that gives up on a preview while it draws (a
// frame of 3,000 rotated, see-through solids, seconds of drawing) stops the drawing; the
// request is logged at info as "client closed request" with status 499, not as an internal
// error or a 500, and the workspace's one preview slot is free again at once.
func TestPreviewClientGone(t *testing.T) {
	var logs testlog.Buffer
	s := apptest.Serve(t, app.Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Server: server.Config{MaxPreviews: 1}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.BaseURL+"/v1/editor/frame",
		strings.NewReader(`{"editorState":`+teststate.ManySolids(3000)+`,"t":0.5}`))
	req.Header.Set("x-api-key", s.Key)
	answered := make(chan string, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- ""
			return
		}
		resp.Body.Close()
		answered <- resp.Status
	}()
	time.Sleep(time.Second) // the body is read and checked; the frame draws
	cancel()
	if st := <-answered; st != "" {
		t.Fatalf("the preview answered %s before the client went away: too light to test", st)
	}
	gone := time.Now()
	for !strings.Contains(logs.String(), `"status":499`) {
		if time.Since(gone) > 10*time.Second {
			t.Fatalf("no request line with status 499 in the log:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("logged %v after the client went away", time.Since(gone))
	if r := call(t, s, "POST", "/v1/editor/frame", []byte(`{"editorState":`+greenState+`,"t":0.5}`)); r.status != 200 {
		t.Errorf("the next preview: %d %s (the slot is still taken?)", r.status, r.body)
	}
	out := logs.String()
	if !strings.Contains(out, `"level":"INFO","msg":"client closed request"`) {
		t.Errorf(`no info line "client closed request":%s`, out)
	}
	if strings.Contains(out, "internal error") || strings.Contains(out, `"status":500`) || strings.Contains(out, `"level":"ERROR"`) {
		t.Errorf("a client that went away was logged as an error:\n%s", out)
	}
}
