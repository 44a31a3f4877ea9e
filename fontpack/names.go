package fontpack

import (
	"regexp"
	"strings"
)

// idRE is a fontsource package id (and a family's directory name): lower-case letters and
// digits in dash-separated runs.
var idRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// fileRE is the name of a file in a family's directory: no separators, no leading dot.
var fileRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// maxNameLen bounds an id and a file name.
const maxNameLen = 200

// ID returns the fontsource id of a family name, the name of its npm package
// (@fontsource/<id>) and of its directory in a fonts directory: lower case, every run of
// other characters than letters and digits one dash ("TikTok Sans" -> "tiktok-sans",
// "Noto Sans JP" -> "noto-sans-jp"). An id given as the family is its own id. It returns ""
// for a name with no letter or digit.
func ID(family string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(family) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	if b.Len() > maxNameLen {
		return ""
	}
	return b.String()
}

// validID reports whether s may name a family's directory.
func validID(s string) bool { return len(s) <= maxNameLen && idRE.MatchString(s) }

// validFile reports whether s may name a file in a family's directory.
func validFile(s string) bool { return len(s) <= maxNameLen && fileRE.MatchString(s) }
