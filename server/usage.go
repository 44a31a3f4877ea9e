package server

import (
	"net/http"
	"strconv"

	"github.com/cutroom/cutroom/export"
	"github.com/gin-gonic/gin"
)

// UsageReporter reports what a workspace's exports charged per UTC day (*export.Service implements
// it); GET /v1/usage is served when Deps.Exports has it.
type UsageReporter interface {
	Usage(workspaceID string, days int) ([]export.DayUsage, error)
}

// defaultUsageDays is the window of GET /v1/usage without ?days=.
const defaultUsageDays = 30

// getUsage answers GET /v1/usage?days=N: one entry per UTC day, oldest first, ending
// today, and the window's total in meta.
func (s *Server) getUsage(c *gin.Context) {
	days := defaultUsageDays
	if v, ok := c.GetQuery("days"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > export.MaxUsageDays {
			s.fail(c, errInvalidQuery.Field("days", "days must be an integer from 1 to %d, got %q", export.MaxUsageDays, truncate(v, 32)))
			return
		}
		days = n
	}
	out, err := s.deps.Exports.(UsageReporter).Usage(principal(c).Workspace.ID, days)
	if err != nil {
		s.fail(c, err)
		return
	}
	var total int64
	for _, d := range out {
		n, _ := strconv.ParseInt(d.ChargedCredits, 10, 64)
		total += n
	}
	s.ok(c, http.StatusOK, out, map[string]any{"days": days, "chargedCredits": strconv.FormatInt(total, 10)})
}
