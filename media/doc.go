// Package media decodes the files of editor assets for rendering: still images, GIFs and
// SVG sources in pure Go, video frames and compressed sound through ffmpeg child
// processes, and WAV, MP3, FLAC and Ogg Vorbis sound in Go.
//
// Decision: a package of its own, apart from the asset store (package assets). The two
// halves have different callers: the store takes uploads, probes and links them for the
// server and the export service; media decodes for the renderer (render's pipeline, the
// App's frame previews, `cutroom export`, cluster workers). Neither imports the other, so
// the renderer's side never links the store (nor, through it, the database). What both
// read lives in the leaf mediaheader (a JPEG's EXIF orientation, a WAV file's chunks). A
// Resolver is an alias of its function type in both packages, so the store's resolvers
// (Store.Resolve, assets.Prefetch) are the media's as they are. The errors keep the API
// codes they always had (ASSET_NOT_FOUND, ASSET_INVALID, IMAGE_TOO_LARGE,
// PAYLOAD_TOO_LARGE, MEDIA_DECODER_UNAVAILABLE), defined here as well: a code is its name
// and kind, so errors.Is and the API answers see the same code as the store's.
//
// # Still images
//
// Media.Image and Media.GIF check dimensions with image.DecodeConfig before any pixel is
// decoded (MaxPixels, all of a GIF's frames counted; MaxFileBytes caps the file read) and
// apply a JPEG's EXIF orientation as browsers do; decoding stops when the render's context
// ends. DirResolver finds files under a directory (`cutroom export --assets DIR`).
//
// # Video and sound
//
// Video and compressed audio decode through ffmpeg child processes (FFmpeg, found by
// FindFFmpeg on PATH or at a configured path); without it they fail with
// MEDIA_DECODER_UNAVAILABLE and renderers leave video and audio items out of their
// features.
//
//   - Media.OpenAudio: WAV, MP3, FLAC and Ogg Vorbis files (told by their bytes) played at
//     rate 1 decode in Go (OpenAudioFile: decoder, stereo downmix, windowed-sinc resampler
//     to 48 kHz); anything else, or another rate, is one ffmpeg per clip streaming 48 kHz
//     stereo float32 from a start time, tempo changed by playbackRate with the pitch kept
//     (atempo, as browsers play media), mono played on both channels at full level.
//   - Media.NewSession: the media of one render job, adding VideoFrame (the compositor's
//     VideoFrames). One ffmpeg per clip streams raw RGBA frames in presentation order with
//     -fps_mode passthrough; each frame's pts comes from the showinfo filter on stderr (in
//     the same order; its per-frame checksums are turned off, they cost as much as
//     decoding), so variable frame rate sources are exact. ffmpeg 5.1 or later. The frame
//     shown at media time t is the last one whose pts is <= t. Rotated sources are turned
//     upright by ffmpeg's autorotate (display matrix); frames are scaled down to fit the
//     output size. Each decoder keeps a window of 6 frames; it restarts (seeking to the
//     keyframe before t, timestamps kept with -copyts) only when a request goes back past
//     its window or more than 8 s ahead. At most 3 decoders per file; decoders no frame
//     was asked of for 256 requests are stopped. Session.Close kills and reaps every
//     process; a canceled request context returns at once.
//   - Frame buffers are recycled (framepool.go), by reference count: a decoder's window
//     holds each of its frames; Session.HoldVideoFrame adds a holder until its release
//     func is called; a buffer with no holder goes back to its decoder's pool and the next
//     frame is read into it. A frame from Session.VideoFrame is never recycled (it may be
//     kept forever, as before). Rule for callers: never touch a held frame after
//     releasing it.
//   - Session.HoldVideoFrameYCbCr: the frame as BT.709 limited-range I420 of a given size,
//     from decoders of its own (videoyuv.go): ffmpeg scales (bilinear) and converts the
//     colours (BT.709 limited sources, and untagged ones of 720 lines or more, only scaled,
//     which at the output size is no work at all; BT.601 limited ones, and untagged ones
//     below 720 lines, by the colorspace filter's fast mode; full range and the rest by
//     swscale from their tags), 3 bytes per 2 pixels through the pipe instead of 8. Same
//     window, pool and reference counting as RGBA frames; rotated sources come upright the
//     same way.
//   - Untagged sources are read with the matrix Chromium's <video> gives them (colour.go,
//     measured): BT.709 from 720 coded lines, BT.601 below, in both frame forms.
//   - A decoder's frames are read from its pipe straight into their pooled buffers; the
//     pipe is grown to 1 MiB (pipe_linux.go) so a 1080p frame takes 3 reads, not 48; sources
//     up to 1080p decode on one thread on machines of up to 8 cores (decoderThreads).
//
// The renderer reaches both through its own Decoder interface, which Media implements
// (Decodes, OpenVideo, OpenSound: decoding.go), without importing this package.
package media
