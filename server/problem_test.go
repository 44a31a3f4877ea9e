package server_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/testlog"
	"github.com/cutroom/cutroom/server"
)

// An error that carries no kind (here: the database is closed under the server, so storage
// fails with its engine's own error: bbolt's, or pgx's closed pool) is a logged 500
// INTERNAL_ERROR whose body tells nothing of it.
func TestErrorWithoutKindIsLoggedInternal(t *testing.T) {
	var logs testlog.Buffer
	e := newEnv(t, func(c *server.Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	if r := e.do("GET", "/v1/projects", e.keyA, nil); r.Status != 200 { // works while the database is open
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if err := e.db.Close(); err != nil {
		t.Fatal(err)
	}
	r := e.do("GET", "/v1/projects", e.keyA, nil)
	p := r.Problem(500, "INTERNAL_ERROR")
	if p["detail"] != "an internal error occurred; it has been logged" || p["type"] != "INTERNAL_ERROR" || p["title"] != "Internal Server Error" {
		t.Fatalf("%s", r.Body)
	}
	if _, ok := p["field"]; ok || strings.Contains(strings.ToLower(string(r.Body)), "database") {
		t.Fatalf("the body shows internals: %s", r.Body)
	}
	cause := map[string]string{"bbolt": "database not open", "postgres": "closed pool"}[e.db.Engine()]
	if l := logs.String(); !strings.Contains(l, "internal error") || !strings.Contains(l, cause) || !strings.Contains(l, "/v1/projects") {
		t.Fatalf("the error was not logged with its cause and route:\n%s", l)
	}
}
