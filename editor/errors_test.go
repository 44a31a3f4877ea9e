package editor

import (
	"testing"

	"github.com/cutroom/cutroom/apierr"
)

// Every code of the package (interface codes, semantic rules, value limits) is an API code
// of the same name and kind Unprocessable, and no API code is defined without a constant.
func TestEveryCodeIsAnAPICode(t *testing.T) {
	all := append(SemanticCodes(), CodeSchemaInvalid, CodeEffectTypeInvalid, CodeFilterTypeInvalid,
		CodeTransitionTypeInvalid, CodeInvalidJSON)
	for _, code := range all {
		if c := APICode(code); c.String() != code || c.Kind() != apierr.Unprocessable {
			t.Errorf("APICode(%s) = %s (%s)", code, c, c.Kind())
		}
	}
	if n := len(interfaceCodes) + len(semanticCodes) + len(limitCodes); n != len(all) {
		t.Errorf("%d API codes defined for %d codes", n, len(all))
	}
	err := newError(CodeCropEmpty, "/items/a/cropLeft", "nothing visible")
	if err.Error() != "EDITOR_CROP_EMPTY at /items/a/cropLeft: nothing visible" || err.Field != "" {
		t.Errorf("%q field %q", err.Error(), err.Field)
	}
	if err := newError(CodeInvalidJSON, "", "x"); err.Error() != "EDITOR_INVALID_JSON: x" {
		t.Errorf("%q", err.Error())
	}
}
