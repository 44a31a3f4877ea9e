package media

import (
	"os"

	"golang.org/x/sys/unix"
)

// decoderPipeBytes is the capacity asked for a decoder's stdout pipe: a 1080p I420 frame is
// 3 MB, which a default 64 KiB pipe carries in 48 writes and as many reads, each waking the
// other side; 1 MiB (Linux's pipe-max-size by default) takes 3 of each. Measured on the
// 20 s 1080p clip (bench/clip.sh): see bench/README.md.
const decoderPipeBytes = 1 << 20

// growPipe asks for a larger buffer on the pipe f is an end of; a refusal (a lower
// pipe-max-size, or the user's pipe quota spent) leaves the default, which works as well.
func growPipe(f *os.File) {
	c, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = c.Control(func(fd uintptr) {
		_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, decoderPipeBytes)
	})
}
