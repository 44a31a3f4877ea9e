package model

import "time"

// Asset is an uploaded file's record. The file itself lives on disk under FileKey (see
// package assets); the record commits only after the file is in place.
type Asset struct {
	ID          string `json:"id"`
	WorkspaceID string `json:"workspaceId"`
	// Type is the media kind decided from the bytes: image, gif, video, audio, font, lottie
	// or caption.
	Type string `json:"type"`
	// Source says how the asset came to be; "upload" for POST /v1/uploads.
	Source string `json:"source"`
	// Filename is the caller's file name, sanitised; it is metadata and never a path.
	Filename string `json:"filename"`
	MimeType string `json:"mimeType"`
	Size     int64  `json:"size"`
	// FileKey is the stable key of the stored file, relative to the files area.
	FileKey string `json:"fileKey"`
	// Width, Height (pixels) and Duration (seconds) are nil where they do not apply.
	Width     *int       `json:"width"`
	Height    *int       `json:"height"`
	Duration  *float64   `json:"duration"`
	CreatedAt time.Time  `json:"createdAt"`
	DeletedAt *time.Time `json:"deletedAt,omitempty"`
}
