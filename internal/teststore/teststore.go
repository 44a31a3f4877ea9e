// Package teststore is test support only (imported by _test files): a database with a bit
// of every record storage keeps, made through storage's own operations, and a walk through
// every read the server makes of it, for the backup and restore tests.
package teststore

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/google/uuid"
)

// Facts are what Populate made that a reader needs to find again.
type Facts struct {
	// Secrets are the live API keys' secrets, one per workspace (by workspace id).
	Secrets map[string]string
	// Scopes are the idempotency scopes recorded.
	Scopes []string
	// ClientTaskIDs are the clientTaskIds used, by workspace id.
	ClientTaskIDs map[string][]string
}

// Backup returns a backup (a Snapshot's bytes) of a database in dir that Populate filled,
// and its Facts.
func Backup(dir string) ([]byte, Facts, error) {
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		return nil, Facts{}, err
	}
	defer db.Close()
	f, err := Populate(db, time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	if err != nil {
		return nil, f, err
	}
	snap, err := db.Snapshot()
	if err != nil {
		return nil, f, err
	}
	defer snap.Close()
	var buf bytes.Buffer
	_, err = snap.WriteTo(&buf)
	return buf.Bytes(), f, err
}

// Damage returns a copy of data with 1 to 8 bytes, at places r picks, set to values r
// picks.
func Damage(r *rand.Rand, data []byte) []byte {
	out := bytes.Clone(data)
	for range 1 + r.IntN(8) {
		out[r.IntN(len(out))] = byte(r.Uint32())
	}
	return out
}

// Populate fills db with two workspaces (one with credits and a webhook secret), live and
// revoked API keys, projects (one synced, one deleted) with their states, assets bound,
// unbound and soft-deleted, an illustration, idempotency records, and export tasks in every
// status (one with an output that expires, one purged), whose webhook events wait in the
// outbox, were delivered, or were given up. Times start at now.
func Populate(db *storage.DB, now time.Time) (Facts, error) {
	f := Facts{Secrets: map[string]string{}, ClientTaskIDs: map[string][]string{}}
	p := populator{db: db, now: now.UTC(), f: &f}
	for _, name := range []string{"alpha", "beta"} {
		p.workspace(name)
	}
	return f, p.err
}

// populator makes records until the first error, which it keeps.
type populator struct {
	db  *storage.DB
	now time.Time
	f   *Facts
	err error
	n   int
}

func (p *populator) fail(err error) {
	if p.err == nil && err != nil {
		p.err = err
	}
}

// tick returns a time a second later than the last.
func (p *populator) tick() time.Time {
	p.n++
	return p.now.Add(time.Duration(p.n) * time.Second)
}

func (p *populator) workspace(name string) {
	secret := "whsec-" + name + "-0123456789"
	ws, err := p.db.CreateWorkspace(storage.WorkspaceInput{Name: name, WebhookSecret: &secret})
	if err != nil {
		p.fail(err)
		return
	}
	if name == "alpha" {
		credits := int64(100)
		_, err := p.db.SetWorkspaceCredits(ws.ID, &credits)
		p.fail(err)
	}
	live, secretKey, err := p.db.CreateKey(ws.ID, "live")
	p.fail(err)
	p.f.Secrets[ws.ID] = secretKey
	if old, _, err := p.db.CreateKey(ws.ID, "old"); err == nil {
		_, err = p.db.RevokeKey(old.ID)
		p.fail(err)
	}
	var projects []string
	for i := range 3 {
		id := uuid.NewString()
		at := p.tick()
		var idem *storage.IdempotencyRecord
		if i == 0 {
			scope := "scope-" + id
			idem = &storage.IdempotencyRecord{Scope: scope, RequestHash: "h", Status: 201, Data: []byte(`{"projectId":"` + id + `"}`),
				CreatedAt: at, ExpiresAt: at.Add(24 * time.Hour)}
			p.f.Scopes = append(p.f.Scopes, scope)
		}
		p.fail(p.db.CreateProject(model.Project{ID: id, WorkspaceID: ws.ID, Title: fmt.Sprintf("%s %d", name, i),
			StateVersion: "v1", CreatedAt: at, UpdatedAt: at}, state(i), idem))
		projects = append(projects, id)
	}
	_, err = p.db.SyncProject(ws.ID, projects[1], state(9), "v2")
	p.fail(err)
	var assetIDs []string
	for i := range 3 {
		a := model.Asset{ID: uuid.NewString(), WorkspaceID: ws.ID, Type: "image", Source: "upload", Filename: "a.png",
			MimeType: "image/png", Size: 1000, CreatedAt: p.tick()}
		a.FileKey = "assets/" + ws.ID + "/" + a.ID + "/a.png"
		p.fail(p.db.CreateAsset(a, projects[0]))
		assetIDs = append(assetIDs, a.ID)
		if i == 1 {
			p.fail(p.db.BindAsset(ws.ID, projects[1], a.ID))
		}
	}
	p.fail(p.db.UnbindAsset(ws.ID, projects[0], assetIDs[1]))
	_, err = p.db.PutIllustration(ws.ID, "logo", assetIDs[0])
	p.fail(err)
	if v, err := p.db.ReferenceVersion(ws.ID); err == nil {
		_, err = p.db.SoftDeleteAssetIfUnchanged(ws.ID, assetIDs[2], v)
		p.fail(err)
	}
	p.fail(p.db.DeleteProject(ws.ID, projects[2]))
	p.exports(ws, live, projects[0], name == "alpha")
	_, err = p.db.Secret("link", 32)
	p.fail(err)
}

// state is a small editor state, different for each n.
func state(n int) []byte {
	return fmt.Appendf(nil, `{"compositionWidth":640,"compositionHeight":360,"timebaseTicksPerSecond":240000,`+
		`"tracks":[{"id":"t","items":[],"hidden":false,"muted":false}],"assets":{},"items":{},"transitions":{},"n":%d}`, n)
}

// exports makes a task in every status, their webhook events, and a clientTaskId.
func (p *populator) exports(ws model.Workspace, key model.APIKey, projectID string, credits bool) {
	pool := model.PoolUnlimited
	if credits {
		pool = model.PoolWorkspace
	}
	hook := "http://127.0.0.1:9/hook"
	final := []string{model.StatusPending, model.StatusProcessing, model.StatusPaused, model.StatusCompleted,
		model.StatusCompleted, model.StatusFailed, model.StatusCanceled}
	for i, status := range final {
		t := model.ExportTask{ID: uuid.NewString(), WorkspaceID: ws.ID, CreatedByKeyID: key.ID, Status: model.StatusPending,
			Filename: "out.mp4", Format: "mp4", FPS: 30, Ratio: "16:9", Scale: 1, CompositionWidth: 640, CompositionHeight: 360,
			OutputWidth: 640, OutputHeight: 360, Frames: 30, VideoSeconds: 1, BilledStandardSeconds: 1, ChargedCredits: 1,
			CreditPool: pool, CallbackURL: &hook, CreatedAt: p.tick()}
		if i == 0 {
			client := "client-" + t.ID
			t.ClientTaskID = &client
			p.f.ClientTaskIDs[ws.ID] = append(p.f.ClientTaskIDs[ws.ID], client)
		}
		if i == 1 {
			t.ProjectID = &projectID
		}
		if _, err := p.db.CreateExport(t, state(i), nil, storage.ExportLimits{}); err != nil {
			p.fail(err)
			return
		}
		purged := i == 4
		_, err := p.db.UpdateExport(t.ID, func(t *model.ExportTask) ([]model.WebhookDelivery, error) {
			if status == model.StatusPending {
				return nil, storage.ErrNoChange
			}
			now := p.tick()
			t.Status = status
			switch status {
			case model.StatusCompleted:
				exp := now.Add(72 * time.Hour)
				t.Progress, t.OutputExpiresAt, t.CompletedAt, t.OutputPurged = 100, &exp, &now, purged
			case model.StatusFailed, model.StatusCanceled:
				msg := "EXPORT_FAILED: no"
				t.Error, t.CompletedAt, t.ChargedCredits, t.Refunded = &msg, &now, 0, true
			}
			if model.ActiveStatus(status) {
				return nil, nil
			}
			return []model.WebhookDelivery{{EventID: "evt_" + uuid.NewString(), EventType: "EXPORT_" + status, TaskID: t.ID,
				WorkspaceID: t.WorkspaceID, URL: hook, Body: []byte(`{"taskId":"` + t.ID + `"}`), NextAttemptAt: now, CreatedAt: now}}, nil
		})
		p.fail(err)
	}
	waiting, err := p.db.PendingWebhooks()
	p.fail(err)
	for i, d := range waiting {
		if d.WorkspaceID != ws.ID {
			continue
		}
		now := p.tick()
		d.Attempts, d.History = 1, []model.WebhookAttempt{{At: now, StatusCode: 500, Error: "500"}}
		switch i % 3 {
		case 0:
			d.DeliveredAt = &now
			p.fail(p.db.WebhookSucceeded(d))
		case 1:
			d.GaveUp = true
			p.fail(p.db.WebhookFailed(d, true))
		}
	}
}

// ReadAll makes every read the server makes of a database Populate filled (at its start
// and for the API's reads: keys, workspaces, projects with their states and assets, assets,
// illustrations, export tasks with their states and webhooks, the queues and the indexes),
// page by page, and returns the first error. Records that the database does not hold (a
// restore of a file changed since) are not errors; a failed read is.
func ReadAll(db *storage.DB, f Facts) error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	wss, err := db.Workspaces()
	add(err)
	_, err = db.Keys("")
	add(err)
	for _, ws := range wss {
		if secret, ok := f.Secrets[ws.ID]; ok {
			if _, err := db.Authenticate(secret); err != nil && !errors.Is(err, storage.ErrAPIKeyNotFound) {
				add(err)
			}
		}
		add(readProjects(db, ws.ID))
		add(readExports(db, ws.ID))
		_, err := db.Illustrations(ws.ID)
		add(err)
		_, _, err = db.WorkspaceCredits(ws.ID)
		add(err)
		_, err = db.ReferenceVersion(ws.ID)
		add(err)
		_, err = db.WorkspaceActiveExports(ws.ID)
		add(err)
		for _, c := range f.ClientTaskIDs[ws.ID] {
			_, err := db.ExportByClientTaskID(ws.ID, c)
			add(err)
		}
	}
	for _, s := range f.Scopes {
		_, err := db.Idempotency(s)
		add(err)
	}
	ids, err := db.AssetIDs()
	add(err)
	for id := range ids {
		_, err := db.AssetRecord(id)
		add(err)
	}
	_, err = db.AssetUsage()
	add(err)
	_, err = db.PendingExports(1000)
	add(err)
	_, err = db.ExpiredOutputs(time.Now().Add(1000 * time.Hour))
	add(err)
	_, err = db.PendingWebhooks()
	add(err)
	_, err = db.DeadWebhooks()
	add(err)
	active, err := db.ActiveExports()
	add(err)
	for _, id := range active { // as the export service's start does
		_, err := db.UpdateExport(id, func(*model.ExportTask) ([]model.WebhookDelivery, error) { return nil, storage.ErrNoChange })
		add(err)
	}
	_, err = db.Secret("link", 32)
	add(err)
	return errors.Join(errs...)
}

func readProjects(db *storage.DB, ws string) error {
	for cursor := ""; ; {
		page, next, err := db.ListProjects(ws, 2, cursor)
		if err != nil {
			return fmt.Errorf("list projects: %w", err)
		}
		for _, p := range page {
			if _, _, err := db.ProjectWithState(ws, p.ID); err != nil {
				return err
			}
			for ac := ""; ; {
				_, anext, err := db.ListProjectAssets(ws, p.ID, 1, ac)
				if err != nil {
					return fmt.Errorf("list project assets: %w", err)
				}
				if ac = anext; ac == "" {
					break
				}
			}
		}
		if cursor = next; cursor == "" {
			break
		}
	}
	return db.EachProjectState(ws, func(string, []byte) error { return nil })
}

func readExports(db *storage.DB, ws string) error {
	keys, err := db.Keys(ws)
	if err != nil {
		return err
	}
	for _, by := range append([]string{""}, keyIDs(keys)...) {
		for cursor := ""; ; {
			page, next, err := db.ListExports(ws, 3, cursor, by)
			if err != nil {
				return fmt.Errorf("list exports: %w", err)
			}
			for _, t := range page {
				if _, err := db.ExportTask(ws, t.ID); err != nil {
					return err
				}
				if _, err := db.ExportState(t.ID); err != nil {
					return err
				}
				if _, err := db.TaskWebhooks(t.ID); err != nil {
					return err
				}
			}
			if cursor = next; cursor == "" {
				break
			}
		}
	}
	return nil
}

func keyIDs(keys []model.APIKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.ID
	}
	return out
}
