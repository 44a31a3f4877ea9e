package compositor

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// randomRows returns two source rows of w random opaque RGBA texels.
func randomRows(rng *rand.Rand, w int) (r0, r1 []uint8) {
	r0, r1 = make([]uint8, 4*w), make([]uint8, 4*w)
	for i := range r0 {
		r0[i], r1[i] = uint8(rng.Uint32()), uint8(rng.Uint32())
		if i%4 == 3 {
			r0[i], r1[i] = 255, 255
		}
	}
	return r0, r1
}

// TestBilinearRowMatchesGo checks the row function in use (bilinearRowAVX2 on amd64 CPUs
// with AVX2, see TestBilinearRowUsesAVX2) against imageRow on random runs of opaque sources.
func TestBilinearRowMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		w := 2 + rng.IntN(300)
		r0, r1 := randomRows(rng, w)
		// a run whose quads stay inside: columns sx>>16 .. < w-1
		dsx := 1 + rng.IntN(4<<16)
		sx := rng.IntN((w - 1) << 16)
		n := ((w-1)<<16 - 1 - sx) / dsx // pixels after the first that stay inside
		n = 1 + rng.IntN(n+1)
		wy := uint64(rng.IntN(256))
		k := uint32(256)
		if rng.IntN(2) == 0 {
			k = uint32(rng.IntN(257))
		}
		want := make([]uint8, 4*n)
		for i := range want {
			want[i] = uint8(rng.Uint32())
			if i%4 == 3 { // a premultiplied destination: alpha at least every channel
				want[i] = max(want[i-1], want[i-2], want[i-3], want[i])
			}
		}
		got := append([]uint8(nil), want...)
		bilinearRowGo(want, r0, r1, sx, dsx, wy, k)
		bilinearRow(got, r0, r1, sx, dsx, wy, k)
		if !bytes.Equal(got, want) {
			t.Fatalf("w %d sx %d dsx %d wy %d k %d n %d: pixels differ from the Go version", w, sx, dsx, wy, k, n)
		}
	}
}

// benchRow640 measures row drawing 640 pixels of a 2:3 reduction from rows of
// spanSource, as the picture drawing's inner loop does.
func benchRow640(b *testing.B, row func(d, r0, r1 []uint8, sx, dsx int, wy uint64, k uint32)) {
	src := spanSource(true)
	d := make([]uint8, 640*4)
	r0, r1 := src.Pix[100*src.Stride:], src.Pix[101*src.Stride:]
	for b.Loop() {
		row(d, r0, r1, 1<<16, 98304, 77, 256)
	}
}

func BenchmarkBilinearRow640(b *testing.B) { benchRow640(b, bilinearRow) }

func BenchmarkImageRow640(b *testing.B) { benchRow640(b, imageRow) }
