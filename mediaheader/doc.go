// Package mediaheader reads the few file headers that the asset store's upload probes
// (package assets) and the decoders for rendering (package media) both need: a JPEG's EXIF
// orientation (uploads report the size as displayed, rendering turns the picture upright)
// and the chunks of a WAV file (uploads take its duration, rendering its samples).
//
// Decision: a leaf (it imports only apierr), so that neither assets nor media imports the
// other (media must not bring the store, and through it the database, into the renderer).
// It reads headers only, through small fixed buffers, whatever sizes the file declares.
//
// Errors: a header that breaks its format's rules is ASSET_INVALID (CodeInvalid), the code
// both importers answer a malformed file with, so they pass it on as it is.
package mediaheader
