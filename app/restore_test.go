package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/apptest"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/storage"
)

// TestRestoredBackupsServe (issue 26): 60 copies of a real backup (a database with every
// kind of record), each with 1 to 8 bytes changed at random places (a fixed seed), are
// restored: each is either refused, or the App starts on it and every read the API serves
// (lists page by page, each project with its state and assets, each asset, each task with
// its webhooks, the illustrations, the metrics) answers, with its keys, without a 5xx.
func TestRestoredBackupsServe(t *testing.T) {
	skipOnPostgres(t, "restores put a bbolt file in place")
	good, facts, err := teststore.Backup(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(26, 60))
	served, refused := 0, 0
	for i := range 61 {
		data := good // the first copy is the backup as it is
		if i > 0 {
			data = teststore.Damage(r, good)
		}
		src := filepath.Join(t.TempDir(), "backup.db")
		if err := os.WriteFile(src, data, 0o600); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, err := storage.Restore(dir, src, storage.Options{}); err != nil {
			if i == 0 {
				t.Fatalf("the backup as it is: %v", err)
			}
			refused++
			continue
		}
		s := apptest.Serve(t, app.Config{DataDir: dir}, nil) // fails the test if the App does not start
		reads := 0
		for _, secret := range facts.Secrets {
			reads += readEverything(t, s.BaseURL, secret)
		}
		if i == 0 && reads < 40 {
			t.Fatalf("the backup as it is served %d reads: not what Populate made", reads)
		}
		s.Stop()
		served++
	}
	t.Logf("of 60 changed copies: %d refused, %d served every read", refused, served-1)
}

// readEverything makes every read of the API with the key secret and returns how many it
// made; any 5xx fails t, and so does a key that no longer works (a restored copy keeps its
// keys, or is refused).
func readEverything(t *testing.T, base, secret string) int {
	n := 0
	get := func(path string) map[string]any {
		n++
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("x-api-key", secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 500 || resp.StatusCode == 401 || resp.StatusCode == 403 {
			t.Errorf("GET %s of a restored backup: %d %s", path, resp.StatusCode, b)
		}
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		return out
	}
	// each calls fn with every item of a list, page by page.
	each := func(path string, fn func(item map[string]any)) {
		for cursor := ""; ; {
			out := get(path + "?pageSize=2&pageCursor=" + url.QueryEscape(cursor))
			items, _ := out["data"].([]any)
			for _, it := range items {
				if m, ok := it.(map[string]any); ok {
					fn(m)
				}
			}
			meta, _ := out["meta"].(map[string]any)
			if cursor, _ = meta["nextPageCursor"].(string); cursor == "" {
				return
			}
		}
	}
	each("/v1/projects", func(p map[string]any) {
		id := fmt.Sprint(p["projectId"])
		get("/v1/projects/" + id)
		each("/v1/projects/"+id+"/assets", func(a map[string]any) { get("/v1/assets/" + fmt.Sprint(a["assetId"])) })
	})
	each("/v1/exports", func(x map[string]any) {
		id := fmt.Sprint(x["taskId"])
		get("/v1/exports/" + id)
		get("/v1/exports/" + id + "/webhooks")
	})
	get("/v1/illustrations?q=logo")
	get("/metrics")
	return n
}
