package model

import "time"

// WebhookDelivery is one webhook event waiting in the outbox. Body is the exact JSON body;
// it is signed at delivery time.
type WebhookDelivery struct {
	Seq           uint64            `json:"-"`
	EventID       string            `json:"eventId"`
	EventType     string            `json:"eventType"`
	TaskID        string            `json:"taskId"`
	WorkspaceID   string            `json:"workspaceId"`
	URL           string            `json:"url"`
	Headers       map[string]string `json:"headers,omitempty"`
	Body          []byte            `json:"body"`
	Attempts      int               `json:"attempts"`
	NextAttemptAt time.Time         `json:"nextAttemptAt"`
	CreatedAt     time.Time         `json:"createdAt"`
	LastError     string            `json:"lastError,omitempty"`
}
