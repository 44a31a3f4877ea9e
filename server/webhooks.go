package server

import (
	"net/http"

	"github.com/cutroom/cutroom/model"
	"github.com/gin-gonic/gin"
)

// Webhooks reads the webhook deliveries of a task; *storage.DB implements it. nil leaves
// GET /v1/exports/{taskId}/webhooks unregistered.
type Webhooks interface {
	TaskWebhooks(taskID string) ([]model.WebhookDelivery, error)
}

// webhookView is one webhook event of a task as GET /v1/exports/{taskId}/webhooks shows it:
// never its headers (they may carry the caller's secrets) or body.
type webhookView struct {
	EventID       string        `json:"eventId"`
	EventType     string        `json:"eventType"`
	URL           string        `json:"url"`
	Status        string        `json:"status"`
	CreatedAt     string        `json:"createdAt"`
	Attempts      []attemptView `json:"attempts"`
	NextAttemptAt *string       `json:"nextAttemptAt"`
	DeliveredAt   *string       `json:"deliveredAt"`
	LastError     *string       `json:"lastError"`
}

type attemptView struct {
	At         string  `json:"at"`
	StatusCode *int    `json:"statusCode"`
	Error      *string `json:"error"`
}

// Webhook delivery statuses.
const (
	webhookPending   = "PENDING"   // waiting for its next attempt
	webhookDelivered = "DELIVERED" // a receiver answered 2xx
	webhookFailed    = "FAILED"    // given up after the last retry
)

func viewWebhook(d *model.WebhookDelivery) webhookView {
	v := webhookView{EventID: d.EventID, EventType: d.EventType, URL: d.URL, CreatedAt: model.Timestamp(d.CreatedAt),
		Attempts: []attemptView{}}
	for _, a := range d.History {
		av := attemptView{At: model.Timestamp(a.At)}
		if a.StatusCode != 0 {
			sc := a.StatusCode
			av.StatusCode = &sc
		}
		if a.Error != "" {
			e := a.Error
			av.Error = &e
		}
		v.Attempts = append(v.Attempts, av)
	}
	if d.LastError != "" {
		e := d.LastError
		v.LastError = &e
	}
	switch {
	case d.DeliveredAt != nil:
		v.Status = webhookDelivered
		at := model.Timestamp(*d.DeliveredAt)
		v.DeliveredAt = &at
	case d.GaveUp:
		v.Status = webhookFailed
	default:
		v.Status = webhookPending
		next := model.Timestamp(d.NextAttemptAt)
		v.NextAttemptAt = &next
	}
	return v
}

// getTaskWebhooks answers GET /v1/exports/{taskId}/webhooks: the task's webhook events and
// their delivery attempts, oldest first (an empty list for a task without callbackUrl).
func (s *Server) getTaskWebhooks(c *gin.Context) {
	id, err := taskIDParam(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	task, err := s.deps.Exports.Task(principal(c).Workspace.ID, id)
	if err != nil {
		s.fail(c, err)
		return
	}
	ds, err := s.deps.Webhooks.TaskWebhooks(task.TaskID)
	if err != nil {
		s.fail(c, err)
		return
	}
	out := make([]webhookView, 0, len(ds))
	for i := range ds {
		out = append(out, viewWebhook(&ds[i]))
	}
	s.ok(c, http.StatusOK, out, nil)
}
