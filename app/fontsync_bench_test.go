package app

import (
	"context"
	"testing"

	"github.com/cutroom/cutroom/compositor/text"
	"github.com/cutroom/cutroom/internal/pgtest"
	"github.com/cutroom/cutroom/storage"
)

// BenchmarkFontCheck: what the font sync adds to a validate, an export create, a preview or
// a render of a state naming a family: hit is the library's answer alone (a family it has:
// on bbolt, all there is); miss a family the library lacks, with the database's font
// generation read once (it has not moved: nothing is loaded). On bbolt a state whose
// families the library has costs what it did; on PostgreSQL every such state pays the
// miss's read (fontSync.shared).
//
// Measured (2 cores shared with other work, load average 4.2 to 3.9, the whole run 6.6 s
// user and 10.4 s system CPU; medians of 5 runs of 20000): bbolt/hit 102 ns (3 allocs),
// bbolt/miss 1.05 µs (15 allocs), postgres/miss 106 µs (loopback, one round trip).
func BenchmarkFontCheck(b *testing.B) {
	lib, err := text.NewLibrary(text.LibraryOptions{})
	if err != nil {
		b.Fatal(err)
	}
	bolt, err := storage.Open(b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer bolt.Close()
	pg, err := storage.OpenPostgres(context.Background(), pgtest.URL(b), storage.PostgresOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Close()
	for _, c := range []struct {
		name   string
		db     *storage.DB
		family string
	}{{"bbolt/hit", bolt, "Noto Serif"}, {"bbolt/miss", bolt, "No Such Family"}, {"postgres/miss", pg, "No Such Family"}} {
		b.Run(c.name, func(b *testing.B) {
			f := newFontSync(c.db, nil, lib, nil)
			defer f.close()
			gen, err := c.db.FontGeneration()
			if err != nil {
				b.Fatal(err)
			}
			f.synced.Store(gen + 1) // the library holds the database's fonts: no refresh
			fonts := syncedFonts{f}
			want := lib.HasFamily(c.family)
			b.ReportAllocs()
			for b.Loop() {
				if fonts.HasFamily(c.family) != want {
					b.Fatal("the answer changed")
				}
			}
		})
	}
}
