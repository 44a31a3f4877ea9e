package export

import (
	"fmt"

	"github.com/cutroom/cutroom/editor"
)

// checkNames refuses a state naming an illustration or background image that neither the
// built-in sets nor the workspace's names (Config.Names) resolve, with the first issue's
// code (EDITOR_ILLUSTRATION_UNKNOWN, EDITOR_BACKGROUND_PRESET_UNKNOWN) and every issue in
// the problem's errors, as an invalid state is refused.
func (s *Service) checkNames(workspaceID string, st *editor.State) error {
	var refs editor.References
	if s.cfg.Names != nil {
		var err error
		if refs, err = s.cfg.Names(workspaceID); err != nil {
			return fmt.Errorf("export: the workspace's illustrations: %w", err)
		}
	}
	issues := editor.ReferenceIssues(st, refs)
	if len(issues) == 0 {
		return nil
	}
	first := issues[0]
	msg := "the editor state names what this server cannot find, at " + first.Path + ": " + first.Message
	if n := len(issues) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more; see errors)", n)
	}
	return editor.APICode(first.Code).Field("editorState"+first.Path, "%s", msg).WithDetails(issues)
}
