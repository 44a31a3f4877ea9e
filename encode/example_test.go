package encode_test

import (
	"image"
	"log"
	"path/filepath"

	"github.com/cutroom/cutroom/encode"
)

// A Writer takes frames in order and produces the file on Close. On any error, Abort
// removes the temporary files (Close does so itself when it fails).
func ExampleWriter() {
	out := filepath.Join("/tmp", "export.mp4")
	w, err := encode.NewWriter(out, encode.Options{Format: "mp4", Width: 1280, Height: 720, FPS: 30})
	if err != nil {
		log.Fatal(err) // matches encode.ErrInvalidOptions, encode.ErrIO, ... (errors.Is)
	}
	frame := image.NewRGBA(image.Rect(0, 0, 1280, 720)) // reused for every frame
	for n := 0; n < 90; n++ {
		// ... render frame n into frame ...
		if err := w.WriteRGBA(frame); err != nil {
			w.Abort()
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
}
