package app_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cutroom/cutroom/app"
	"github.com/cutroom/cutroom/internal/apptest"
	"github.com/cutroom/cutroom/internal/teststate"
	"github.com/cutroom/cutroom/lottie"
	"github.com/cutroom/cutroom/model"
)

// lottieState is a valid 320x180 state of 0.2 s with one lottie item (180 x 180 at 60, 0)
// whose asset carries doc as its inline resourceJson (teststate.Lottie).
func lottieState(doc string) string { return teststate.Lottie(doc, 320, 180, 60, 180, 180) }

// TestAppLottieExport: a lottie item with an inline animation exports (it was refused with
// EXPORT_FEATURE_UNSUPPORTED before lottie items were drawn), and one whose animation reads
// an image from a file is refused at create with EXPORT_FEATURE_UNSUPPORTED naming why.
func TestAppLottieExport(t *testing.T) {
	doc, err := os.ReadFile("../lottie/testdata/corpus/rect.json")
	if err != nil {
		t.Fatal(err)
	}
	task := exportOnce(t, app.RenderSettings{FrameWorkers: 1}, lottieState(string(doc)))
	if task.Status != model.StatusCompleted {
		t.Fatalf("task %s (error %q), want %s", task.Status, deref(task.Error), model.StatusCompleted)
	}

	img, err := os.ReadFile("../lottie/testdata/corpus/image.json")
	if err != nil {
		t.Fatal(err)
	}
	ext := strings.Replace(string(img), `"u":"","p":"data:image/png;base64,`, `"u":"/etc/","p":"hostname#`, 1)
	a := apptest.Serve(t, app.Config{}, nil)
	r := postExport(t, a, lottieState(ext))
	if r.status != 422 || !strings.Contains(r.body, "EXPORT_FEATURE_UNSUPPORTED") || !strings.Contains(r.body, "not embedded") {
		t.Fatalf("create with an external image: %d %s", r.status, r.body)
	}
}

// costlyLottie reads a file of lottie/testdata/costly: documents the budgets let through
// that are costly drawn at 1920 x 1080 ("slow": about 10 s of CPU time a frame here;
// "mattes": about 1 GB).
func costlyLottie(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../lottie/testdata/costly/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fullFrameLottie is a 1920x1080 state whose one lottie item "l1" (asset "lot") fills the
// frame with doc.
func fullFrameLottie(doc string) string { return teststate.Lottie(doc, 1920, 1080, 0, 1920, 1080) }

// TestAppLottieRendererFailures: a Lottie animation that makes its renderer go over its
// memory limit, and one whose frame the watchdog stops, fail their tasks with errors naming
// the item; the server (this test's process: rlottie ran in it before) carries on and its
// next export completes.
func TestAppLottieRendererFailures(t *testing.T) {
	a := apptest.Serve(t, app.Config{Render: app.RenderSettings{FrameWorkers: 1, MaxFrameSeconds: 2,
		Lottie: lottie.Options{Memory: 768 << 20}}}, nil)
	task := waitExport(t, a, createExport(t, a, fullFrameLottie(costlyLottie(t, "mattes"))))
	want := `COMPOSITOR_MEDIA_FAILED: frame 0: item "l1": lottie asset "lot": the Lottie animation exceeded its renderer's memory limit (768 MiB)`
	if task.Status != model.StatusFailed || !strings.HasPrefix(deref(task.Error), want) {
		t.Fatalf("mattes: task %s (error %q), want FAILED with %q", task.Status, deref(task.Error), want)
	}

	start := time.Now()
	task = waitExport(t, a, createExport(t, a, fullFrameLottie(costlyLottie(t, "slow"))))
	took := time.Since(start)
	want = `EXPORT_FRAME_TIMEOUT: frame 0 took longer than 2s while preparing item "l1" (lottie) with asset "lot"`
	if task.Status != model.StatusFailed || !strings.HasPrefix(deref(task.Error), want) {
		t.Fatalf("slow: task %s (error %q), want FAILED with %q", task.Status, deref(task.Error), want)
	}
	if took > 8*time.Second { // the frame would take 10 s of CPU time
		t.Fatalf("the stopped render ended %v after its export was created", took)
	}

	doc, err := os.ReadFile("../lottie/testdata/corpus/rect.json")
	if err != nil {
		t.Fatal(err)
	}
	if task = waitExport(t, a, createExport(t, a, lottieState(string(doc)))); task.Status != model.StatusCompleted {
		t.Fatalf("the next export: %s (error %q)", task.Status, deref(task.Error))
	}
}

// waitRendering waits until the task renders and a Lottie renderer more than before runs.
func waitRendering(t *testing.T, a *apptest.Served, id string, before int64) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		task, err := a.DB.ExportTaskByID(id)
		if err != nil {
			t.Fatal(err)
		}
		if task.Status == model.StatusProcessing && lottie.ReadStats().Running > before {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s, %d renderers: not drawing its Lottie", task.Status, lottie.ReadStats().Running)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAppLottieCancelFreesSlot: cancelling an export whose frame is in rlottie frees its
// render slot at once (the renderer is killed), so the next export, which waits for that
// slot (one worker), renders.
func TestAppLottieCancelFreesSlot(t *testing.T) {
	a := apptest.Serve(t, app.Config{Render: app.RenderSettings{FrameWorkers: 1}}, nil)
	before := lottie.ReadStats()
	id := createExport(t, a, fullFrameLottie(costlyLottie(t, "slow")))
	waitRendering(t, a, id, before.Running)
	if r := call(t, a, "DELETE", "/v1/exports/"+id, nil); r.status != 200 {
		t.Fatalf("cancel: %d", r.status)
	}
	cancelled := time.Now()
	for a.Exports.Running() > 0 {
		if time.Since(cancelled) > 3*time.Second { // the frame would take 10 s of CPU time
			t.Fatal("the cancelled render still holds its slot after 3 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if task, _ := a.DB.ExportTaskByID(id); task.Status != model.StatusCanceled {
		t.Fatalf("the cancelled task is %s", task.Status)
	}
	if got := lottie.ReadStats().Failed[lottie.ReasonKilled]; got != before.Failed[lottie.ReasonKilled]+1 {
		t.Fatalf("killed renderers %d, want %d", got, before.Failed[lottie.ReasonKilled]+1)
	}
	doc, err := os.ReadFile("../lottie/testdata/corpus/rect.json")
	if err != nil {
		t.Fatal(err)
	}
	if task := waitExport(t, a, createExport(t, a, lottieState(string(doc)))); task.Status != model.StatusCompleted {
		t.Fatalf("the next export: %s (error %q)", task.Status, deref(task.Error))
	}
}

// TestAppLottieShutdown: a shutdown while a frame is in rlottie kills its renderer and
// records the task PAUSED at once, not when the grace runs out (on a shared database,
// PENDING: released for any node to resume).
func TestAppLottieShutdown(t *testing.T) {
	a := apptest.Serve(t, app.Config{ShutdownGrace: 20 * time.Second, Render: app.RenderSettings{FrameWorkers: 1}}, nil)
	id := createExport(t, a, fullFrameLottie(costlyLottie(t, "slow")))
	waitRendering(t, a, id, lottie.ReadStats().Running)
	start := time.Now()
	a.Stop() // and closes the database
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the shutdown took %v", took)
	}
	db := a.Reopen(t)
	want := model.StatusPaused
	if db.Shared() {
		want = model.StatusPending
	}
	if task, err := db.ExportTaskByID(id); err != nil || task.Status != want {
		t.Fatalf("the task is %s (%v) after the shutdown, want %s", task.Status, err, want)
	}
}

// TestAppLottiePreviewGivesUp: previews whose client gave up while rlottie draws free
// their workspace's preview slots and the renderers' gate at once: the next preview draws
// (it was 429 FRAME_PREVIEWS_BUSY while the abandoned ones held both slots).
func TestAppLottiePreviewGivesUp(t *testing.T) {
	a := apptest.Serve(t, app.Config{}, nil)
	preview := func(ctx context.Context, state string) (int, error) {
		req, _ := http.NewRequestWithContext(ctx, "POST", a.BaseURL+"/v1/editor/frame",
			strings.NewReader(`{"editorState":`+state+`,"t":0,"width":1920,"format":"png"}`))
		req.Header.Set("x-api-key", a.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	slow := fullFrameLottie(costlyLottie(t, "slow"))
	errs := make(chan error, 2)
	for range 2 { // server.DefaultMaxPreviews
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_, err := preview(ctx, slow)
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a slow preview answered (%v) within 1 s", err)
		}
	}
	doc, err := os.ReadFile("../lottie/testdata/corpus/rect.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // the slow frames take 10 s of CPU time
	defer cancel()
	for {
		status, err := preview(ctx, lottieState(string(doc)))
		if err != nil {
			t.Fatalf("the next preview: %v", err)
		}
		if status == 200 {
			return
		}
		if status != 429 { // the server may not have seen the clients leave yet
			t.Fatalf("the next preview: %d", status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
