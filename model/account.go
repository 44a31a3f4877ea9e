package model

import "time"

// Workspace owns API keys, projects, assets and export tasks.
type Workspace struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	RuntimeAccess bool   `json:"runtimeAccess"`
	WebhookSecret string `json:"webhookSecret,omitempty"`
	// Deny60FPS refuses exports at 60 fps (the entitlement is on by default).
	Deny60FPS bool `json:"deny60fps,omitempty"`
	// MaxOutputSide caps the longest side of this workspace's exports in pixels; 0 leaves
	// only the server's own cap.
	MaxOutputSide int       `json:"maxOutputSide,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// APIKey is a stored API key. The secret itself is never stored, only its sha-256.
type APIKey struct {
	ID          string     `json:"id"`
	WorkspaceID string     `json:"workspaceId"`
	Name        string     `json:"name,omitempty"`
	Hint        string     `json:"hint"` // the prefix and the first characters of the secret
	Hash        string     `json:"hash"`
	CreatedAt   time.Time  `json:"createdAt"`
	RevokedAt   *time.Time `json:"revokedAt,omitempty"`
}

// Principal is what an authenticated request acts as.
type Principal struct {
	Key       APIKey
	Workspace Workspace
}
