package export

import (
	"strings"

	"github.com/cutroom/cutroom/editor"
)

// RefuseUnsupported is how a state that uses features outside fs, what the renderer draws
// (editor.UnsupportedFeatures), is refused: EXPORT_FEATURE_UNSUPPORTED about editorState,
// naming them in its message and details; nil when it uses none. Create refuses with it
// for a Featured renderer, and `cutroom export` for its own.
func RefuseUnsupported(st *editor.State, fs editor.FeatureSet) error {
	names := editor.UnsupportedFeatures(st, fs)
	if len(names) == 0 {
		return nil
	}
	return ErrFeatureUnsupported.Field("editorState",
		"this server cannot render these features of the state yet: %s", strings.Join(names, ", ")).WithDetails(names)
}

// RefuseUndrawable is how a state is refused whose contents sc cannot draw although their
// features are supported (StateChecker: an inline Lottie document package lottie refuses):
// EXPORT_FEATURE_UNSUPPORTED about editorState with the reasons; nil when sc names none.
func RefuseUndrawable(st *editor.State, sc StateChecker) error {
	reasons := sc.CheckState(st)
	if len(reasons) == 0 {
		return nil
	}
	return ErrFeatureUnsupported.Field("editorState",
		"this server cannot draw parts of the state: %s", strings.Join(reasons, "; ")).WithDetails(reasons)
}
