package compositor

import "encoding/binary"

// bilinearRow draws an axis-aligned run of an opaque source (every texel's alpha is 255)
// whose quads all lie inside it, at opacity k/256: rows r0 and r1 blended with weight wy
// (0..255), columns from 16.16 sx stepping dsx, laid over d. It gives imageRow's bytes for
// such a source; it is bilinearRowAVX2 on amd64 CPUs with AVX2 and bilinearRowGo elsewhere.
var bilinearRow = bilinearRowGo

// bilinearRowGo is bilinearRow in Go: imageRow, which stores every sample of an opaque
// source at full opacity as it is.
func bilinearRowGo(d, r0, r1 []uint8, sx, dsx int, wy uint64, k uint32) {
	imageRow(d, r0, r1, sx, dsx, wy, k)
}

// bilinearWeights holds, for each horizontal weight wx, the 16-bit lane weights of a texel
// pair: 256-wx four times (left texel), then wx four times (right texel).
var bilinearWeights = func() (t [256][16]byte) {
	for wx := range 256 {
		for j := range 4 {
			binary.LittleEndian.PutUint16(t[wx][2*j:], uint16(256-wx))
			binary.LittleEndian.PutUint16(t[wx][8+2*j:], uint16(wx))
		}
	}
	return t
}()
