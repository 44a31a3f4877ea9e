// Package export runs export tasks: the pipeline from state to frames to encoder to file, and the scheduler that owns renders.
package export
