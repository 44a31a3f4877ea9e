package media

import (
	"bytes"
	"image"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/internal/ffmpegtest"
	"github.com/cutroom/cutroom/internal/imagetest"
)

// TestHoldVideoFrameYCbCrColours decodes the first frame of sources with different colour
// tags as I420 at the output size and compares it with ffmpeg's own conversion of the same
// frame to BT.709 limited range through RGB (the RGBA decoder's colours): a BT.601 source
// (tagged smpte170m), an untagged SD one (read as BT.601, as Chromium and the RGBA decoder
// do), a full-range one (yuvj420p), a BT.709 limited one and an untagged 1280x720 one (read
// as BT.709, colour.go), whose planes must come through unchanged when not scaled. Each plane must be at least 38 dB PSNR from the reference
// (the reference's own trip through RGB and back to 4:2:0 costs 39.4 dB in Cr on this
// pattern: the BT.709 planes, unchanged, measure it; the colorspace filter's fast mode
// adds rounding), and for the BT.601 and full-range sources the unconverted planes must
// not be (the check can tell a missing conversion). One source is also asked for at half
// size (the reference scaled with the same bilinear filter).
func TestHoldVideoFrameYCbCrColours(t *testing.T) {
	ff := testFFmpeg(t)
	dir := t.TempDir()
	const w, h = 192, 108
	gen := func(name, vf string, args ...string) {
		ffmpegtest.Make(t, filepath.Join(dir, name), append([]string{"-f", "lavfi", "-i", "testsrc2=s=192x108:r=10:d=1," + vf,
			"-c:v", "libx264", "-qp", "0"}, args...)...)
	}
	gen("601.mp4", "scale=out_color_matrix=bt601:out_range=tv,format=yuv420p", "-pix_fmt", "yuv420p",
		"-colorspace", "smpte170m", "-color_primaries", "smpte170m", "-color_trc", "smpte170m", "-color_range", "tv")
	gen("untagged.mp4", "format=yuv420p", "-pix_fmt", "yuv420p")
	gen("full.mp4", "scale=out_color_matrix=bt601:out_range=pc,format=yuvj420p", "-pix_fmt", "yuvj420p", "-color_range", "pc")
	gen("709.mp4", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p", "-pix_fmt", "yuv420p",
		"-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv")
	ffmpegtest.Make(t, filepath.Join(dir, "untagged-hd.mp4"), "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=10:d=0.2,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
		"-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p")
	// ffmpeg's decode of the first frame: as stored, and through RGB to BT.709 limited
	decode := func(name, vf string, size int) []byte {
		out, err := exec.Command("ffmpeg", "-v", "error", "-i", filepath.Join(dir, name), "-frames:v", "1",
			"-vf", vf, "-f", "rawvideo", "-").Output()
		if err != nil {
			t.Fatalf("decode %s: %v", name, err)
		}
		if len(out) != size {
			t.Fatalf("decode %s: %d bytes", name, len(out))
		}
		return out
	}
	m := Media{Resolve: DirResolver(dir), FFmpeg: ff}
	s := m.NewSession(0)
	defer s.Close()
	for _, c := range []struct {
		file      string
		w, h      int
		converted bool   // the stored planes differ from the BT.709 ones
		matrix    string // what the reference reads the source as, when not its tags
	}{
		{"601.mp4", w, h, true, ""}, {"untagged.mp4", w, h, true, ""}, {"full.mp4", w, h, true, ""},
		{"709.mp4", w, h, false, ""}, {"601.mp4", w / 2, h / 2, true, ""},
		{"untagged-hd.mp4", 1280, 720, false, "bt709"},
	} {
		a := &editor.Asset{ID: c.file, Type: editor.AssetVideo, Filename: c.file}
		img, release, err := s.HoldVideoFrameYCbCr(t.Context(), a, 0, c.w, c.h)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		got := append(append(append([]byte(nil), img.Y...), img.Cb...), img.Cr...)
		release()
		size := "scale=" + strconv.Itoa(c.w) + ":" + strconv.Itoa(c.h) + ":flags=bilinear"
		toRGB := ",format=rgb24"
		if c.matrix != "" {
			toRGB = ",scale=in_color_matrix=" + c.matrix + toRGB
		}
		want := decode(c.file, size+toRGB+",scale=out_color_matrix=bt709:out_range=tv,format=yuv420p", c.w*c.h*3/2)
		stored := decode(c.file, size+",format=yuv420p", c.w*c.h*3/2)
		ny, nc := c.w*c.h, c.w*c.h/4
		planes := [][2]int{{0, ny}, {ny, ny + nc}, {ny + nc, ny + 2*nc}}
		rawWorst, worst := math.Inf(1), math.Inf(1)
		for i, p := range planes {
			db := imagetest.PSNR(want[p[0]:p[1]], got[p[0]:p[1]])
			if db < 38 {
				t.Errorf("%s at %dx%d: plane %d is %.1f dB from ffmpeg's conversion", c.file, c.w, c.h, i, db)
			}
			worst = min(worst, db)
			rawWorst = min(rawWorst, imagetest.PSNR(want[p[0]:p[1]], stored[p[0]:p[1]]))
		}
		t.Logf("%s at %dx%d: worst plane %.1f dB from ffmpeg's conversion (stored planes: %.1f dB)", c.file, c.w, c.h, worst, rawWorst)
		switch {
		case c.converted && rawWorst >= 38:
			t.Errorf("%s: the stored planes are %.1f dB from the conversion: the check cannot tell", c.file, rawWorst)
		case !c.converted && (c.w == w || c.file == "untagged-hd.mp4") && !bytes.Equal(got, stored):
			t.Errorf("%s: the BT.709 limited planes were changed", c.file)
		}
	}
	// The RGBA decoder reads the untagged HD source as BT.709 too (the drawn path's colours
	// agree with the copied one's), not as swscale's default BT.601.
	hd := &editor.Asset{ID: "hd", Type: editor.AssetVideo, Filename: "untagged-hd.mp4"}
	img, err := s.VideoFrame(t.Context(), hd, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"bt709", "bt601"} {
		ref := decode("untagged-hd.mp4", "scale=in_color_matrix="+m+",format=rgb24", 1280*720*3)
		db := imagetest.PSNRRGB(img.(*image.RGBA), ref)
		t.Logf("untagged HD as RGBA: %.1f dB from ffmpeg's %s conversion", db, m)
		if (m == "bt709") != (db >= 45) {
			t.Errorf("untagged HD as RGBA: %.1f dB from ffmpeg's %s conversion", db, m)
		}
	}
	// Frames at another time come from the same decoder, and the RGBA decoder is separate.
	a := &editor.Asset{ID: "709", Type: editor.AssetVideo, Filename: "709.mp4"}
	if _, release, err := s.HoldVideoFrameYCbCr(t.Context(), a, 500*time.Millisecond, w, h); err != nil {
		t.Fatal(err)
	} else {
		release()
	}
	if img, err := s.VideoFrame(t.Context(), a, 0); err != nil || img.Bounds().Dx() != w {
		t.Fatalf("RGBA frame %v, %v", img, err)
	}
	if _, _, err := s.HoldVideoFrameYCbCr(t.Context(), a, 0, 0, h); err == nil {
		t.Error("a frame of width 0 was decoded")
	}
}
