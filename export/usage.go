package export

import (
	"strconv"
	"time"

	"github.com/cutroom/cutroom/model"
)

// MaxUsageDays is the longest window Usage reports.
const MaxUsageDays = 92

// usagePage is how many tasks Usage reads at a time.
const usagePage = 200

// DayUsage is what one UTC day's exports charged: the tasks created that day, how many of
// them completed, and the credits charged. A task ended FAILED or CANCELED was refunded
// and charges 0 (its chargedCredits); one still running charges what it was debited.
type DayUsage struct {
	Date           string `json:"date"` // YYYY-MM-DD, UTC
	Exports        int    `json:"exports"`
	Completed      int    `json:"completed"`
	ChargedCredits string `json:"chargedCredits"`
}

// Usage returns the credits a workspace's exports charged per UTC day, for the days days
// ending today, oldest first, every day present (zeros included). It reads the
// workspace's tasks newest first, a page at a time, and stops at the first created
// before the window: the cost grows with the tasks of the window, not of all time.
func (s *Service) Usage(workspaceID string, days int) ([]DayUsage, error) {
	days = min(max(days, 1), MaxUsageDays)
	today := s.now().UTC().Truncate(24 * time.Hour)
	start := today.AddDate(0, 0, -(days - 1))
	out := make([]DayUsage, days)
	credits := make([]int64, days)
	for i := range out {
		out[i].Date = start.AddDate(0, 0, i).Format(time.DateOnly)
	}
	cursor := ""
	for {
		ts, next, err := s.store.ListExports(workspaceID, usagePage, cursor, "")
		if err != nil {
			return nil, storeError(err, "")
		}
		for i := range ts {
			t := &ts[i]
			if t.CreatedAt.Before(start) {
				next = ""
				break
			}
			d := int(t.CreatedAt.UTC().Sub(start) / (24 * time.Hour))
			if d >= days { // created after today began: a clock step; counted today
				d = days - 1
			}
			out[d].Exports++
			if t.Status == model.StatusCompleted {
				out[d].Completed++
			}
			credits[d] += t.ChargedCredits
		}
		if cursor = next; cursor == "" {
			break
		}
	}
	for i := range out {
		out[i].ChargedCredits = strconv.FormatInt(credits[i], 10)
	}
	return out, nil
}
