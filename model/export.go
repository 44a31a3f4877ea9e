package model

import "time"

// Export task statuses, as the API shows them.
const (
	StatusPending    = "PENDING"
	StatusProcessing = "PROCESSING"
	StatusPaused     = "PAUSED"
	StatusCompleted  = "COMPLETED"
	StatusFailed     = "FAILED"
	StatusCanceled   = "CANCELED"
)

// ActiveStatus reports whether a status counts against the concurrency limit.
func ActiveStatus(s string) bool {
	return s == StatusPending || s == StatusProcessing || s == StatusPaused
}

// Credit pools an export can be charged to.
const (
	// PoolWorkspace: the workspace has a credit balance and the charge was debited from it.
	PoolWorkspace = "workspace"
	// PoolUnlimited: the workspace has no balance set (unlimited credits); nothing was debited.
	PoolUnlimited = "unlimited"
)

// ExportTask is an export task as it is stored. Its editor state snapshot is stored apart,
// byte for byte (storage.DB.ExportState).
type ExportTask struct {
	ID                    string            `json:"id"`
	WorkspaceID           string            `json:"workspaceId"`
	ProjectID             *string           `json:"projectId"`
	CreatedByKeyID        string            `json:"createdByApiKeyId"`
	ClientTaskID          *string           `json:"clientTaskId"`
	Status                string            `json:"status"`
	Phase                 string            `json:"phase,omitempty"`
	Progress              float64           `json:"progress"`
	Error                 *string           `json:"error"`
	Filename              string            `json:"filename"`
	Format                string            `json:"format"`
	FPS                   int               `json:"fps"`
	Ratio                 string            `json:"ratio"`
	Scale                 float64           `json:"scale"`
	CompositionWidth      int               `json:"compositionWidth"`
	CompositionHeight     int               `json:"compositionHeight"`
	OutputWidth           int               `json:"outputWidth"`
	OutputHeight          int               `json:"outputHeight"`
	Frames                int64             `json:"frames"`
	VideoSeconds          float64           `json:"videoSeconds"`
	StateVersion          string            `json:"stateVersion,omitempty"`
	BilledStandardSeconds int64             `json:"billedStandardSeconds"`
	ChargedCredits        int64             `json:"chargedCredits"`
	CreditPool            string            `json:"creditPool"`
	Refunded              bool              `json:"refunded,omitempty"`
	CallbackURL           *string           `json:"callbackUrl"`
	CallbackHeaders       map[string]string `json:"callbackHeaders,omitempty"`
	CreatedAt             time.Time         `json:"createdAt"`
	StartedAt             *time.Time        `json:"startedAt,omitempty"`
	CompletedAt           *time.Time        `json:"completedAt"`
	RenderSeconds         float64           `json:"renderSeconds"`
	OutputExpiresAt       *time.Time        `json:"outputExpiresAt,omitempty"`
	OutputPurged          bool              `json:"outputPurged,omitempty"`
	// Attempts counts the renders started (persisted with the claim, before the render
	// runs); Crashes counts those a crash interrupted: the task was found PROCESSING at a
	// start (a graceful stop records PAUSED instead).
	Attempts int `json:"attempts"`
	Crashes  int `json:"crashes,omitempty"`
	// LeaseNode and LeaseExpiresAt are the lease of a PROCESSING task: the node rendering it
	// holds it until then, renewing it while it renders (package export, leases.go). The
	// API never shows them.
	LeaseNode      string     `json:"leaseNode,omitempty"`
	LeaseExpiresAt *time.Time `json:"leaseExpiresAt,omitempty"`
	// Warnings are what the render draws other than the state says, found at create (a
	// font family no font provides).
	Warnings []Warning `json:"warnings,omitempty"`
}

// Warning is a task's warning, shaped as a validation issue: a stable code, the JSON
// pointer into the editor state and a message.
type Warning struct {
	Code    string `json:"code"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Active reports whether the task counts against the concurrency limit.
func (t *ExportTask) Active() bool { return ActiveStatus(t.Status) }

// OutputServed reports whether the task's output is served at now: COMPLETED, its link
// not expired and its file not purged.
func (t *ExportTask) OutputServed(now time.Time) bool {
	return t.Status == StatusCompleted && !t.OutputPurged && t.OutputExpiresAt != nil && now.Before(*t.OutputExpiresAt)
}
