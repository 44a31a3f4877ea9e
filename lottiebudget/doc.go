// Package lottiebudget measures a Lottie document against structure budgets and parameter
// ranges before rlottie (package lottie; Debian librlottie 0.1) ever sees it. Uploads
// (package assets) and the renderer (package lottie) apply the same scan, so a file
// accepted at upload is accepted at render and an inline resourceJson gets the same
// bounds.
//
// The scan streams tokens from a json.Decoder and keeps only counts, the precomp references
// and a few numbers per shape item: its memory is bounded by the number of precomps and the
// nesting, never by the file's size. It is a standard-library leaf so that assets and
// lottie share it without importing each other.
//
// # Budgets
//
// Limits, zero members meaning the defaults (package assets passes its own for layers,
// depth, keyframes, frames and the image limits of uploads):
//
//	layers      10,000     after precomp expansion: a precomp layer counts its asset's layers each time
//	depth       32         precomp nesting
//	keyframes   500,000
//	frames      216,000    op - ip (an hour at 60 fps)
//	points      2,000,000  path vertices, keyframed ones included
//	shapes      100,000    shape items rlottie builds, after repeater copies and precomp expansion
//	images      100,000,000 pixels, 16384 a side, 50 MiB each (the upload limits; pixels for all together)
//
// The budgets follow rlottie's reading of a document, not the format's documentation:
//   - an asset's "id" may be a number: rlottie files it under its decimal digits, which a
//     layer's "refId": "1" names (a numeric refId makes rlottie refuse the document), so
//     numeric ids expand like string ones (4.7 KB of numeric ids, 10^7 layers once
//     expanded, had rlottie allocate 1.3 GB and abort under a 1.5 GB address limit).
//   - a repeater ("ty": "rp") repeats everything before it in its array, earlier repeaters
//     included, as one group per copy, so a shapes array's count is multiplied by the
//     copies at each repeater, through groups and precomp uses; an animated copy count
//     counts its greatest keyframe value, as rlottie builds that many copies up front.
//     Measured: a 764-byte document of one repeater with a million copies took rlottie
//     1 GB; 100,000 shapes (rectangles and fills) take 95 MB and 0.4 s of CPU per 1080 x
//     1080 frame, dashed gradient strokes of ellipses 144 MB and 3.9 s.
//   - rlottie decodes every image asset (stb_image) when it loads a document, so each
//     embedded image is measured from its header (PNG or JPEG, the formats its image
//     loader draws; a GIF or BMP it leaves out, and anything else cannot be measured: both
//     are refused) and all of them together are bounded by the pixel limit (the security
//     review of issue 26 had a 249 KB PNG of 16000 x 16000 in a data: URI take 2 GB).
//
// # Image assets
//
// rlottie takes an asset for an image when the last of its "p" and "layers" members is
// "p", and then opens the file u + p unless "e" is 1. So any asset with a "p", whatever
// else it has and in whatever order, must have a data:image/ URI in every "p" and no "u"
// (or an empty one); the renderer sets "e": 1 on such assets (package lottie's
// normalisation), and no path is ever handed to rlottie. The URI's data must be strict
// padded base64: rlottie decodes from after the first comma with a decoder of its own that
// reads anything else (whitespace, the URL alphabet) differently from Go's, and the image
// measured would not be the one it decodes.
//
// # Parameter ranges
//
// A number can cost rlottie more than any count: geometry is rasterised over its whole
// extent, so an ellipse 2^31 wide, a path with a coordinate of 2^31, a stroke 2^31 wide, a
// polystar's outer roundness of 2^31, a layer scaled 10^10 % or a repeater scaling each of
// 1000 copies by 200 % each pinned a core for 10 s or more a frame (a path 10^8 wide took 4 s,
// 10^6 wide 0.06 s); a negative dash length made it allocate until it aborted
// (std::bad_alloc). Each is held to a range, static or keyframed, and a keyframed value's
// range is that of its keyframes widened by its easing's overshoot (a bezier's y outside
// 0..1; its x must be within 0..1) and including the 0 rlottie falls back to for a
// keyframe without an end:
//
//	sizes, radii, path coordinates, stroke widths   -100,000 .. 100,000 px
//	layer w, h, sw, sh; asset w, h                  0 .. 100,000 px
//	transform scale (layer ks.s, group tr.s)        -10,000 .. 10,000 %
//	polystar points (pt) / roundness (is, os)       -1000 .. 1000 / -1000 .. 1000 %
//	stroke miter limit (ml)                         0 .. 1000
//	gradient colour stops (g.p)                     0 .. 1000
//	trim start and end (s, e) / offset (o)          -1000 .. 1000 % / -10^6 .. 10^6
//	repeater copies (c) / offset (o)                -10^6 .. 10^6 / -1000 .. 1000; copies may grow
//	                                                at most 100 times (its scale to the power of the copies)
//	stroke dash                                     2 to 16 entries; rlottie reads them in order whatever
//	                                                their names, an odd last one as the offset (-10^6 ..
//	                                                10^6), the others 0 .. 100,000 and adding up to 0.1 at least
//	layer ip, op, st / sr / tm                      -10^7 .. 10^7 frames / 0.01 .. 100 in size / -86,400 .. 86,400 s
//	composition fr / ip, op (Info.Drawable)         1 .. 1000 / -10^7 .. 10^7
//
// The ranges do not compose: nested transforms, precomp layers and the render's own scale
// multiply one another, so a document within every range can still ask for a long frame;
// the time a frame takes is not bounded here.
//
// # Errors
//
// A *TooComplexError names the measure over its limit ("layers", "depth", "keyframes",
// "points", "frames", "shapes", "imagePixels", "imageSide", "imageBytes"); ErrOutOfRange
// a parameter out of its range, the message naming where, e.g. `layer 3 ("Stars"), shape
// "Star 1": a polystar's outer roundness (os) is 2147483648; it must be from -1000 to
// 1000`; ErrUndrawable what the renderer does not draw (an image asset that is not an
// embedded data URI or cannot be measured; Info.Drawable adds text layers and the
// composition's size, frame rate and range); anything else wraps ErrMalformed (bad JSON,
// nesting past 10,000 levels) or ErrCycle (precomps that refer to each other).
package lottiebudget
