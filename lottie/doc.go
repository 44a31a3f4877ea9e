// Package lottie draws Lottie (Bodymovin) animations with rlottie, Samsung's C++ renderer
// (Debian librlottie-dev / librlottie0-1, 0.1+dfsg), in a confined child process per
// animation (see Renderer processes): the compositor asks for one frame at a time into an
// RGBA buffer of its own.
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
// and Chromium resample it differently. The figures are the same with rlottie in its
// renderer process (the image loader works under Landlock). Speed at 1920 x 1080
// (BenchmarkRender1080p, frames of the corpus stretched to the frame): 17 to 220 frames/s
// on one core of the loaded 2-core VM in-process; bench/README.md has the tables, the
// renderer process's in Renderer processes below.
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
// MaxSide. rlottie is loaded with an empty cache key, so its model cache keeps nothing.
// Embedded images are decoded by rlottie's image loader (stb_image, in
// /usr/lib/<arch>/rlottie/image-loader.so, which librlottie dlopens when a document has
// images). The budgets cannot bound everything rlottie does (a frame's cost grows with the
// size it is drawn at; a security review found small documents that make it abort or never
// return), so rlottie never runs in cutroom's process.
//
// # Renderer processes
//
// Issue 26: hostile-input C code runs where it cannot hurt the process. Each Animation is
// held by a renderer process of its own: cutroom's own executable (/proc/self/exe, which
// still reaches it after an upgrade replaced the file) started with CUTROOM_LOTTIE_RENDERER
// set. Any binary that links this package can be one (the server, cutroom export, the test
// binaries of this package, compositor, render and app):
//   - sandbox.c's ELF constructor runs before the Go runtime starts a thread, so what it
//     applies holds for every thread the renderer will have: RLIMIT_DATA (Options.Memory,
//     default 1 GiB: every private writable mapping, so malloc, Go's heap and thread stacks;
//     RLIMIT_AS is not used, the Go runtime reserves 1.8 GB of address space it never
//     maps), RLIMIT_CPU (see below), RLIMIT_FSIZE 0 (no file can be written or grown, the
//     shared memory included), RLIMIT_CORE 0, RLIMIT_NOFILE 32, RLIMIT_MEMLOCK and
//     RLIMIT_MSGQUEUE 0, PR_SET_PDEATHSIG SIGKILL (a renderer never outlives cutroom; its
//     parent's pid is checked after, in case cutroom died first), PR_SET_NO_NEW_PRIVS, then
//     Landlock by raw syscalls, every access right of the kernel's ABI handled: no file
//     system but reading and mapping the files of <librlottie's directory>/rlottie (the
//     image loader), no TCP, and from ABI 6 no signals or abstract unix sockets to
//     processes outside the renderer; then a seccomp filter: no fork, vfork or clone
//     without CLONE_THREAD (clone3 answers ENOSYS so the C library falls back to clone,
//     whose flags a filter can read), no exec, ptrace or process_vm_writev. It refuses to
//     confine a process that already has more than one thread. A renderer that cannot apply
//     a limit exits (the error names it); where the kernel lacks Landlock or seccomp the
//     renderer runs without it, and Probe (the App calls it at start) says so in the log.
//     The kernel of the development VM (6.18) has Landlock ABI 7 and seccomp.
//   - then package lottie's init (child.go) serves the parent and exits, so main or TestMain
//     never runs in a renderer; package inits that ran before it ran under the limits
//     (renderers start from cutroom itself and from the test binaries of lottie,
//     compositor, render and app). The parent's environment is not passed on.
//   - transport: a unix socket pair for fixed-size requests and replies (protocol.go), and
//     a memfd shared between the two for the document and the frame. The parent sizes the
//     memfd and seals it against shrinking (a read past its end would be SIGBUS in cutroom);
//     the renderer cannot grow it (RLIMIT_FSIZE). rlottie draws into the memfd, and the
//     parent's copy into the caller's buffer is the ARGB -> RGBA swap it always did, so a
//     frame is not copied through a pipe. The parent checks every reply (sizes and frame
//     counts within bounds, the same as the first load when one restarts): anything else
//     kills the renderer (ReasonProtocol).
//   - time: each request (start and parse, or one frame) has Options.FrameSeconds (default
//     20 s) of wall time, a read deadline on the socket, after which the parent kills the
//     renderer (ReasonTimeout); the renderer's soft RLIMIT_CPU is moved before each request
//     to the CPU time it used plus as many seconds, rounded up (SIGXCPU: it exits,
//     ReasonCPU), which also bounds a renderer whose parent is stopped. A context that ends
//     (a cancel, the render watchdog, a shutdown, a preview's limit or its client leaving)
//     kills the renderer at once and Render returns the context's error without waiting for
//     rlottie: the render's slot and the preview gate are free at once. A renderer killed
//     so is not the document's fault, so the next Render starts another and loads the
//     document again.
//   - a renderer that crashes (rlottie's abort on std::bad_alloc, a signal), goes over a
//     limit or times out makes Render (or Open) return a *RendererError (ErrUnsupported)
//     whose words say which: "the Lottie animation crashed its renderer (signal: aborted)
//     drawing frame 12", "exceeded its renderer's memory limit (1024 MiB)", "took longer
//     than 20s". The reason comes from the exit status and the first 2 KB of the renderer's
//     standard error (libstdc++'s "std::bad_alloc", Go's "SIGSEGV: ..." line, the exit code
//     of SIGXCPU). The Animation keeps that error (the same document would fail again); a
//     new Open starts a new renderer. The compositor names the item and asset in front of
//     it, so the task's error reads COMPOSITOR_MEDIA_FAILED: frame 0: item "l1": lottie
//     asset "lot": the Lottie animation ...
//   - one renderer per Animation, not a pool: the compositor opens one Animation per Lottie
//     asset of a render or a preview, so a renderer holds one tenant's document, a crash or
//     limit fails only the task (or preview) that drew it, and rlottie's model stays loaded
//     between frames (no per-frame start or parse). Its cost is one process start per Lottie
//     asset per render (4 to 15 ms here) and about 30 MB of resident memory (the Go
//     runtime, rlottie, 8 threads; VmData 150 MB, mostly thread stacks, against the 1 GiB
//     limit); a pool shared by tenants would mix their documents in one process.
//     Close (compositor.Close at the end of a render, or a preview's eviction) kills the
//     renderer and waits until it was reaped; the garbage collector's cleanup of an
//     Animation does it too. The renderer is started from one OS thread that never exits,
//     because the parent-death signal fires when the thread that started a process exits.
//   - ReadStats counts renderers started, running and failed by reason (the killed ones
//     included); the App serves them as cutroom_lottie_renderers_*.
//
// Cost, measured on the loaded 2-core VM against the in-process rendering of 6c6a1bc
// (interleaved, medians):
//   - BenchmarkRender1080p (15 corpus files at 1920 x 1080, go test -bench Render1080p
//     -benchtime 200x, 6 runs each, load averages 8 to 10): 3.0x the frames per second of
//     6c6a1bc (median over files; geometric mean 2.6x), 1.76 ms of CPU time a frame against
//     2.79 (the renderers' CPU counted). Most of it is not the process: the ARGB -> RGBA
//     swap was a byte loop taking 1.5 of the 1.9 ms a frame of the rect file cost, and is now
//     one word operation the compiler vectorises. With that swap in both (loads 14 to 17),
//     the renderer process costs 0.30 ms of CPU time a 1080p frame (1.79 ms against 1.49:
//     the copy out of the shared memory, two context switches, the socket) and 0.89x the
//     frames per second (median over files; the figures of single files vary by 2x under
//     this load). A request's round trip at 16 x 16 pixels: 41 us against 0.6 us in-process.
//   - a full-frame Lottie export (bench/lottie-export.sh: the precomp file stretched over
//     1920 x 1080, 10 s at 30 fps, cutroom export --workers 2 --threads 2, 5 runs each,
//     loads 10 to 14): wall 8.1 s against 10.5 (0.77x), CPU 6.23 s against 6.60 (0.94x),
//     peak RSS of the largest process 408 MB against 420 MB; both outputs decode to the
//     same frames.
//
// # Other systems than Linux
//
// The renderer processes are Linux's: memfd shared memory, RLIMIT_DATA and RLIMIT_CPU,
// Landlock, seccomp and the parent-death signal. rlottie is C++ reading hostile documents
// and is never run without that confinement, so child.go, renderer.go, rlottie.go and
// sandbox.c build on Linux only, and a build for another system (the Windows build of
// `make windows`) has no rlottie at all: Supported returns why, Open and Probe return that
// error (ErrUnsupported), the compositor's Features list no lottie items (capabilities omit
// them; an export using one is refused with EXPORT_FEATURE_UNSUPPORTED) and `cutroom
// version` prints it under "without:". Check (the budget, pure Go) works everywhere, so
// uploads of Lottie files are measured and stored the same. A Windows renderer would need
// its own confinement (a job object with a memory and CPU limit, a restricted token, an
// AppContainer with no file access, shared memory by a section handle): not built.
//
// # Differences from lottie-web
//
// rlottie draws whole frames: a frame is chosen as lottie-web chooses it with subframes
// off (t * fr truncated); lottie-web's default player interpolates between frames. rlottie
// ignores expressions (the property's keyframed value is drawn) and layer effects, which
// lottie-web partly evaluates; such files draw without them.
package lottie
