package model

import "time"

// Timestamp formats t the way every record and response does: RFC 3339, UTC, milliseconds.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
