package media

import (
	"os"

	"golang.org/x/sys/unix"
)

// decoderPipeBytes is the capacity asked for a decoder's stdout pipe: a 1080p I420 frame is
// 3 MB, which a default 64 KiB pipe carries in 48 writes and as many reads, each waking the
// other side; 1 MiB (Linux's pipe-max-size by default) takes 3 of each. The decoder of the
// 20 s 1080p clip of bench/clip.sh and a reader of its frames: 3.19 CPU-s through a 64 KiB
// pipe, 3.15 through 1 MiB (medians of 3; 3.15-3.45 and 3.04-3.15: bench/log/2026.md, issue
// 29). A small gain, within this machine's noise, for one fcntl.
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
