package export

import "time"

// Metrics counts the export tasks' lifecycle; *metrics.Metrics implements it. Config.Metrics
// nil counts nothing.
type Metrics interface {
	// ExportCreated counts a new task.
	ExportCreated()
	// ExportFinished counts a task that reached status COMPLETED, FAILED or CANCELED.
	ExportFinished(status string)
	// RenderEnded observes a render whose outcome (COMPLETED or FAILED) was recorded: its
	// wall time and the output's bytes (0 when it failed).
	RenderEnded(status string, d time.Duration, outputBytes int64)
}

// noMetrics counts nothing.
type noMetrics struct{}

func (noMetrics) ExportCreated()                           {}
func (noMetrics) ExportFinished(string)                    {}
func (noMetrics) RenderEnded(string, time.Duration, int64) {}
