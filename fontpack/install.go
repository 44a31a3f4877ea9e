package fontpack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// FontsDir is the fonts directory of a data dir, which the server's font library reads.
func FontsDir(dataDir string) string { return filepath.Join(dataDir, "fonts") }

// stagingDir makes a private directory in the data dir (on the fonts directory's file
// system, so that an install is a rename, but outside it, so that the font library never
// reads a partial family).
func stagingDir(dataDir string) (string, error) {
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return "", err
	}
	return os.MkdirTemp(dataDir, ".fontpack-")
}

// Add fetches families from the catalogue and installs them into dataDir's fonts
// directory, each replacing an earlier install of the same family.
func Add(ctx context.Context, c *Catalogue, dataDir string, families []string, sel Selection) ([]Manifest, error) {
	stage, err := stagingDir(dataDir)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	ms, err := c.Fetch(ctx, families, sel, stage)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	if ms, err = verifyStaged(stage, ids); err != nil {
		return nil, fmt.Errorf("fontpack: %w", err)
	}
	return ms, install(stage, ms, FontsDir(dataDir))
}

// verifyStaged checks the family directories ids of stage (Verify) and returns their
// manifests.
func verifyStaged(stage string, ids []string) ([]Manifest, error) {
	var ms []Manifest
	for _, id := range ids {
		m, err := Verify(filepath.Join(stage, id))
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// install moves the family directories of ms from stage into fontsDir, checked by
// verifyStaged: nothing is installed unless all check out. A family already there is
// replaced: the new directory is renamed into place after the old one is moved aside, so
// the fonts directory holds either.
func install(stage string, ms []Manifest, fontsDir string) error {
	if err := os.MkdirAll(fontsDir, 0o755); err != nil {
		return err
	}
	for _, m := range ms {
		dst := filepath.Join(fontsDir, m.ID)
		old := filepath.Join(stage, ".old-"+m.ID)
		if err := os.Rename(dst, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("fontpack: moving the installed %s aside: %w", m.ID, err)
		}
		if err := os.Rename(filepath.Join(stage, m.ID), dst); err != nil {
			return fmt.Errorf("fontpack: installing %s: %w", m.ID, err)
		}
	}
	return syncDir(fontsDir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Installed returns the manifests of the families installed in dataDir's fonts directory,
// sorted by family, without checking their files (Verify does), and the font files in
// it that no manifest lists (an operator's own, relative to the fonts directory).
func Installed(dataDir string) ([]Manifest, []string, error) {
	dir := FontsDir(dataDir)
	var ms []Manifest
	listed := map[string]bool{}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		if !e.IsDir() || !validID(e.Name()) {
			continue
		}
		var m Manifest
		raw, err := readBounded(filepath.Join(dir, e.Name(), ManifestFile), maxMetaBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			err = json.Unmarshal(raw, &m)
		}
		if err == nil {
			err = m.check(e.Name())
		}
		if err != nil {
			return nil, nil, fmt.Errorf("fontpack: %s: %w", e.Name(), err)
		}
		for _, f := range m.Files {
			listed[filepath.Join(e.Name(), f.Path)] = true
		}
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return strings.ToLower(ms[i].Family) < strings.ToLower(ms[j].Family) })
	var loose []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || fontKind(p) == "" && !strings.EqualFold(filepath.Ext(p), ".ttc") {
			return nil
		}
		if rel, err := filepath.Rel(dir, p); err == nil && !listed[rel] {
			loose = append(loose, rel)
		}
		return nil
	})
	return ms, loose, nil
}

// installedFamily returns the installed family of dataDir a name names (its family name,
// compared without case, or its id).
func installedFamily(dataDir, name string) (Manifest, error) {
	ms, _, err := Installed(dataDir)
	if err != nil {
		return Manifest{}, err
	}
	for _, m := range ms {
		if strings.EqualFold(m.Family, strings.Join(strings.Fields(name), " ")) || m.ID == name {
			return m, nil
		}
	}
	return Manifest{}, fmt.Errorf("fontpack: %q is not installed in %s (cutroom fonts list)", name, FontsDir(dataDir))
}
