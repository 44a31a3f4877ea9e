package mediaheader

import (
	"encoding/binary"
	"io"
)

// WAVChunks walks the chunks of a RIFF/WAVE (or RF64) file, reading only their headers: it
// calls onFmt with the fmt chunk's body offset and size, and returns where the data chunk's
// body starts and how many bytes of samples it holds (the ds64 size in RF64; what the file
// holds when the size is unknown, zero or past the end). A file without a fmt chunk before
// its data chunk, or without a data chunk, is CodeInvalid; onFmt's error is returned as it
// is.
func WAVChunks(r io.ReaderAt, size int64, onFmt func(body, n int64) error) (start, length int64, err error) {
	var hdr [12]byte
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return 0, 0, CodeInvalid.New("the WAV header is truncated")
	}
	rf64 := string(hdr[:4]) == "RF64"
	var ds64Data int64 = -1
	haveFmt := false
	off := int64(12)
	for i := 0; i < 1000 && off+8 <= size; i++ {
		var ch [8]byte
		if _, err := r.ReadAt(ch[:], off); err != nil {
			return 0, 0, err
		}
		id, n := string(ch[:4]), int64(binary.LittleEndian.Uint32(ch[4:]))
		body := off + 8
		switch id {
		case "ds64":
			var d [16]byte
			if _, err := r.ReadAt(d[:], body); err == nil {
				ds64Data = int64(binary.LittleEndian.Uint64(d[8:]))
			}
		case "fmt ":
			if err := onFmt(body, n); err != nil {
				return 0, 0, err
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return 0, 0, CodeInvalid.New("the WAV file has no usable fmt chunk before its data")
			}
			data := n
			if rf64 && ds64Data >= 0 && n == 0xffffffff {
				data = ds64Data
			}
			if rest := size - body; data > rest || data == 0 || n == 0xffffffff {
				data = rest // streamed or truncated: what is there
			}
			return body, data, nil
		}
		off = body + n + n&1
	}
	return 0, 0, CodeInvalid.New("the WAV file has no data chunk")
}
