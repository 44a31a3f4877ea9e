package storage_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/google/uuid"
)

// TestFontGeneration: the font generation changes when a font asset is created or deleted,
// and not when another asset is, on both engines; FontAssets lists the live fonts alone.
func TestFontGeneration(t *testing.T) {
	eachEngine(t, testFontGeneration)
}

func testFontGeneration(t *testing.T, engine string) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	db := storage.OpenEngine(t, engine, func() time.Time { return now })
	ws, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	gen := func() uint64 {
		t.Helper()
		g, err := db.FontGeneration()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	create := func(typ string) model.Asset {
		t.Helper()
		a := model.Asset{ID: uuid.NewString(), WorkspaceID: ws.ID, Type: typ, Filename: "f", CreatedAt: now}
		a.FileKey = "assets/" + ws.ID + "/" + a.ID + "/f"
		if err := db.CreateAsset(a, ""); err != nil {
			t.Fatal(err)
		}
		return a
	}
	remove := func(a model.Asset) {
		t.Helper()
		v, err := db.ReferenceVersion(ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.SoftDeleteAssetIfUnchanged(ws.ID, a.ID, v); err != nil {
			t.Fatal(err)
		}
	}
	g0 := gen()
	img := create("image")
	if g := gen(); g != g0 {
		t.Fatalf("an image upload changed the font generation: %d -> %d", g0, g)
	}
	font := create("font")
	g1 := gen()
	if g1 == g0 {
		t.Fatal("a font upload left the font generation as it was")
	}
	remove(img)
	if g := gen(); g != g1 {
		t.Fatalf("an image delete changed the font generation: %d -> %d", g1, g)
	}
	other := create("font")
	fonts, err := db.FontAssets()
	if err != nil || len(fonts) != 2 || !slices.ContainsFunc(fonts, func(a model.Asset) bool { return a.ID == font.ID }) {
		t.Fatalf("font assets %+v, %v: want the two fonts", fonts, err)
	}
	g2 := gen()
	remove(font)
	if g := gen(); g == g2 {
		t.Fatal("a font delete left the font generation as it was")
	}
	if fonts, err = db.FontAssets(); err != nil || len(fonts) != 1 || fonts[0].ID != other.ID || fonts[0].Type != "font" {
		t.Fatalf("font assets after a delete %+v, %v: want the other font alone", fonts, err)
	}
}
