package main

import (
	"encoding/json"
	neturl "net/url"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/internal/teststore"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
)

// bboltRecords is what a test reads of a bbolt data dir before migrating it: per
// workspace, its projects' states, its live assets and its export tasks.
type bboltRecords struct {
	states  map[string]map[string]string // workspace id -> project id -> state
	assets  map[string][]string          // workspace id -> live asset ids, sorted
	exports map[string]map[string]string // workspace id -> task id -> status
}

func readBBolt(t *testing.T, db *storage.DB) bboltRecords {
	t.Helper()
	r := bboltRecords{states: map[string]map[string]string{}, assets: map[string][]string{}, exports: map[string]map[string]string{}}
	wss, err := db.Workspaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, ws := range wss {
		r.states[ws.ID], r.exports[ws.ID] = map[string]string{}, map[string]string{}
		if err := db.EachProjectState(ws.ID, func(id string, state []byte) error {
			r.states[ws.ID][id] = string(state)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		tasks, _, err := db.ListExports(ws.ID, 100, "", "")
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			r.exports[ws.ID][task.ID] = task.Status
		}
	}
	ids, err := db.AssetIDs()
	if err != nil {
		t.Fatal(err)
	}
	for id := range ids {
		a, err := db.AssetRecord(id)
		if err != nil {
			t.Fatal(err)
		}
		if a.DeletedAt == nil {
			r.assets[a.WorkspaceID] = append(r.assets[a.WorkspaceID], a.ID)
		}
	}
	for _, ids := range r.assets {
		slices.Sort(ids)
	}
	return r
}

// TestMigrateBBoltToPostgres fills a bbolt data dir with every kind of record, migrates it
// into PostgreSQL with `cutroom migrate`, then serves that database with `cutroom serve
// --database` and reads everything back over the API: every live key authenticates, every
// project's state is byte for byte the one stored, the live assets and the export tasks
// are there (finished ones in their status). A second migrate into the same database, and
// a migrate while another process holds the bbolt file, are refused.
func TestMigrateBBoltToPostgres(t *testing.T) {
	url := pgtest.URL(t)
	dir := t.TempDir()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	facts, err := teststore.Populate(db, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := readBBolt(t, db)
	// The file held (here by this process, as a running server holds it): refused.
	out, err := exec.Command(binPath, "migrate", "--from-bbolt", dir, "--to", url).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "in use by a running cutroom server") {
		t.Fatalf("migrate while the file is held: %v\n%s", err, out)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(binPath, "migrate", "--from-bbolt", dir+"/cutroom.db", "--to", url, "--json")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("migrate: %v\n%s%s", err, out, stderr.String())
	}
	var sum migrateSummary
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("migrate --json: %v\n%s", err, out)
	}
	wantCounts := map[string]int{"workspaces": len(want.states), "apiKeys": 2 * len(want.states), "illustrations": len(want.states)}
	for ws := range want.states {
		wantCounts["exports"] += len(want.exports[ws])
	}
	for kind, n := range wantCounts {
		if sum.Counts[kind] != n {
			t.Errorf("migrate counted %d %s, want %d: %s", sum.Counts[kind], kind, n, out)
		}
	}
	if !sum.Verified || sum.Counts["projects"] == 0 || sum.Counts["assets"] == 0 || sum.Counts["webhookDeliveries"] == 0 ||
		sum.Keys == 0 || !strings.Contains(sum.Files, dir) {
		t.Errorf("migrate summary: %s", out)
	}

	// The text summary, into another database, named with a password (the test server
	// trusts loopback): the counts, where the files are, and never the password.
	u2, _ := neturl.Parse(pgtest.URL(t))
	u2.User = neturl.UserPassword(u2.User.Username(), "pw-never-shown-5512")
	out, err = exec.Command(binPath, "migrate", "--from-bbolt", dir, "--to", u2.String()).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "verified") || !strings.Contains(string(out), "stay in "+dir) ||
		!strings.Contains(string(out), "webhookDeliveries") || strings.Contains(string(out), "pw-never-shown-5512") {
		t.Errorf("migrate's summary: %v\n%s", err, out)
	}

	// Again, into the database that now holds the records: refused.
	out, err = exec.Command(binPath, "migrate", "--from-bbolt", dir, "--to", url).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "holds records already") {
		t.Fatalf("second migrate: %v\n%s", err, out)
	}

	// The files stay in the data dir: the node serves it, with the records in PostgreSQL.
	srv := startServer(t, dir, "--database", url)
	for wsID, key := range facts.Secrets {
		for id, state := range want.states[wsID] {
			st, body := call(t, "GET", srv.base+"/v1/projects/"+id, key, "")
			if st != 200 || !strings.Contains(body, `"editorState":`+state) {
				t.Errorf("project %s on postgres: %d %s\nwant the state %s", id, st, body, state)
			}
		}
		st, body := call(t, "GET", srv.base+"/v1/assets?pageSize=50", key, "")
		if got := sortedIDs(body, "assetId"); st != 200 || !slices.Equal(got, want.assets[wsID]) {
			t.Errorf("assets on postgres: %d %v, want %v\n%s", st, got, want.assets[wsID], body)
		}
		st, body = call(t, "GET", srv.base+"/v1/exports?pageSize=50", key, "")
		var list struct {
			Data []struct {
				TaskID string `json:"taskId"`
				Status string `json:"status"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(body), &list); st != 200 || err != nil || len(list.Data) != len(want.exports[wsID]) {
			t.Fatalf("exports on postgres: %d %v %s", st, err, body)
		}
		for _, task := range list.Data {
			was, ok := want.exports[wsID][task.TaskID]
			if !ok || (!model.ActiveStatus(was) && task.Status != was) {
				t.Errorf("export %s on postgres: %s, was %q", task.TaskID, task.Status, was)
			}
		}
	}
}

// sortedIDs are the values of the JSON member name in body, sorted.
func sortedIDs(body, name string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`"`+name+`":"([^"]+)"`).FindAllStringSubmatch(body, -1) {
		if !slices.Contains(ids, m[1]) {
			ids = append(ids, m[1])
		}
	}
	slices.Sort(ids)
	return ids
}

// TestDatabaseFlagRefusals: a --database that is not a PostgreSQL URL, or names a server that
// does not answer within --database-wait, fails at start saying which host, never showing
// the password; restore and the backup route refuse a PostgreSQL database naming its tools.
func TestDatabaseFlagRefusals(t *testing.T) {
	const pw = "pw-never-shown-4921"
	dir := t.TempDir()
	addr := freeAddr(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"workspaces", "list", "--database", "mysql://u:" + pw + "@db/x"}, "postgres:// or postgresql:// URL"},
		{[]string{"keys", "list", "--database", "postgres://u:" + pw + "@" + addr + "/x", "--database-wait", "1s"}, addr},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--database", "postgresql://u:" + pw + "@" + addr + "/x?sslmode=disable", "--database-wait", "1500ms"}, "did not answer within 1.5s"},
		{[]string{"restore", dir + "/x.db", "--database", "postgres://u:" + pw + "@" + addr + "/x"}, "pg_restore"},
		{[]string{"migrate", "--from-bbolt", dir, "--to", "postgres://u:" + pw + "@" + addr + "/x"}, "no such file"},
	} {
		start := time.Now()
		out, err := exec.Command(binPath, append(c.args, "--data-dir", dir)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) || strings.Contains(string(out), pw) {
			t.Errorf("%v: %v (want a failure saying %q, without the password)\n%s", c.args, err, c.want, out)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%v: took %s", c.args, d)
		}
	}
}

// TestBackupOnPostgres: the backup route of a server on PostgreSQL answers 409
// BACKUP_NOT_SUPPORTED naming pg_dump, and `cutroom backup` prints it.
func TestBackupOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	const token = "admin-token-for-the-test-0123"
	// a data dir that does not exist yet: serve makes it, as on bbolt
	srv := startServer(t, t.TempDir()+"/data", "--database", url, "--admin-token", token)
	out, err := exec.Command(binPath, "backup", "-o", t.TempDir()+"/b.db", "--server", srv.base, "--admin-token", token).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "409 BACKUP_NOT_SUPPORTED") || !strings.Contains(string(out), "pg_dump") {
		t.Fatalf("backup: %v\n%s", err, out)
	}
}
