package encode

import "testing"

// Probe opens every encoder of the build and closes it again.
func TestProbeOpensEveryEncoder(t *testing.T) {
	if err := Probe(); err != nil {
		t.Fatal(err)
	}
}
