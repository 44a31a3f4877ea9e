package imagetest_test

import (
	"bytes"
	"testing"

	"github.com/cutroom/cutroom/internal/imagetest"
)

// A noise PNG does not compress (it is larger than its 4wh bytes of pixels) and is the
// same at every call.
func TestNoisePNG(t *testing.T) {
	a, b := imagetest.NoisePNG(t, 64, 32), imagetest.NoisePNG(t, 64, 32)
	if len(a) < 4*64*32 {
		t.Fatalf("%d bytes, want at least %d (noise does not compress)", len(a), 4*64*32)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two calls made different pictures")
	}
}
