package mediaheader_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/jpeg"
	"testing"

	"github.com/cutroom/cutroom/mediaheader"
)

// jpegWithOrientation encodes a small JPEG and inserts an APP1 Exif segment whose IFD0 has
// the orientation tag (big-endian TIFF) right after the SOI marker.
func jpegWithOrientation(t *testing.T, o uint16) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 8, 4)), nil); err != nil {
		t.Fatal(err)
	}
	tiff := []byte("MM\x00\x2a\x00\x00\x00\x08\x00\x01")
	tiff = binary.BigEndian.AppendUint16(tiff, 0x0112)
	tiff = binary.BigEndian.AppendUint16(tiff, 3) // SHORT
	tiff = binary.BigEndian.AppendUint32(tiff, 1)
	tiff = binary.BigEndian.AppendUint16(tiff, o)
	tiff = append(tiff, 0, 0, 0, 0, 0, 0) // padding, no next IFD
	seg := append([]byte("Exif\x00\x00"), tiff...)
	app1 := binary.BigEndian.AppendUint16([]byte{0xff, 0xe1}, uint16(len(seg)+2))
	b := buf.Bytes()
	return append(append(append([]byte{}, b[:2]...), append(app1, seg...)...), b[2:]...)
}

func TestJPEGOrientation(t *testing.T) {
	for o := uint16(1); o <= 8; o++ {
		if got := mediaheader.JPEGOrientation(bytes.NewReader(jpegWithOrientation(t, o))); got != int(o) {
			t.Errorf("orientation %d read as %d", o, got)
		}
	}
	var plain bytes.Buffer
	if err := jpeg.Encode(&plain, image.NewGray(image.Rect(0, 0, 8, 4)), nil); err != nil {
		t.Fatal(err)
	}
	tagged := jpegWithOrientation(t, 6)
	for name, b := range map[string][]byte{"no exif": plain.Bytes(), "cut in the exif": tagged[:20], "not a jpeg": []byte("\x89PNG"),
		"orientation 9": jpegWithOrientation(t, 9)} {
		if got := mediaheader.JPEGOrientation(bytes.NewReader(b)); got != 1 {
			t.Errorf("%s: orientation %d, want 1", name, got)
		}
	}
}

// wav builds a RIFF/WAVE file of the given chunks (id, body).
func wav(chunks ...[2]string) []byte {
	b := []byte("RIFF\x00\x00\x00\x00WAVE")
	for _, c := range chunks {
		b = append(b, c[0]...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(c[1])))
		b = append(b, c[1]...)
		if len(c[1])%2 == 1 {
			b = append(b, 0)
		}
	}
	return b
}

func TestWAVChunks(t *testing.T) {
	fmtBody := string(make([]byte, 16))
	b := wav([2]string{"LIST", "abc"}, [2]string{"fmt ", fmtBody}, [2]string{"data", "12345678"})
	var fmtAt, fmtLen int64
	start, n, err := mediaheader.WAVChunks(bytes.NewReader(b), int64(len(b)), func(body, n int64) error {
		fmtAt, fmtLen = body, n
		return nil
	})
	if err != nil || start != int64(len(b))-8 || n != 8 || fmtAt != 12+8+4+8 || fmtLen != 16 {
		t.Fatalf("chunks: data at %d, %d bytes, fmt at %d, %d bytes, %v", start, n, fmtAt, fmtLen, err)
	}
	// A data chunk that claims more than the file holds is what the file holds.
	cut := b[:len(b)-3]
	if _, n, err := mediaheader.WAVChunks(bytes.NewReader(cut), int64(len(cut)), func(int64, int64) error { return nil }); err != nil || n != 5 {
		t.Fatalf("truncated data: %d bytes, %v", n, err)
	}
	// onFmt's error comes back as it is.
	stop := errors.New("stop")
	if _, _, err := mediaheader.WAVChunks(bytes.NewReader(b), int64(len(b)), func(int64, int64) error { return stop }); err != stop {
		t.Fatalf("onFmt's error: %v", err)
	}
	for name, c := range map[string]struct {
		file []byte
		want string
	}{
		"data first": {wav([2]string{"data", "1234"}, [2]string{"fmt ", fmtBody}), "the WAV file has no usable fmt chunk before its data"},
		"no data":    {wav([2]string{"fmt ", fmtBody}), "the WAV file has no data chunk"},
		"too short":  {[]byte("RIFF"), "the WAV header is truncated"},
	} {
		_, _, err := mediaheader.WAVChunks(bytes.NewReader(c.file), int64(len(c.file)), func(int64, int64) error { return nil })
		if !mediaheader.CodeInvalid.Is(err) || err.Error() != c.want {
			t.Errorf("%s: %v, want ASSET_INVALID %q", name, err, c.want)
		}
	}
}
