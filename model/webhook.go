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
	// History lists the attempts made, oldest first (at most one per retry of the schedule).
	History []WebhookAttempt `json:"history,omitempty"`
	// DeliveredAt is when a receiver accepted the event (nil while it waits or was given up).
	DeliveredAt *time.Time `json:"deliveredAt,omitempty"`
	// GaveUp is set when the last retry failed (the entry is a dead letter).
	GaveUp bool `json:"gaveUp,omitempty"`
	// ClaimNode and ClaimExpiresAt are the claim of the node making an attempt now: no
	// other node sends the entry until the claim expires (package webhook). The API never
	// shows them.
	ClaimNode      string     `json:"claimNode,omitempty"`
	ClaimExpiresAt *time.Time `json:"claimExpiresAt,omitempty"`
}

// WebhookAttempt is one delivery attempt: when it was made, the receiver's status code (0
// when there was no answer) and the error (empty when it was accepted).
type WebhookAttempt struct {
	At         time.Time `json:"at"`
	StatusCode int       `json:"statusCode,omitempty"`
	Error      string    `json:"error,omitempty"`
}
