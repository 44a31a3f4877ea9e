package server

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/storage"
	"github.com/gin-gonic/gin"
)

// Every kind maps to the status apierr documents for it (the "// NNN:" comment of its
// constant), no two kinds share a status, and each status has a problem type. The switch in
// statusOf is the only place where a kind becomes a status.
func TestEveryKindHasItsDocumentedStatus(t *testing.T) {
	src, err := os.ReadFile("../apierr/apierr.go")
	if err != nil {
		t.Fatal(err)
	}
	consts := string(src)[strings.Index(string(src), "const (\n\tInternal"):]
	consts = consts[:strings.Index(consts, "\n)")]
	documented := regexp.MustCompile(`(?m)^\t\w+\s.*// (\d{3}):`).FindAllStringSubmatch(consts, -1)
	n := 0
	for !strings.HasPrefix(apierr.Kind(n).String(), "Kind(") {
		n++
	}
	if len(documented) != n || n < 15 {
		t.Fatalf("%d kinds, %d documented statuses", n, len(documented))
	}
	seen := map[int]apierr.Kind{}
	for k := apierr.Kind(0); int(k) < n; k++ {
		want, _ := strconv.Atoi(documented[k][1])
		got := statusOf(k)
		if got != want {
			t.Errorf("kind %s answers %d, documented %d", k, got, want)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("kinds %s and %s both answer %d", other, k, got)
		}
		seen[got] = k
		if problemTypes[got] == "" || http.StatusText(got) == "" {
			t.Errorf("status %d of kind %s has no problem type", got, k)
		}
	}
	if statusOf(apierr.InsufficientStorage) != http.StatusInsufficientStorage || problemTypes[507] != "INSUFFICIENT_STORAGE" {
		t.Error("a full disk (InsufficientStorage) must be 507 INSUFFICIENT_STORAGE")
	}
	if statusOf(apierr.Kind(n)) != http.StatusInternalServerError || statusOf(-1) != http.StatusInternalServerError {
		t.Error("a kind the switch does not know must be 500")
	}
}

// A write that lost every race with other transactions (storage.ErrContention, PostgreSQL
// under load) is 503 SERVER_BUSY with Retry-After, not 500: nothing was written and the
// same request may pass a moment later.
func TestContentionIsServerBusy(t *testing.T) {
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Request = httptest.NewRequest(http.MethodPost, "/v1/exports", nil)
	var logs bytes.Buffer
	err := fmt.Errorf("create export: %w", fmt.Errorf("%w (20 attempts): could not serialize", storage.ErrContention))
	p, retryAfter := problemFor(err, slog.New(slog.NewTextHandler(&logs, nil)), c)
	if p.Status != http.StatusServiceUnavailable || p.ErrorCode != "SERVER_BUSY" || retryAfter != 1 {
		t.Fatalf("answered %d %s, Retry-After %d; want 503 SERVER_BUSY, 1", p.Status, p.ErrorCode, retryAfter)
	}
	if strings.Contains(p.Detail, "serialize") || !strings.Contains(logs.String(), "database contention") {
		t.Fatalf("detail %q, log %q", p.Detail, logs.String())
	}
}
