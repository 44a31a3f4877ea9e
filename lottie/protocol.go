package lottie

import "encoding/binary"

// The renderer protocol: the parent writes one request at a time on the socket and reads
// one reply. Requests and replies are fixed-size little-endian records; bulk data (the
// document, the frame's pixels) goes through the shared memory file, whose size the parent
// alone sets.
const (
	opLoad   = 1 // a: the document's length in the shared memory (NUL-terminated after it)
	opRender = 2 // a: frame, b: width, c: height; the frame is written at the start of the
	// shared memory as rlottie's premultiplied ARGB32 words, rows of 4*width bytes

	stOK      = 1
	stRefused = 2          // rlottie cannot parse the document
	stHello   = 0x6c6f7474 // the renderer's first reply, once confined: "lott"

	requestSize = 32
	replySize   = 32
)

// message is a request (op, a, b, c) or a reply (status and three values).
type message struct {
	op      uint64
	a, b, c uint64
}

func (m message) encode() [requestSize]byte {
	var b [requestSize]byte
	binary.LittleEndian.PutUint64(b[0:], m.op)
	binary.LittleEndian.PutUint64(b[8:], m.a)
	binary.LittleEndian.PutUint64(b[16:], m.b)
	binary.LittleEndian.PutUint64(b[24:], m.c)
	return b
}

func decode(b []byte) message {
	return message{op: binary.LittleEndian.Uint64(b[0:]), a: binary.LittleEndian.Uint64(b[8:]),
		b: binary.LittleEndian.Uint64(b[16:]), c: binary.LittleEndian.Uint64(b[24:])}
}

// The renderer's exit codes of its own (a Go runtime crash exits 2, a signal kills it).
const (
	exitCPU      = 3 // SIGXCPU: the CPU time of one request ran out
	exitConfine  = 4 // a limit could not be applied: it refuses to run
	exitProtocol = 5 // a request it does not understand
)
