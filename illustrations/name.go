package illustrations

import (
	"errors"
	"fmt"
)

// MaxNameLength is the longest name of a workspace illustration, in characters.
const MaxNameLength = 64

// ValidName checks the name of a workspace's own illustration (the upload header
// x-illustration-name and the CLI's NAME.svg files): 1..MaxNameLength characters of ASCII
// letters, digits, '-' and '_', starting with a letter or a digit. Names are
// case-sensitive, as an editor state's illustrationName and imageComponentId are. A built-in
// illustration's name is refused too, so that a name always means one drawing (see
// ErrNameBuiltin).
func ValidName(name string) error {
	if name == "" || len(name) > MaxNameLength {
		return fmt.Errorf("%w: %q must be 1..%d characters", ErrNameInvalid, trunc(name), MaxNameLength)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || (i > 0 && (c == '-' || c == '_'))
		if !ok {
			return fmt.Errorf("%w: %q may hold only ASCII letters, digits, '-' and '_', and must start with a letter or digit", ErrNameInvalid, trunc(name))
		}
	}
	if _, builtin := ByName(name); builtin {
		return fmt.Errorf("%w: %q is a built-in illustration", ErrNameBuiltin, name)
	}
	return nil
}

// Errors of ValidName.
var (
	ErrNameInvalid = errors.New("illustration name invalid")
	ErrNameBuiltin = errors.New("illustration name is built in")
)

func trunc(s string) string {
	if len(s) > MaxNameLength+8 {
		return s[:MaxNameLength+8] + "..."
	}
	return s
}
