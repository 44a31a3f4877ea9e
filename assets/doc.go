// Package assets keeps uploaded media files on disk: atomic writes, kind detection, probing,
// signed links, resolving editor assets to local files for rendering, and fetching remote
// assets. Decoding those files for rendering is package media's, which this package does
// not import (nor media this one); the headers both read (a JPEG's orientation, a WAV
// file's chunks) are package mediaheader's.
//
// # Asset records
//
// `type` is decided from the bytes, never from the declared Content-Type:
//
//	image    png, jpeg, webp, svg           width, height (svg: width/height or viewBox; may be null)
//	gif      gif                            width, height; duration when animated (browser delay rules)
//	video    mp4, mov, webm, mkv            width, height, duration
//	audio    mp3, aac (ADTS), wav, m4a, ogg (Vorbis, Opus, FLAC), flac, audio-only mp4/webm/mkv
//	                                        duration
//	font     ttf, otf, ttc, woff, woff2     nothing
//	lottie   JSON with v, fr, ip, op, layers    width, height (w, h), duration ((op-ip)/fr)
//	caption  caption JSON (the editor's caption asset: {captions:[{text,startMs,endMs}], timingGranularity}
//	         or a bare array of entries), SubRip, WebVTT      duration (the last cue's end)
//
// image, gif, video, audio, caption and lottie are the editor's asset types, so a record maps
// onto an editor asset of the same type (fileUrl -> remoteUrl, fileKey -> remoteKey, assetId
// may serve as the editor asset id). Fields that do not apply are null; duration is in
// seconds (rounded to milliseconds). `source` is "upload" for POST /v1/uploads, the only
// source so far. `mimetype` is the detected media type (e.g. audio/mpeg, video/quicktime,
// font/woff2, application/x-subrip, text/vtt, application/json).
//
// A declared Content-Type that contradicts the bytes is ASSET_TYPE_MISMATCH (422); see
// Compatible for what agrees. Bytes of no supported kind are ASSET_TYPE_UNKNOWN (422); bytes
// of a known kind that do not parse are ASSET_INVALID (422); raster images (and svg and
// lottie sizes) over the pixel limits are IMAGE_TOO_LARGE (422), decided from the header
// with image.DecodeConfig before anything is decoded. Within the limits, png, jpeg, webp
// and gif pixel data is then decoded in full (two decodes at a time per store, read
// through a buffer), so a file cut short or corrupt is ASSET_INVALID at upload rather
// than a failed export later.
//
// # Probing MP4 and Matroska
//
// Decision: the MP4/MOV/M4A probe (isobmff.go) and the WebM/Matroska probe (ebml.go) walk
// the structure themselves, reading box and element headers through an io.ReaderAt under
// fixed budgets (a moov of at most 64 MiB, never read whole; 10,000 boxes; 100,000 elements
// up to the first Cluster; 4,000,000 in the cluster walk of a file without a Duration), and
// hand mp4ff only small fixed-layout boxes (mvhd, tkhd, mdhd, hdlr, mehd; 64 KiB at most).
// Reading the files through the libraries instead was measured (issue 27): mp4.DecodeFile
// with DecModeLazyMdat over the file as an io.ReadSeeker, and ebml.Unmarshal
// (WithIgnoreUnknown) into a struct of Info and Tracks tagged to stop after Tracks, with
// every cluster's blocks for a file without a Duration. Bytes allocated during the probe
// (runtime.MemStats), 2-core VM, load average 17:
//
//	file                                          hand-written   through the libraries
//	MP4, 1 h at 60 fps (22 MB, 385,000 samples)   0 MiB          7.7 MiB
//	the same, fragmented (20 MB)                  0 MiB          8.5 MiB (15,000 objects)
//	MP4, 30 s 1080p (142 MB mdat)                 0 MiB          0.1 MiB
//	MKV, 1 h, live (no Duration, 21 MB)           12 MiB, 2.1 s  267 MiB (peak RSS 150 MB), 5.2 s
//	MKV, 1 h, with Duration; the 142 MB one       0 MiB          0 MiB (stops after Tracks)
//	valid MP4 with a 140 MiB free box             0 MiB          140 MiB
//	valid WebM with a 140 MiB Void element        0 MiB          420 MiB (peak RSS 444 MB)
//	457-byte MP4, stts entry count 2^26           0 MiB          512 MiB, written (RSS 538 MB)
//	457-byte MP4, stts entry count 2^32-1         0 MiB          fatal error: out of memory (4 GiB ulimit -v)
//	96-byte MP4, free box claiming 2 GiB          ASSET_INVALID  2 GiB, then EOF
//	113-byte WebM, TrackType claiming 1 GiB       0 MiB          1 GiB
//
// Both libraries allocate what a declared size or count says before reading it (mp4ff's
// box bodies and table decoders, ebml-go's every element value), and an out-of-memory
// fault is not a panic that recover catches: the process dies. Bounding them would take a
// pre-walk of every box and element (segjoin has one for the segments it wrote itself) as
// large as these probes, and allocations would still grow with the file. They also answer
// valid files differently: mp4ff refuses a last box of size 0 (to the end of the file) and
// a second non-empty mdat, which ffprobe reads; its tkhd keeps no matrix, so a phone's
// rotated video would report its stored size rather than the displayed one; sample entries
// other than avc1/avc3, hvc1/hev1, av01 and encv (mp4v, vp09, ProRes) decode as unknown
// boxes with no size. So the probes stay hand-written, fuzzed (FuzzProbe) and
// mutation-tested (TestMutatedMediaDoNotHang), with mp4ff for the leaf boxes.
//
// # Structure budgets
//
// A small file can ask for unbounded rendering work, so structure is measured at upload
// and refused with ASSET_TOO_COMPLEX (422; the problem's errors member is one
// ComplexityDetail naming the measure, e.g. "svg.elements", and its limit):
//
//   - SVG: the svgbudget package's document budget (Limits.SVG): 20,000 elements after
//     <use> expansion, depth 64, 2,000,000 path points, 1<<30 filter work. A <use> cycle is
//     ASSET_INVALID. The compositor measures again before it parses (files stored earlier).
//   - GIF: at most 5,000 frames (MaxGIFFrames), and frames x width x height at most
//     MaxImagePixels (rendering decodes every frame).
//   - Lottie: 10,000 layers after precomp expansion (a precomp layer counts its
//     composition's layers each time; MaxLottieLayers), precomps nested 32 deep
//     (MaxLottieDepth), 500,000 keyframes (MaxLottieKeyframes), op - ip at most 216,000
//     frames (MaxLottieFrames), and lottiebudget's own budgets (path points, shapes
//     after repeater copies). Images embedded in the document are measured from their
//     headers against MaxImagePixels (all of them together), MaxImageSide and the image
//     size cap (lottie.imagePixels, lottie.imageSide, lottie.imageBytes). Precomps that
//     refer to each other in a cycle, and parameters outside the ranges lottiebudget
//     gives them (the detail names the layer, shape and parameter), are ASSET_INVALID;
//     image assets that are not embedded data:image/ URIs of PNG or JPEG are
//     ASSET_UNSUPPORTED.
//
// # Size caps
//
// Defaults (serve flags --max-<kind>-bytes): video 800 MiB, audio 25 MiB, image 50 MiB,
// font 20 MiB, lottie 20 MiB, caption 10 MiB; images at most 100 megapixels and 16384
// pixels on a side (--max-image-pixels, --max-image-side). The first 4 KiB decide the kind
// and so the cap enforced while streaming; an MP4/WebM is streamed under the larger of the
// video and audio caps and checked against audio's once it turns out to hold only audio,
// and JSON under the larger of lottie and caption. Over the cap: 413 PAYLOAD_TOO_LARGE,
// nothing stored.
//
// # Files and links
//
// fileKey is "assets/<workspaceId>/<assetId>/<name>", name being the uploaded name reduced
// to [A-Za-z0-9._-] (the original, cleaned by CleanFileName, is only metadata). The file
// lives at <data-dir>/files/<fileKey>; uploads stream into <data-dir>/files/tmp, are
// synced and renamed into place, and the record commits after the rename. Store.Recover
// removes temp files and files without a record on start.
//
// More than one API node (docs/nodes.md): with Config.Blobs (--blob-store nats, package
// blob) the file is put into the NATS object store after the rename and before the record
// commits (refused with 503 BLOB_STORE_UNAVAILABLE, nothing stored, when it cannot be);
// OpenFile and the renders' resolver (ResolveFor, which keeps the files it resolved until
// the render's context ends) fetch a file this node has no copy of; Resolve alone only
// finds the record (export create's check); a delete removes the object as well (on the
// local disk alone a soft-deleted file stays). With Config.Shared (--blob-store DIR) the
// files area is another node's too: Recover leaves what is younger than SharedGrace.
//
// fileUrl is <public-url>/files/<fileKey>?exp=<unix>&sig=<hex>, signed by package signedlink with a
// secret kept in the database (links survive restarts) and valid for --file-link-ttl
// (default 24 h). Every API response carries a freshly signed link. Links need no API key;
// a tampered link is 403 LINK_INVALID, an expired one 403 LINK_EXPIRED, the file of a
// deleted asset 404.
//
// Deleting an asset is a soft delete, refused with 409 ASSET_REFERENCED while a project's
// current state refers to it (editor asset key or id == assetId, remoteKey == fileKey,
// remoteUrl or a background imageUrl whose path ends in /files/<fileKey>) or an active
// export does (ActiveReferences). Soft-deleted files stay on disk.
//
// # Remote assets
//
// Remote (NewRemote, --fetch-remote) fetches editor assets that are not uploaded from their
// http(s) remoteUrl: off (the default, a nil *Remote: nothing is fetched), allowlist (hosts
// matching RemoteConfig.Hosts: "cdn.example.com" or "*.example.com") or public. Decisions:
//
//   - The package does not import the outbound guard: the App gives RemoteConfig.Dial (the
//     webhook guard's DialContext), so every connection, redirects' included, is checked at
//     dial time on the resolved address. Redirects (at most 5) must meet the policy again.
//     No proxy; URLs with user info are refused.
//   - The first 4 KiB decide the kind (Sniff), and the body is capped by that kind's upload
//     cap while it streams; bytes of no kind are refused.
//   - The cache (RemoteConfig.CacheDir) keys files by URL (sha256) with the ETag and
//     Last-Modified the host sent; a later fetch asks with If-None-Match/If-Modified-Since
//     and uses the file on 304. After each new file the least recently used files (by
//     modification time, touched on each use) go until the total is within CacheBytes;
//     the new file stays even if it alone is larger. A render reads its fetched files when
//     it draws them, so a file evicted meanwhile by another render's fetch fails that read:
//     size the cache above the remote assets of the renders that run at once.
//   - Unresolvable (export create's check) does no network I/O: it lists the assets a
//     render reads (RenderedAssets: image, gif, video and audio items in tracks and the
//     background's image asset) that resolve locally neither as uploads nor as fetchable
//     URLs. Prefetch fetches them before the render's first frame and fails with a
//     *FetchError naming the asset, its URL and the reason (the App makes it the task's
//     EXPORT_ASSET_FETCH_FAILED). A background's remote imageUrl without an asset may name a
//     preset the compositor draws, so it is fetched only when the render asks for it.
//
// A full disk: an upload is refused with 507 STORAGE_FULL before anything is written while
// Config.Space says the filesystem is below its floor (counting the declared length), and
// a file write or record commit that fails for lack of space is STORAGE_FULL too
// (diskspace.Refuse); deletions are never refused for space.
package assets
