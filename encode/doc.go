// Package encode turns frames into finished video files: H.264 in MP4 and VP9 or VP8 in
// WebM, tagged BT.709 limited range, with exact constant-frame-rate timing. It holds all of
// cutroom's cgo (libx264 through github.com/gen2brain/x264-go/x264c, and a small wrapper of
// its own over libvpx) and imports none of cutroom's other packages.
//
// A Writer takes frames in presentation order, as *I420 (WriteFrame) or *image.RGBA
// (WriteRGBA, converted with RGBAToI420), and writes the file on Close through a temporary
// file in the output directory, a sync and a rename. Media data is spooled to a temporary
// file while encoding, so memory stays bounded however long the video is; Abort removes
// every temporary file.
//
// A remuxing Writer (NewRemuxWriter) takes video that is already encoded (WritePacket, in
// decode order) instead of frames, plus a soundtrack as usual, and writes it through the
// same muxers: segjoin joins segments rendered apart with it, so a joined file has the
// boxes, sample description and colour tags of a Writer that encoded every frame.
//
// Errors: encode never reaches an API client, so it has no error codes. Every error matches
// one sentinel kind (ErrInvalidOptions, ErrUnsupportedFormat, ErrInvalidFrame, ErrClosed,
// ErrEncoder, ErrIO) with errors.Is, and its underlying error if it has one; its text is
// the message alone. The caller that shows errors to someone maps the kinds: package render
// turns them into the task error codes ENCODE_... (see render's package doc).
//
// The Windows build (`make windows`, docs/bundling.md) links the same code against opus,
// vo-aacenc, libjpeg-turbo and libvpx cross-built with mingw-w64 from Debian's sources
// (scripts/windows-libs.sh, static), and H.264 through x264-go's bundled portable C copy
// of x264 (no extlib tag: no x264 to cross-build, at the cost of its assembly, about 2x
// slower H.264; checkX264ABI has nothing to check there).
//
// See README.md in this directory for defaults and build notes.
package encode
