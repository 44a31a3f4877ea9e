// Package render is the frame pipeline behind export.Renderer: it turns an export job
// (editor state, output size, fps, format) into a video file, state -> compositor -> I420
// -> encoder -> muxer -> temporary file -> fsync -> rename.
//
// Decision: export used to hold both the task lifecycle and this pipeline. They are split
// so that export (requests, limits, credits, scheduler, tasks, events) imports neither the
// compositor nor the encoder, and render is the only package that imports both. render
// imports export for the Renderer contract, RenderJob and the failure a render returns
// (export.RenderFailure); export never imports render, the main package wires a
// render.Pipeline into export.New.
//
// Decision (errors): the compositor, its text package and the encoder never reach an API
// client, so they return sentinel errors (compositor.ErrMedia, encode.ErrIO, ...) without
// codes, as x/image and bbolt do. render is the boundary where a failure gets its stable
// code: failure.go maps each sentinel kind to a task code (COMPOSITOR_MEDIA_FAILED,
// ENCODE_IO, ...; the table is in docs/api.md, "Task error codes") where the error enters the
// pipeline, before the pipeline adds its own context ("frame 12: ..."), and returns an
// *export.RenderFailure; an inconsistent job is EXPORT_RENDER_INVALID, a stuck frame
// export's EXPORT_FRAME_TIMEOUT, and a stored task that breaks a create rule gets that
// rule's API code (OUTPUT_SIZE_TOO_LARGE, EXPORT_STATE_EMPTY, EXPORT_TOO_LONG,
// EXPORT_FEATURE_UNSUPPORTED). export.TaskError then writes the task's "<CODE>: <message>".
// The messages are those the coded errors had (an encoder's starts with its code), so FAILED
// tasks and `cutroom export` read as before. A task failure is not an HTTP answer, so it is
// a plain export type rather than an apierr code with a kind.
//
// Decision: media comes through interfaces render owns, never a concrete type of package media.
// Still images come through compositor.Media; video frames and sound through Decoder
// (media.go), whose OpenVideo gives each render decoders of its own that the render closes.
// media.Media implements Decoder, and render does not import media: the decoders' types
// (VideoDecoder, SoundStream) are aliases of interface literals that media declares
// identically, so neither package names the other.
//
// Decision: decoded video frames are lent, not given. A decoder that recycles its frame
// buffers (media.Session) also has HoldVideoFrame, whose frame stays unchanged until its
// release is called; render finds it through an optional interface (frameHolder,
// media.go), so VideoDecoder and other suppliers are unchanged. The compositor uses a
// video frame only inside the call that asked for it and caches none, so one output
// frame's drawing (frameMaker.make: Split, plates, windows, whole frame, all on one
// worker) holds every frame it asked for in a lease carried by its context and releases
// them when it returns. K workers drawing K frames hold at most K frames per clip (two
// during a fade); frames asked for outside a drawing (no lease) are never recycled.
//
// Decision: a frame that is one full-frame video clip and nothing else, or a fade between
// two such (compositor.VideoOnly), is not drawn: the clip's frame, decoded as BT.709
// limited-range I420 at the output size by a decoder that can (media.Session's
// HoldVideoFrameYCbCr, found through the optional yuvHolder interface), is copied into the
// pooled frame, or two are mixed with encode.MixI420 (videoplan.go). It equals the drawn
// frame up to the rounding of the colour conversions and the decoder's bilinear scaling
// (tests: >= 40 dB PSNR per plane against the drawn frame; 45 dB mean), and saves the
// decoder's RGBA conversion, 5/8 of the pipe, the drawing and the RGB -> YUV conversion
// (bench/README.md, session 7). A frame that is one clip's frame alone is not even copied:
// the decoder's frame is lent to the encoder in place of the pooled buffer and given back
// once written (videolend.go). Opaque clip rectangles above it (a picture-in-picture
// corner: compositor.VideoLayers) are copied the same way, and items above those (captions,
// a logo: compositor.VideoOverlays) are drawn in RGBA only inside their windows, over
// transparent pixels, and blended into the I420 frame (encode.Overlay, overlays.go); a
// window whose picture does not change is converted once and kept for the frames after
// it. Frames with anything else visible (a rotated, see-through, cropped or resized
// clip under items, an effect, a filter, a transition above the clips) are drawn as
// before; WholeFrames turns the path off. The clip frames are held under the frame's lease
// like RGBA frames.
//
// One render runs in named stages (pipeline.go): planJob validates the job; openMedia
// picks the job's media and sound; dispatch hands out frame numbers in order, each with a
// free pooled I420 buffer; composite (K workers) draws and converts frames under the frame
// watchdog, reusing plates of the items that stay put (plates.go); encodeInOrder writes
// them to the encoder in frame order with the mixed sound (mix.go), returns buffers to the
// pool and releases media no longer needed. Buffers move between stages over channels, so
// each is touched by one stage at a time; the encode loop alone owns the writer and the
// mixer.
//
// Decision (segments, segment.go): an export can be rendered as segments of whole frames
// ([First, End), Split) by RenderSegment, each a file of the export's container with no
// sound, its first frame a keyframe (a fresh encoder starts with an IDR frame) and its
// timestamps from 0, and joined by JoinSegments, which mixes the sound once for the whole
// timeline (mix.go) and hands the files to segjoin, which copies their samples into one file
// without re-encoding. A segment is the same run as a render (renderPlan with plan.first and
// plan.videoOnly), so drawing, the watchdog, cancel and the temp+rename write are the
// render's own. Identical encoder parameters give identical decoder configurations (the
// encoder thread count does not enter them: checked for 1 and 4 threads), and the join checks
// them rather than trusting it. Segmenting in one process (PipelineConfig.Segmented) is off
// by default: the segments render one after another and each restarts the encoder and the
// compositor's warm-up, which costs more than the join saves (bench/README.md, session 7);
// it is the local form of the cluster's coordinator/worker split.
//
// Decision (warm segments, warm.go, issue 29): a worker's segments of one task share its
// compositor: PipelineConfig.Warm keeps a finished render's compositor, with the pictures,
// mip levels, sprites and text layers it made, for the next render of the same job (task,
// state bytes, sizes, rate), which points it at its own media (decoders stay per render);
// one render holds a kept compositor at a time, and it is closed after WarmIdle unused.
// The encoder still starts afresh per segment (its IDR frame is what makes the join work).
//
// Decision (cuts by cost, split.go, issue 18): segments rendered in parallel finish when the
// dearest does, and segments of equal length are not of equal work (a crossfade, a picture
// fading in or a clip playing costs two to three times a frame where little moves). So
// SplitByCost keeps Split's number of segments but moves the cuts to equal shares of an
// estimate of each frame's cost (compositor.FrameCost), which reads the timeline alone
// (types, geometry, transitions; no picture decoded): a few milliseconds for an hour's
// export, and the same cut every time for the same job. Measured cost varies with the
// machine and the content beyond what the timeline says (x264's motion search, a PNG's
// compression); the estimate only needs to rank frames, and the workers pulling segments
// from a queue absorb what is left.
//
// Decision (previews, issue 21): frame previews (Stills, still.go) go before renders'
// compositing. A preview holds the Pipeline's previewGate (gate.go) while it draws and
// encodes; each compositor worker waits on it before each frame, at most
// DefaultPreviewWait (120 ms) a frame, so back-to-back previews slow an export but never
// stop it, and with no preview the check is one atomic load. The encoder's threads are not
// paused (gating the encode loop as well gave no measurable gain). A 1080p jpeg's encoding
// was ~80% of a warm preview's CPU with image/jpeg (profile in bench/README.md), so
// previews are compressed by libjpeg-turbo through encode.JPEG, about 5x cheaper
// (encode's BenchmarkJPEG1080); an earlier step encoded bands at once with image/jpeg,
// which cut the wall but not the CPU a loaded machine has to find.
//
// Decision (preview time limit, issue 26): a preview held the gate for as long as its frame
// took, and a state of 20,000 rotated, see-through solids took 119 CPU-s, holding every
// export back meanwhile. A preview now has its own watchdog, MaxPreviewSeconds (default 10
// s, or MaxFrameSeconds when lower: a preview is interactive, and an export's 30 s would
// hold the gate that long). It starts once the media is open, so a remote asset's fetch,
// bounded by its own timeout, is not cut short and started again at every next preview;
// it covers the compositor's preparation, its preload and the frame. The frame context
// carries it, and the compositor checks it between items and every few rows of pixel work,
// so the drawing stops mid-frame (3,000 such solids at 640 px: answered after 0.38 s with a
// 0.3 s limit). The gate is released when the deadline passes, even before the drawing
// returns. The failure is export.CodeFrameTimeout naming the item being prepared (the
// export watchdog's words, withFrameDeadline); the server answers it as
// FRAME_RENDER_TIMEOUT. A compositor kept for the next instants of a state keeps nothing
// of a cancelled frame (the background is drawn again; media loads are not remembered).
package render
