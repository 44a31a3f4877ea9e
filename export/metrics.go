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
	// LeaseLost counts a render this node stopped because another node took its task (the
	// lease expired: this node stalled or was cut off from the database).
	LeaseLost()
	// LeaseTakenOver counts a task this node requeued from another node's expired lease.
	LeaseTakenOver()
}

// noMetrics counts nothing.
type noMetrics struct{}

func (noMetrics) ExportCreated()                           {}
func (noMetrics) ExportFinished(string)                    {}
func (noMetrics) RenderEnded(string, time.Duration, int64) {}
func (noMetrics) LeaseLost()                               {}
func (noMetrics) LeaseTakenOver()                          {}
