package model

import "time"

// Project is a stored project's metadata. Its editor state is stored apart, byte for byte
// as it was sent (storage.DB.ProjectWithState).
type Project struct {
	ID           string    `json:"id"`
	WorkspaceID  string    `json:"workspaceId"`
	Title        string    `json:"title"`
	Description  *string   `json:"description"`
	StateVersion string    `json:"stateVersion"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}
