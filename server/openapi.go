package server

import (
	_ "embed"
	"net/http"

	"github.com/gin-gonic/gin"
)

// openAPI is the server's own OpenAPI 3.1 description of every route it serves, written
// as data (openapi.json): paths, request and response schemas, the headers, idempotency
// and, per operation, every errorCode it can answer (per status, and all together in
// x-error-codes). The editor state is a $ref to the $id of the schema the editor package
// embeds. openapi_test.go keeps it true: every engine route is described, every described
// path is served, and every request and response of the server's test run is checked
// against it.
//
//go:embed openapi.json
var openAPI []byte

// OpenAPI returns a copy of the OpenAPI description served at GET /v1/openapi.json.
func OpenAPI() []byte { return append([]byte(nil), openAPI...) }

// getOpenAPI serves the description (GET /v1/openapi.json); it needs no API key.
func (s *Server) getOpenAPI(c *gin.Context) {
	c.Header("Cache-Control", "no-cache")
	c.Data(http.StatusOK, "application/json", openAPI)
}
