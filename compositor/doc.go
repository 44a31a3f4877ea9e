// Package compositor draws one frame of an editor state at a time, in pure Go, into a
// caller's RGBA buffer.
//
// A Compositor is built once per state with New and then renders any frame with
// RenderFrame, from several goroutines at once if wanted (each with its own buffer). It
// never opens files: decoded media comes from the caller's Media, text layers from an
// optional TextRenderer (TextItems draws text, captions, text templates and chart labels
// with package compositor/text), and illustrations from the editor's built-in library.
// Charts are rasterised here with golang.org/x/image/vector. Lottie items are drawn by
// package lottie (rlottie in a confined renderer process per Lottie asset, the one non-Go
// renderer the compositor calls; its frames come back as RGBA pictures drawn like any
// image). Close stops those processes: whoever makes a Compositor that may draw Lottie
// items closes it when done (the garbage collector would too, later).
//
// The frame is what the editor's CSS preview shows for the same state. README.md in this
// directory defines every rendering rule exactly (geometry, animations, transitions,
// effects, filter looks, backgrounds, colours) as the CSS that draws it; the browser
// reference test (go test -run Browser) checks the rules against headless Chromium.
//
// Errors: the compositor never reaches an API client, so it has no error codes. Its errors
// match one sentinel kind (ErrMedia, ErrText, ErrIllustration, ErrBadOutput, ErrBadState)
// with errors.Is and read as their message alone, the media's or the text's error included
// as text; a cancelled context gives the context's error. The caller that shows errors to
// someone maps the kinds: package render turns them into the task error codes
// COMPOSITOR_... (see render's package doc).
package compositor
