package compositor

import (
	"image"
	"log/slog"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/testlog"
)

// TestTextWarningsNameTheRender: a text item's ignored colour is logged to the compositor's
// logger (which names the render: its task), not only to the logger the shared TextItems
// was made with.
func TestTextWarningsNameTheRender(t *testing.T) {
	var shared, render testlog.Buffer
	ti := NewTextItems(sharedLibrary(t), slog.New(slog.NewTextHandler(&shared, nil)))
	b := newBuilder().add(0, textItem("title", "Title", sec, "color", "not-a-colour"))
	c, err := New(parseValid(t, b.json()), Options{Text: ti,
		Logger: slog.New(slog.NewTextHandler(&render, nil)).With("task", "task-42")})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RenderFrame(t.Context(), 0, fps, image.NewRGBA(image.Rect(0, 0, tW, tH))); err != nil {
		t.Fatal(err)
	}
	if got := render.String(); !strings.Contains(got, "text item colour ignored") || !strings.Contains(got, "task=task-42") {
		t.Errorf("the render's log: %q, want the warning with the task", got)
	}
	if shared.String() != "" {
		t.Errorf("the shared logger got %q", shared.String())
	}
}
