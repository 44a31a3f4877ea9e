// Package lottie draws Lottie (Bodymovin) animations with rlottie, Samsung's C++ renderer
// (Debian librlottie-dev / librlottie0-1, 0.1+dfsg), through a small cgo wrapper: the
// compositor asks for one frame at a time into an RGBA buffer of its own.
//
// # Choice of renderer
//
// Issue 19 asked for rlottie through cgo or a Go renderer on the compositor's rasteriser,
// chosen by measurement against lottie-web. rlottie was measured; a Go renderer was not
// built: shape layers with trim paths, masks, mattes, gradients, precomps, time remapping
// and the Lottie easing model are several thousand lines, and rlottie met the thresholds
// (mean SSIM >= 0.97 per file, no frame under 0.93) on the whole corpus once two rlottie
// faults were worked around (see Normalisation). Figures, TestLottieWebReference (15 files
// of testdata/corpus, 100 x 100, frames 0, 17, 38 and 59 of each, against lottie-web 5.13.0's
// SVG renderer in headless Chromium, both over the same grey):
//
//	file       mean SSIM  lowest frame      file       mean SSIM  lowest frame
//	easing     1.0000     1.0000            parenting  0.9997     0.9996
//	ellipse    0.9995     0.9993            path       0.9992     0.9990
//	gradient   0.9955     0.9899            precomp    0.9995     0.9991
//	image      0.9719     0.9502            rect       0.9994     0.9989
//	inpoint    0.9997     0.9995            star       0.9978     0.9973
//	mask       0.9997     0.9994            stroke     0.9986     0.9984
//	matte      0.9996     0.9995            timeremap  0.9934     0.9815
//	                                        trim       0.9991     0.9983
//
// The embedded image (a 4-pixel checkerboard, rotated and scaled) is the lowest: rlottie
// and Chromium resample it differently. Speed at 1920 x 1080 (BenchmarkRender1080p, frames
// of the corpus stretched to the frame): 17 to 220 frames/s on one core of the loaded 2-core
// VM; bench/README.md has the table.
//
// # Normalisation
//
// rlottie 0.1 mis-draws two things lottie-web draws, and reads a file for a third, so Open
// rewrites the document first (normalize, streaming, memory a small multiple of the
// document):
//   - it reads an object's type only from its first member: a shape whose "ty" is not
//     written first is drawn as something else (the corpus with sorted keys: SSIM 0.32 to 0.93
//     against the same files in Bodymovin's order). "ty" is moved first in every object.
//   - it applies a polystar's rotation twice. "r" of every "ty":"sr" shape is halved.
//   - it takes the "p" of an image asset (any asset with a "p") for a file name, and opens
//     "u" + "p", unless the asset says "e": 1; lottie-web draws a data URI in "p" either
//     way. Every such asset gets "e": 1 and "u": "" (its "p", checked by the budget, is a
//     data:image/ URI).
//
// # Untrusted documents
//
// Every document is measured with package lottiebudget (the upload check's budgets: layers
// after precomp expansion, precomp depth, keyframes, path points, shapes after repeater
// copies, frames, embedded images' pixels; and the ranges of the parameters that drive
// rlottie's loops and rasterisation) before rlottie parses it, and refused (ErrUnsupported,
// saying why and where) when it is over them, when an image asset is not an embedded
// data:image/ URI of a PNG or JPEG, whatever the order of its members (rlottie would
// read "u" + "p" from the file system; it is given no resource path and never sees such a
// document), when it has text layers (rlottie does not draw them), or when its size is over
// MaxSide. rlottie is loaded with an empty
// cache key, so its model cache keeps nothing. Render draws into the caller's buffer (no
// copy; rlottie's premultiplied ARGB is turned into premultiplied RGBA in place) and checks
// the context before each frame: a render is cancellable between frames, and one frame of
// rlottie is bounded by the budgets. One Animation renders one frame at a time (rlottie's
// animation is not safe for concurrent use); its memory is rlottie's model of the document,
// released by Close or by the garbage collector. Embedded images are decoded by rlottie's
// image loader (stb_image, in /usr/lib/<arch>/rlottie/image-loader.so).
//
// # Differences from lottie-web
//
// rlottie draws whole frames: a frame is chosen as lottie-web chooses it with subframes
// off (t * fr truncated); lottie-web's default player interpolates between frames. rlottie
// ignores expressions (the property's keyframed value is drawn) and layer effects, which
// lottie-web partly evaluates; such files draw without them.
package lottie
