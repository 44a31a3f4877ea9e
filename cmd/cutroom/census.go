package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cutroom/cutroom/storage"
)

// The kinds of record a census counts, in the order a summary lists them.
var censusKinds = []string{"workspaces", "apiKeys", "projects", "assets", "exports", "webhookDeliveries", "illustrations"}

// census is what a database holds, read through the reads the server makes: per kind, how
// many records and a digest of them all (their decoded values, a project's and an export's
// state bytes included), so that two databases holding the same records have equal censuses.
type census struct {
	Counts  map[string]int
	digests map[string][][32]byte
}

// add counts one record of kind, digesting v (and the raw bytes that go with it).
func (c *census) add(kind string, v any, raw []byte) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h := sha256.New()
	h.Write(b)
	h.Write([]byte{0})
	h.Write(raw)
	c.Counts[kind]++
	c.digests[kind] = append(c.digests[kind], [32]byte(h.Sum(nil)))
	return nil
}

// differences names the kinds whose counts or records differ between c and o.
func (c census) differences(o census) []string {
	var out []string
	for _, k := range censusKinds {
		a, b := slices.Clone(c.digests[k]), slices.Clone(o.digests[k])
		slices.SortFunc(a, func(x, y [32]byte) int { return slices.Compare(x[:], y[:]) })
		slices.SortFunc(b, func(x, y [32]byte) int { return slices.Compare(x[:], y[:]) })
		switch {
		case c.Counts[k] != o.Counts[k]:
			out = append(out, fmt.Sprintf("%s: %d on the source, %d on the target", k, c.Counts[k], o.Counts[k]))
		case !slices.Equal(a, b):
			out = append(out, fmt.Sprintf("%s: the records differ", k))
		}
	}
	return out
}

// takeCensus reads every workspace (with its credits), API key, project with its state, asset,
// export task with its state and webhook deliveries, and illustration of db, page by page as
// the API reads them; a read that fails is the error.
func takeCensus(db *storage.DB) (census, error) {
	c := census{Counts: map[string]int{}, digests: map[string][][32]byte{}}
	for _, k := range censusKinds {
		c.Counts[k] = 0
	}
	wss, err := db.Workspaces()
	if err != nil {
		return c, fmt.Errorf("workspaces: %w", err)
	}
	for _, ws := range wss {
		bal, limited, err := db.WorkspaceCredits(ws.ID)
		if err != nil {
			return c, fmt.Errorf("workspace %s: credits: %w", ws.ID, err)
		}
		if err := c.add("workspaces", []any{ws, bal, limited}, nil); err != nil {
			return c, err
		}
		if err := censusWorkspace(db, ws.ID, &c); err != nil {
			return c, fmt.Errorf("workspace %s: %w", ws.ID, err)
		}
	}
	keys, err := db.Keys("")
	if err != nil {
		return c, fmt.Errorf("API keys: %w", err)
	}
	for _, k := range keys {
		if err := c.add("apiKeys", k, nil); err != nil {
			return c, err
		}
	}
	ids, err := db.AssetIDs()
	if err != nil {
		return c, fmt.Errorf("assets: %w", err)
	}
	for id := range ids {
		a, err := db.AssetRecord(id)
		if err != nil {
			return c, fmt.Errorf("asset %s: %w", id, err)
		}
		if err := c.add("assets", a, nil); err != nil {
			return c, err
		}
	}
	return c, nil
}

// censusPage is the page size of the census's listings (the API's largest).
const censusPage = 100

// censusWorkspace adds a workspace's projects, exports (with their webhook deliveries) and
// illustrations to c.
func censusWorkspace(db *storage.DB, wsID string, c *census) error {
	for cursor := ""; ; {
		page, next, err := db.ListProjects(wsID, censusPage, cursor)
		if err != nil {
			return fmt.Errorf("projects: %w", err)
		}
		for _, listed := range page {
			p, state, err := db.ProjectWithState(wsID, listed.ID)
			if err != nil {
				return fmt.Errorf("project %s: %w", listed.ID, err)
			}
			if err := c.add("projects", p, state); err != nil {
				return err
			}
		}
		if cursor = next; cursor == "" {
			break
		}
	}
	for cursor := ""; ; {
		page, next, err := db.ListExports(wsID, censusPage, cursor, "")
		if err != nil {
			return fmt.Errorf("exports: %w", err)
		}
		for _, t := range page {
			if err := censusExport(db, wsID, t.ID, c); err != nil {
				return fmt.Errorf("export %s: %w", t.ID, err)
			}
		}
		if cursor = next; cursor == "" {
			break
		}
	}
	ills, err := db.Illustrations(wsID)
	if err != nil {
		return fmt.Errorf("illustrations: %w", err)
	}
	for _, il := range ills {
		if err := c.add("illustrations", []any{wsID, il.Name, il}, nil); err != nil {
			return err
		}
	}
	return nil
}

// censusExport adds an export task, its state and its webhook deliveries to c.
func censusExport(db *storage.DB, wsID, id string, c *census) error {
	t, err := db.ExportTask(wsID, id)
	if err != nil {
		return err
	}
	state, err := db.ExportState(id)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	if err := c.add("exports", t, state); err != nil {
		return err
	}
	hooks, err := db.TaskWebhooks(id)
	if err != nil {
		return fmt.Errorf("webhook deliveries: %w", err)
	}
	for _, d := range hooks {
		if err := c.add("webhookDeliveries", d, nil); err != nil {
			return err
		}
	}
	return nil
}
