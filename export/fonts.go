package export

import (
	"fmt"
	"log/slog"

	"github.com/cutroom/cutroom/editor"
	"github.com/cutroom/cutroom/model"
)

// What Create does with a state naming font families no font provides (Config.MissingFonts,
// serve --missing-fonts).
const (
	// MissingFontsWarn (the default) creates the task with the missing families as its
	// warnings, logs them, and draws their text with the fallback font.
	MissingFontsWarn = "warn"
	// MissingFontsRefuse refuses the state with 422 EXPORT_FONT_MISSING naming the family.
	MissingFontsRefuse = "refuse"
)

// CheckMissingFonts refuses a Config.MissingFonts that is none of the policies ("" is
// MissingFontsWarn).
func CheckMissingFonts(policy string) error {
	switch policy {
	case "", MissingFontsWarn, MissingFontsRefuse:
		return nil
	}
	return fmt.Errorf("%q: want %s or %s", policy, MissingFontsWarn, MissingFontsRefuse)
}

// checkFonts lists the font families parsed names that no font provides (editor.FontIssues
// with Config.Fonts) as the task's warnings; with MissingFontsRefuse it refuses the state
// with EXPORT_FONT_MISSING, the first issue's path and message, and every issue in errors.
func (s *Service) checkFonts(parsed *editor.State) ([]model.Warning, error) {
	if s.cfg.Fonts == nil {
		return nil, nil
	}
	issues := editor.FontIssues(parsed, s.cfg.Fonts)
	if len(issues) == 0 {
		return nil, nil
	}
	if s.cfg.MissingFonts == MissingFontsRefuse {
		first := issues[0]
		msg := "at " + first.Path + ": " + first.Message
		if n := len(issues) - 1; n > 0 {
			msg += fmt.Sprintf(" (and %d more; see errors)", n)
		}
		return nil, editor.APICode(first.Code).Field("editorState"+first.Path, "%s", msg).WithDetails(issues)
	}
	out := make([]model.Warning, len(issues))
	for i, is := range issues {
		out[i] = model.Warning{Code: is.Code, Path: is.Path, Message: is.Message}
	}
	return out, nil
}

// logWarnings writes a task's warnings to log, one line each.
func logWarnings(log *slog.Logger, t *model.ExportTask) {
	for _, w := range t.Warnings {
		log.Warn("export warning", "task", t.ID, "code", w.Code, "path", w.Path, "message", w.Message)
	}
}
