package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/export"
)

// An asset used by an active export cannot be deleted: the export service answers the
// assets store's ActiveExportReferences (export.References) from the tasks' state snapshots.
func TestActiveExportHoldsItsAssets(t *testing.T) {
	e := newExportEnv(t, exportOpts{workers: 1, frameDelay: 100 * time.Millisecond})
	const key = "assets/ws/4f0c1a3e-0000-4000-8000-000000000001/logo.png"
	st := strings.Replace(solidState(640, 360, 20), `"assets":{}`,
		`"assets":{"logo":{"id":"logo","type":"image","filename":"logo.png","size":10,"mimeType":"image/png","width":4,"height":4,"remoteUrl":null,"remoteKey":"`+key+`"}}`, 1)
	id := e.do("POST", "/v1/exports", e.keyA, exportBody(st)).Data()["taskId"].(string)
	ws := wsID(t, e.db, "a")
	ctx := context.Background()
	refs := export.NewReferences(e.db)
	check := func(assetID, fileKey string, want bool) {
		t.Helper()
		got, err := refs.ActiveExportReferences(ctx, ws, assetID, fileKey)
		if err != nil || got != want {
			t.Fatalf("ActiveExportReferences(%s, %s) = %v, %v; want %v", assetID, fileKey, got, err, want)
		}
	}
	check("4f0c1a3e-0000-4000-8000-000000000001", key, true) // by remoteKey
	check("logo", "assets/ws/other/x.png", true)             // by asset id
	check("4f0c1a3e-0000-4000-8000-000000000002", "assets/ws/other/x.png", false)
	if got, _ := refs.ActiveExportReferences(ctx, wsID(t, e.db, "b"), "logo", key); got {
		t.Fatal("another workspace's export holds the asset")
	}
	if r := e.do("DELETE", "/v1/exports/"+id, e.keyA, nil); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	check("logo", key, false) // a canceled task holds nothing
}
