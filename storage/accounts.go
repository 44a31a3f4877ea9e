package storage

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"github.com/cutroom/cutroom/model"
	"sort"
	"strings"

	"github.com/google/uuid"
)

// DefaultWorkspaceName is the workspace `cutroom serve` creates on first start.
const DefaultWorkspaceName = "default"

// KeyPrefix starts every API key cutroom issues, so keys are recognisable in configs and
// by secret scanners.
const KeyPrefix = "cutroom_sk_"

// HashKey returns the stored form of an API key secret.
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// NewKeySecret returns a fresh random API key secret with KeyPrefix.
func NewKeySecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return KeyPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

func keyHint(secret string) string {
	if len(secret) > len(KeyPrefix)+6 {
		return secret[:len(KeyPrefix)+6] + "…"
	}
	return KeyPrefix + "…"
}

// WorkspaceInput is what CreateWorkspace and UpdateWorkspace take.
type WorkspaceInput struct {
	Name          string
	RuntimeAccess *bool
	WebhookSecret *string
	Allow60FPS    *bool
	MaxOutputSide *int
}

// apply copies the set members of in onto ws.
func (in WorkspaceInput) apply(ws *model.Workspace) {
	if in.RuntimeAccess != nil {
		ws.RuntimeAccess = *in.RuntimeAccess
	}
	if in.WebhookSecret != nil {
		ws.WebhookSecret = *in.WebhookSecret
	}
	if in.Allow60FPS != nil {
		ws.Deny60FPS = !*in.Allow60FPS
	}
	if in.MaxOutputSide != nil {
		ws.MaxOutputSide = max(0, *in.MaxOutputSide)
	}
}

// CreateWorkspace creates a workspace; names are unique, case-insensitively.
func (db *DB) CreateWorkspace(in WorkspaceInput) (model.Workspace, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" || len(name) > 100 {
		return model.Workspace{}, ErrWorkspaceNameInvalid
	}
	now := db.now().UTC()
	ws := model.Workspace{ID: uuid.NewString(), Name: name, RuntimeAccess: true, CreatedAt: now, UpdatedAt: now}
	in.apply(&ws)
	val, err := json.Marshal(ws)
	if err != nil {
		return model.Workspace{}, err
	}
	err = db.update(func(tx Tx) error {
		names := tx.Bucket(bucketWorkspaceName)
		lk := []byte(strings.ToLower(name))
		if names.Get(lk) != nil {
			return notFound(ErrWorkspaceExists, name)
		}
		if err := names.Put(lk, []byte(ws.ID)); err != nil {
			return err
		}
		return tx.Bucket(bucketWorkspaces).Put([]byte(ws.ID), val)
	})
	return ws, err
}

// UpdateWorkspace changes a workspace's flags; the workspace is named by id or name.
func (db *DB) UpdateWorkspace(ref string, in WorkspaceInput) (model.Workspace, error) {
	var ws model.Workspace
	for attempt := 0; ; attempt++ {
		cur, raw, err := db.workspaceRaw(ref)
		if err != nil {
			return model.Workspace{}, err
		}
		ws = cur
		in.apply(&ws)
		ws.UpdatedAt = db.now().UTC()
		val, err := json.Marshal(ws)
		if err != nil {
			return model.Workspace{}, err
		}
		conflict := false
		err = db.update(func(tx Tx) error {
			conflict = false // the transaction may run again (DB.update)
			b := tx.Bucket(bucketWorkspaces)
			if string(b.Get([]byte(ws.ID))) != string(raw) {
				conflict = true // changed since we read it: read again
				return nil
			}
			return b.Put([]byte(ws.ID), val)
		})
		if err != nil || !conflict || attempt > 5 {
			return ws, err
		}
	}
}

// Workspace returns a workspace by id or by name.
func (db *DB) Workspace(ref string) (model.Workspace, error) {
	ws, _, err := db.workspaceRaw(ref)
	return ws, err
}

func (db *DB) workspaceRaw(ref string) (model.Workspace, []byte, error) {
	var raw []byte
	err := db.view(func(tx Tx) error {
		id := []byte(ref)
		if v := tx.Bucket(bucketWorkspaceName).Get([]byte(strings.ToLower(ref))); v != nil {
			id = v
		}
		raw = copyBytes(tx.Bucket(bucketWorkspaces).Get(id))
		return nil
	})
	if err != nil {
		return model.Workspace{}, nil, err
	}
	if raw == nil {
		return model.Workspace{}, nil, notFound(ErrWorkspaceNotFound, ref)
	}
	var ws model.Workspace
	if err := json.Unmarshal(raw, &ws); err != nil {
		return model.Workspace{}, nil, err
	}
	return ws, raw, nil
}

// Workspaces lists every workspace, by name.
func (db *DB) Workspaces() ([]model.Workspace, error) {
	out, err := allRecords[model.Workspace](db, bucketWorkspaces)
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out, nil
}

// CreateKey issues a new API key for a workspace (by id or name) and returns the stored
// record and the secret, which is not kept and cannot be shown again.
func (db *DB) CreateKey(workspaceRef, name string) (model.APIKey, string, error) {
	secret, err := NewKeySecret()
	if err != nil {
		return model.APIKey{}, "", err
	}
	k, err := db.AddKey(workspaceRef, name, secret)
	return k, secret, err
}

// AddKey stores a caller-chosen secret as an API key of a workspace. Adding a secret that is
// already a live key of that workspace returns the existing record.
func (db *DB) AddKey(workspaceRef, name, secret string) (model.APIKey, error) {
	if len(secret) < 16 || len(secret) > 256 {
		return model.APIKey{}, ErrAPIKeyInvalid
	}
	ws, err := db.Workspace(workspaceRef)
	if err != nil {
		return model.APIKey{}, err
	}
	k := model.APIKey{ID: uuid.NewString(), WorkspaceID: ws.ID, Name: name, Hint: keyHint(secret),
		Hash: HashKey(secret), CreatedAt: db.now().UTC()}
	val, err := json.Marshal(k)
	if err != nil {
		return model.APIKey{}, err
	}
	var existing []byte
	err = db.update(func(tx Tx) error {
		existing = nil // the transaction may run again (DB.update)
		hashes := tx.Bucket(bucketKeyHash)
		if id := hashes.Get([]byte(k.Hash)); id != nil {
			existing = copyBytes(tx.Bucket(bucketKeys).Get(id))
			return nil
		}
		if err := hashes.Put([]byte(k.Hash), []byte(k.ID)); err != nil {
			return err
		}
		return tx.Bucket(bucketKeys).Put([]byte(k.ID), val)
	})
	if err != nil {
		return model.APIKey{}, err
	}
	if existing != nil {
		var old model.APIKey
		if err := json.Unmarshal(existing, &old); err != nil {
			return model.APIKey{}, err
		}
		if old.WorkspaceID != ws.ID || old.RevokedAt != nil {
			return model.APIKey{}, ErrAPIKeyTaken
		}
		return old, nil
	}
	return k, nil
}

// Keys lists the API keys of a workspace (by id or name), or of every workspace when ref
// is empty, oldest first.
func (db *DB) Keys(workspaceRef string) ([]model.APIKey, error) {
	wsID := ""
	if workspaceRef != "" {
		ws, err := db.Workspace(workspaceRef)
		if err != nil {
			return nil, err
		}
		wsID = ws.ID
	}
	all, err := allRecords[model.APIKey](db, bucketKeys)
	if err != nil {
		return nil, err
	}
	var out []model.APIKey
	for _, k := range all {
		if wsID == "" || k.WorkspaceID == wsID {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// RevokeKey revokes an API key by id; revoking twice is harmless.
func (db *DB) RevokeKey(id string) (model.APIKey, error) {
	raw, err := db.read(bucketKeys, []byte(id))
	if err != nil {
		return model.APIKey{}, err
	}
	if raw == nil {
		return model.APIKey{}, notFound(ErrAPIKeyNotFound, id)
	}
	var k model.APIKey
	if err := json.Unmarshal(raw, &k); err != nil {
		return model.APIKey{}, err
	}
	if k.RevokedAt != nil {
		return k, nil
	}
	now := db.now().UTC()
	k.RevokedAt = &now
	val, err := json.Marshal(k)
	if err != nil {
		return model.APIKey{}, err
	}
	err = db.update(func(tx Tx) error {
		if err := tx.Bucket(bucketKeyHash).Delete([]byte(k.Hash)); err != nil {
			return err
		}
		return tx.Bucket(bucketKeys).Put([]byte(k.ID), val)
	})
	return k, err
}

// Authenticate returns the principal of a live API key secret, or ErrAPIKeyNotFound.
func (db *DB) Authenticate(secret string) (model.Principal, error) {
	var keyRaw, wsRaw []byte
	hash := HashKey(secret)
	err := db.view(func(tx Tx) error {
		id := tx.Bucket(bucketKeyHash).Get([]byte(hash))
		if id == nil {
			return nil
		}
		keyRaw = copyBytes(tx.Bucket(bucketKeys).Get(id))
		if keyRaw == nil {
			return nil
		}
		var k struct {
			WorkspaceID string `json:"workspaceId"`
		}
		if err := json.Unmarshal(keyRaw, &k); err != nil {
			return err
		}
		wsRaw = copyBytes(tx.Bucket(bucketWorkspaces).Get([]byte(k.WorkspaceID)))
		return nil
	})
	if err != nil {
		return model.Principal{}, err
	}
	if keyRaw == nil || wsRaw == nil {
		return model.Principal{}, ErrAPIKeyNotFound
	}
	var p model.Principal
	if err := json.Unmarshal(keyRaw, &p.Key); err != nil {
		return model.Principal{}, err
	}
	if err := json.Unmarshal(wsRaw, &p.Workspace); err != nil {
		return model.Principal{}, err
	}
	if p.Key.RevokedAt != nil {
		return model.Principal{}, ErrAPIKeyNotFound
	}
	return p, nil
}

// EnsureDefaultWorkspace returns the default workspace, creating it on first use; created
// reports whether it was new.
func (db *DB) EnsureDefaultWorkspace() (ws model.Workspace, created bool, err error) {
	ws, err = db.Workspace(DefaultWorkspaceName)
	if err == nil {
		return ws, false, nil
	}
	if !errors.Is(err, ErrWorkspaceNotFound) {
		return model.Workspace{}, false, err
	}
	ws, err = db.CreateWorkspace(WorkspaceInput{Name: DefaultWorkspaceName})
	if err != nil {
		if errors.Is(err, ErrWorkspaceExists) {
			ws, err = db.Workspace(DefaultWorkspaceName)
			return ws, false, err
		}
		return model.Workspace{}, false, err
	}
	return ws, true, nil
}
