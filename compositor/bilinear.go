package compositor

import "encoding/binary"

// bilinearRow draws an axis-aligned run of an opaque source (every texel's alpha is 255)
// whose quads all lie inside it, at opacity k/256: rows r0 and r1 blended with weight wy
// (0..255), columns from 16.16 sx stepping dsx, laid over d. It gives imageRow's bytes for
// such a source; it is bilinearRowAVX2 on amd64 CPUs with AVX2 and bilinearRowGo elsewhere.
var bilinearRow = bilinearRowGo

// bilinearRowGo is bilinearRow in Go: at full opacity, imageRow without the compositing
// (every sample of an opaque source is opaque, so it is stored as it is); otherwise imageRow.
func bilinearRowGo(d, r0, r1 []uint8, sx, dsx int, wy uint64, k uint32) {
	if k < 256 {
		imageRow(d, r0, r1, sx, dsx, wy, k)
		return
	}
	iy := 256 - wy
	for i := 0; i+4 <= len(d); i += 4 {
		o := (sx >> 16) * 4
		wx := uint64(sx>>8) & 0xff
		sx += dsx
		a := binary.LittleEndian.Uint64(r0[o:])
		b := binary.LittleEndian.Uint64(r1[o:])
		rb := ((a&laneMask)*iy + (b&laneMask)*wy + laneHalf) >> 8 & laneMask
		ga := (((a>>8)&laneMask)*iy + ((b>>8)&laneMask)*wy + laneHalf) >> 8 & laneMask
		l := rb&0xffffffff | ga<<32
		r := rb>>32 | ga>>32<<32
		s := (l*(256-wx) + r*wx + laneHalf) >> 8 & laneMask
		binary.LittleEndian.PutUint32(d[i:], uint32(s&0x00ff00ff)|uint32(s>>32&0x00ff00ff)<<8)
	}
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
