package server

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
)

// Health answers the readiness probe (GET /readyz); app.App implements it over the
// database, the data dir, the encoders and ffmpeg.
type Health interface {
	Readiness(ctx context.Context) Readiness
}

// Readiness is a readiness probe's outcome: each check's stable status word (never a path
// or an error's text) and the checks that fail. The server is ready when none fails.
type Readiness struct {
	Checks map[string]string `json:"checks"`
	Failed []string          `json:"failed,omitempty"`
	// Database describes the database check, when there is a database.
	Database *DatabaseReadiness `json:"database,omitempty"`
}

// DatabaseReadiness is the database's part of a readiness report: its engine ("bbolt",
// "postgres"), the check's word (as in Checks) and how long the check's round trip took.
type DatabaseReadiness struct {
	Engine string  `json:"engine"`
	Status string  `json:"status"`
	PingMs float64 `json:"pingMs"`
}

// healthBody is the body of /healthz and /readyz.
type healthBody struct {
	Status string `json:"status"`
	Readiness
}

// healthRoutes registers the probes; they need no API key. /healthz answers 200 while the
// process serves requests; /readyz is there when deps.Health is, and answers 200 when every
// check passes, else 503 naming the checks that fail.
func (s *Server) healthRoutes() {
	s.engine.GET("/healthz", func(c *gin.Context) {
		c.Header("Cache-Control", "no-store")
		c.JSON(http.StatusOK, gin.H{"status": "ok"})
	})
	if s.deps.Health == nil {
		return
	}
	s.engine.GET("/readyz", func(c *gin.Context) {
		r := s.deps.Health.Readiness(c.Request.Context())
		status, body := http.StatusOK, healthBody{Status: "ready", Readiness: r}
		if len(r.Failed) > 0 {
			status, body.Status = http.StatusServiceUnavailable, "not_ready"
		}
		c.Header("Cache-Control", "no-store")
		c.JSON(status, body)
	})
}
