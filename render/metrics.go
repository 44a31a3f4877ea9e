package render

import "time"

// Metrics counts what the encode loops do; *metrics.Metrics implements it.
// PipelineConfig.Metrics nil counts nothing.
type Metrics interface {
	// Encoded counts frames handed to an encoder (0 for sound or closing the file) and the
	// time spent in the encoder doing it.
	Encoded(frames int, d time.Duration)
}

// noMetrics counts nothing.
type noMetrics struct{}

func (noMetrics) Encoded(int, time.Duration) {}
