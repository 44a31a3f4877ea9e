package assets

import "unicode"

// UnsafeNameRune reports whether r may not appear in a file name the server keeps and serves
// back (Content-Disposition): control characters (Cc), line and paragraph separators, and
// format characters (Cf), which include the bidi controls (U+202A..U+202E, U+2066..U+2069,
// U+200E, U+200F, U+061C) that make "evil\u202egnp.exe" display as "evilexe.png", the byte
// order mark and invisible characters such as U+200B and U+00AD. Zero-width non-joiner and
// joiner (U+200C, U+200D) are allowed: Persian and Indic names and emoji sequences need them,
// and they cannot reorder text.
//
// Uploads remove these characters from x-file-name (CleanFileName); an export's filename,
// which the client chooses for the file it downloads, is refused when it holds one.
func UnsafeNameRune(r rune) bool {
	if r == 0x200c || r == 0x200d {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029
}
