package app

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/diskspace"
	"github.com/cutroom/cutroom/storage"
)

// TestReadinessChecks: the readiness checks themselves (TestHealthAndReadiness serves
// them), over a closed database and a data dir that is not there.
func TestReadinessChecks(t *testing.T) {
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	r := (&readiness{dataDir: filepath.Join(t.TempDir(), "gone"), db: db, space: diskspace.NewGuard(t.TempDir(), 0),
		encoderErr: errors.New("no x264"), ffmpeg: ffmpegUnusable}).Readiness(context.Background())
	if r.Checks["database"] != "unavailable" || r.Checks["dataDir"] != "not_writable" || r.Checks["encoder"] != "unavailable" ||
		r.Checks["ffmpeg"] != "unusable" || strings.Join(r.Failed, ",") != "dataDir,database,encoder" {
		t.Fatalf("%+v", r)
	}
}
