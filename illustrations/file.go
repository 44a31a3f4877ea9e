package illustrations

import (
	"fmt"
	"io"
	"os"
)

// MaxFileBytes caps the SVG file an illustration of a workspace or of the CLI's
// --illustrations directory is read from (the server's image upload cap).
const MaxFileBytes = 50 << 20

// ReadFile reads an illustration's SVG file, refusing one larger than MaxFileBytes
// without reading past the cap.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err == nil && int64(len(b)) > MaxFileBytes {
		err = fmt.Errorf("%s is larger than %d bytes", path, MaxFileBytes)
	}
	return b, err
}
