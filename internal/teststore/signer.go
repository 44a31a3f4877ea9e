package teststore

import (
	"testing"
	"time"

	"github.com/cutroom/cutroom/signedlink"
	"github.com/cutroom/cutroom/storage"
)

// FileLinkSigner is a signer of file links with the database's secret for them, as the App
// builds it: links it signs survive a restart over the same database. now is the signer's
// clock (nil: time.Now).
func FileLinkSigner(t testing.TB, db *storage.DB, now func() time.Time) *signedlink.Signer {
	t.Helper()
	secret, err := db.Secret("file-links", 32)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := signedlink.NewSigner(secret, now)
	if err != nil {
		t.Fatal(err)
	}
	return signer
}
