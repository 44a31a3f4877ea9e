package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestWorkspaceCreditsAndEntitlementsAdmin sets credits and entitlements with the admin
// command and reads them back.
func TestWorkspaceCreditsAndEntitlementsAdmin(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (string, error) {
		out, err := exec.Command(binPath, append(args, "--data-dir", dir)...).CombinedOutput()
		return string(out), err
	}
	if out, err := run("workspaces", "create", "acme"); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	out, err := run("workspaces", "update", "acme", "--credits", "100", "--allow-60fps=false", "--max-output-side", "1920", "--json")
	if err != nil {
		t.Fatalf("update: %v %s", err, out)
	}
	var views []map[string]any
	if err := json.Unmarshal([]byte(out), &views); err != nil || len(views) != 1 {
		t.Fatalf("update output: %v %s", err, out)
	}
	if v := views[0]; v["credits"] != "100" || v["allow60fps"] != false || v["maxOutputSide"] != 1920.0 {
		t.Fatalf("after update: %v", v)
	}
	if out, err := run("workspaces", "update", "acme", "--credits", "-3"); err == nil || !strings.Contains(out, "--credits") {
		t.Fatalf("negative credits accepted: %v %s", err, out)
	}
	out, err = run("workspaces", "update", "acme", "--credits", "unlimited", "--allow-60fps=true", "--json")
	if err != nil {
		t.Fatalf("update: %v %s", err, out)
	}
	_ = json.Unmarshal([]byte(out), &views)
	if v := views[0]; v["credits"] != "unlimited" || v["allow60fps"] != true || v["maxOutputSide"] != 1920.0 {
		t.Fatalf("after second update: %v", v)
	}
	if out, _ := run("workspaces", "list"); !strings.Contains(out, "CREDITS") || !strings.Contains(out, "unlimited") {
		t.Fatalf("list: %s", out)
	}
}

// TestServeExportRoutesRefuseUndrawable: serve registers the export routes, and a state
// naming what the renderer cannot find (here an illustration neither built in nor the
// workspace's) is refused at create, naming it, instead of being queued.
func TestServeExportRoutesRefuseUndrawable(t *testing.T) {
	const key = "cutroom_sk_test-key-for-export-routes"
	srv := startServer(t, t.TempDir(), "--api-key", key)
	st, body := call(t, "GET", srv.base+"/v1/exports", key, "")
	if st != 200 || !strings.Contains(body, `"data":[]`) {
		t.Fatalf("list: %d %s", st, body)
	}
	state := `{"compositionWidth":640,"compositionHeight":360,"timebaseTicksPerSecond":240000,"tracks":[{"id":"t","items":["s"],"hidden":false,"muted":false}],"assets":{},"items":{"s":{"id":"s","type":"illustration","startTicks":0,"durationTicks":240000,"illustrationName":"no-such-illustration","color":"#fff","left":{"value":0,"keyframes":[]},"top":{"value":0,"keyframes":[]},"width":{"value":640,"keyframes":[]},"height":{"value":360,"keyframes":[]},"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},"isDraggingInTimeline":false,"borderRadius":{"value":0,"keyframes":[]},"rotation":{"value":0,"keyframes":[]},"keepAspectRatio":false}},"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`
	st, body = call(t, "POST", srv.base+"/v1/exports", key, `{"editorState":`+state+`,"stateSchemaVersion":"v1","fps":30,"ratio":"16:9","scale":1,"format":"mp4"}`)
	if st != 422 || !strings.Contains(body, "EDITOR_ILLUSTRATION_UNKNOWN") || !strings.Contains(body, `illustration \"no-such-illustration\"`) {
		t.Fatalf("create: %d %s", st, body)
	}
	if st, body = call(t, "GET", srv.base+"/v1/exports/00000000-0000-4000-8000-000000000000", key, ""); st != 404 {
		t.Fatalf("get: %d %s", st, body)
	}
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	if err := srv.cmd.Wait(); err != nil {
		t.Fatalf("graceful shutdown: %v", err)
	}
}
