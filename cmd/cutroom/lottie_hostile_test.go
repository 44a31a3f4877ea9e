//go:build linux

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/teststate"
)

// TestHostileLottieKeepsTheServer (issue 26): every hostile Lottie document of the review
// (lottiebudget/testdata/hostile: the numeric-id precomps, negative dashes, a 16000 x 16000
// embedded PNG, a million repeater copies, a polystar roundness of 2^31, an image asset
// read from disk, ...) is sent through each way a tenant reaches rlottie: an upload, an
// export with the document inline, and a frame preview. Each is refused with a 4xx answer
// naming the problem. The documents the budgets let through but that are costly drawn full
// frame (lottie/testdata/costly) are accepted and then stopped by their renderer's limits:
// their tasks fail naming the item, their previews answer within the preview limit. The
// server keeps its PID throughout (rlottie aborted it before), stays ready, and renders a
// normal export afterwards.
func TestHostileLottieKeepsTheServer(t *testing.T) {
	needFFprobe(t)
	srv := startServer(t, t.TempDir(), "--api-key", exportKey, "--max-frame-seconds", "2", "--max-preview-seconds", "2")
	pid := srv.cmd.Process.Pid
	alive := func(when string) {
		t.Helper()
		if srv.cmd.ProcessState != nil || syscall.Kill(pid, 0) != nil {
			t.Fatalf("%s: the server (pid %d) is gone", when, pid)
		}
		if st, body := call(t, "GET", srv.base+"/readyz", "", ""); st != 200 {
			t.Fatalf("%s: /readyz answered %d %s", when, st, body)
		}
	}

	hostile, err := filepath.Glob(filepath.Join(repoRoot, "lottiebudget", "testdata", "hostile", "*.json"))
	if err != nil || len(hostile) < 15 {
		t.Fatalf("hostile documents: %v %v", hostile, err)
	}
	for _, path := range hostile {
		doc := readDoc(t, path)
		name := filepath.Base(path)
		if st, body := uploadDoc(t, srv.base, name, doc); st < 400 || st >= 500 {
			t.Errorf("upload of %s: %d %s, want a 4xx refusal", name, st, body)
		}
		state := teststate.Lottie(doc, 320, 180, 60, 180, 180)
		if st, body := call(t, "POST", srv.base+"/v1/exports", exportKey, exportBody(state)); st != 422 {
			t.Errorf("export of %s: %d %s, want 422", name, st, body)
		}
		if st, body := call(t, "POST", srv.base+"/v1/editor/frame", exportKey, `{"editorState":`+state+`,"t":0.1}`); st < 400 || st >= 500 {
			t.Errorf("preview of %s: %d %s, want a 4xx refusal", name, st, body)
		}
		alive("after " + name)
	}

	costly, err := filepath.Glob(filepath.Join(repoRoot, "lottie", "testdata", "costly", "*.json"))
	if err != nil || len(costly) == 0 {
		t.Fatalf("costly documents: %v %v", costly, err)
	}
	for _, path := range costly {
		name := filepath.Base(path)
		state := teststate.Lottie(readDoc(t, path), 1920, 1080, 0, 1920, 1080)
		start := time.Now()
		st, body := call(t, "POST", srv.base+"/v1/editor/frame", exportKey, `{"editorState":`+state+`,"t":0.1}`)
		if took := time.Since(start); st >= 500 || took > 15*time.Second {
			t.Errorf("preview of %s: %d after %v %s, want an answer within the 2 s limit", name, st, took, body)
		}
		preview := st
		st, body = call(t, "POST", srv.base+"/v1/exports", exportKey, exportBody(state))
		if st != 201 {
			t.Fatalf("export of %s: %d %s", name, st, body)
		}
		var r struct{ Data struct{ TaskID string } }
		_ = json.Unmarshal([]byte(body), &r)
		v := waitEnded(t, srv.base, r.Data.TaskID, 2*time.Minute)
		if v.Status == "FAILED" && !strings.Contains(*v.Error, `item "l1"`) {
			t.Errorf("export of %s failed without naming the item: %s", name, *v.Error)
		}
		t.Logf("%s: preview %d, export %s %s", name, preview, v.Status, deref(v.Error))
		alive("after " + name)
	}

	id := createExport(t, srv.base, longState(1))
	if v := waitEnded(t, srv.base, id, 2*time.Minute); v.Status != "COMPLETED" {
		t.Fatalf("a normal export after the hostile ones: %s %s", v.Status, deref(v.Error))
	}
	alive("at the end")
}

// uploadDoc uploads a Lottie document and returns the answer's status and body.
func uploadDoc(t *testing.T, base, name, doc string) (int, string) {
	t.Helper()
	return postUpload(t, base, name, "application/json", []byte(doc))
}

// waitEnded waits until a task is COMPLETED, FAILED or CANCELED.
func waitEnded(t *testing.T, base, id string, within time.Duration) taskView {
	t.Helper()
	return waitTask(t, base, id, within, func(v taskView) bool {
		return v.Status == "COMPLETED" || v.Status == "FAILED" || v.Status == "CANCELED"
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
