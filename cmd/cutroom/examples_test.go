package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cutroom/cutroom/internal/ffmpegtest"
)

// TestExamples runs examples/quickstart.sh and examples/run.sh of every example against a
// server started as a newcomer starts it (the key its first start prints), and checks each
// video with ffprobe against what the example's state and export options ask for: codecs,
// size, frame count, duration and an audio stream exactly when the state has sound. A bad
// key must end the script with status 1 and the problem details on standard error.
func TestExamples(t *testing.T) {
	for _, tool := range []string{"ffmpeg", "ffprobe", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is missing (scripts/install-deps.sh installs it)", tool)
		}
	}
	srv := startServer(t, t.TempDir())
	key := printedKey(t, srv.out.String())
	examples, err := filepath.Abs(filepath.Join(repoRoot, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, key, script string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(filepath.Join(examples, script), args...)
		cmd.Env = append(os.Environ(), "CUTROOM_URL="+srv.base, "CUTROOM_API_KEY="+key)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		return stderr.String(), err
	}

	t.Run("quickstart", func(t *testing.T) {
		out := t.TempDir()
		log, err := run(t, key, "quickstart.sh", out)
		if err != nil {
			t.Fatalf("quickstart.sh: %v\n%s", err, log)
		}
		// each request is printed as it goes, in the order the quick start explains
		id := "[0-9a-f-]{36}"
		want := []string{"POST /v1/projects ", "POST /v1/uploads ", "POST /v1/editor/validate ",
			"POST /v1/projects/" + id + "/sync ", "POST /v1/projects/" + id + "/exports ",
			"GET /v1/exports/" + id + " ", "GET /outputs/" + id + "/slideshow.mp4[?]"}
		next := 0
		for _, line := range strings.Split(log, "\n") {
			if next == len(want) {
				break
			}
			method, path, _ := strings.Cut(want[next], " ")
			if regexp.MustCompile("^> " + method + " " + regexp.QuoteMeta(srv.base) + path).MatchString(line) {
				next++
			}
		}
		if next < len(want) {
			t.Fatalf("no request %q after the one before in the log:\n%s", want[next], log)
		}
		checkExampleVideo(t, filepath.Join(examples, "slideshow"), filepath.Join(out, "slideshow.mp4"))
	})

	dirs, err := filepath.Glob(filepath.Join(examples, "*", "state.json"))
	if err != nil || len(dirs) < 4 {
		t.Fatalf("examples: %v %v", dirs, err)
	}
	for _, state := range dirs {
		dir := filepath.Dir(state)
		name := filepath.Base(dir)
		if name == "slideshow" { // the quick start's
			continue
		}
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			log, err := run(t, key, "run.sh", name, out)
			if err != nil {
				t.Fatalf("run.sh %s: %v\n%s", name, err, log)
			}
			var opts struct{ Format string }
			readJSON(t, filepath.Join(dir, "export.json"), &opts)
			checkExampleVideo(t, dir, filepath.Join(out, name+"."+opts.Format))
		})
	}

	t.Run("bad key", func(t *testing.T) {
		log, err := run(t, "cutroom_sk_not-a-key-of-this-server", "run.sh", "captions", t.TempDir())
		if code := exitCode(err); code != 1 {
			t.Fatalf("run.sh with a bad key: exit status %d (%v), want 1\n%s", code, err, log)
		}
		if !strings.Contains(log, "< 401") || !strings.Contains(log, `"errorCode": "OPEN_API_KEY_INVALID"`) {
			t.Errorf("no problem details in the log:\n%s", log)
		}
	})
}

// printedKey is the API key a first start prints on the line after its announcement.
func printedKey(t *testing.T, out string) string {
	t.Helper()
	_, after, ok := strings.Cut(out, "API key of workspace \"default\" (shown once; store it now):\n")
	key, _, _ := strings.Cut(after, "\n")
	if !ok || !strings.HasPrefix(key, "cutroom_sk_") {
		t.Fatalf("no API key in the first start's output:\n%s", out)
	}
	return key
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// checkExampleVideo checks the video an example rendered against its state.json and
// export.json: the format's codecs, the composition x scale (even sides), ceil(length x fps)
// frames, the length, and an audio stream exactly when an unmuted track holds an audio
// item or a video item whose asset has sound.
func checkExampleVideo(t *testing.T, dir, video string) {
	t.Helper()
	var opts struct {
		Format string
		FPS    int
		Scale  float64
	}
	readJSON(t, filepath.Join(dir, "export.json"), &opts)
	var st struct {
		CompositionWidth, CompositionHeight int
		TimebaseTicksPerSecond              int64
		Tracks                              []struct {
			Items []string
			Muted bool
		}
		Items map[string]struct {
			Type                      string
			AssetID                   string
			StartTicks, DurationTicks int64
		}
		Assets map[string]struct{ HasAudioTrack bool }
	}
	readJSON(t, filepath.Join(dir, "state.json"), &st)
	var end int64
	sound := false
	for _, tr := range st.Tracks {
		for _, id := range tr.Items {
			it := st.Items[id]
			end = max(end, it.StartTicks+it.DurationTicks)
			sound = sound || !tr.Muted && (it.Type == "audio" || it.Type == "video" && st.Assets[it.AssetID].HasAudioTrack)
		}
	}
	seconds := float64(end) / float64(st.TimebaseTicksPerSecond)
	even := func(side int) int { return 2 * int(math.Round(float64(side)*opts.Scale/2)) }
	codecs := map[string][2]string{"mp4": {"h264", "aac"}, "webm": {"vp9", "opus"}}[opts.Format]

	info := ffmpegtest.ProbeFrames(t, video)
	var v, a *ffmpegtest.Stream
	for i, s := range info.Streams {
		switch s.CodecType {
		case "video":
			v = &info.Streams[i]
		case "audio":
			a = &info.Streams[i]
		}
	}
	if v == nil || v.CodecName != codecs[0] || v.Width != even(st.CompositionWidth) || v.Height != even(st.CompositionHeight) {
		t.Errorf("%s: video stream %+v, want %s %dx%d", video, v, codecs[0], even(st.CompositionWidth), even(st.CompositionHeight))
	} else if frames := int(math.Ceil(seconds * float64(opts.FPS))); v.NbReadFrames != strconv.Itoa(frames) {
		t.Errorf("%s: %s frames, want %d", video, v.NbReadFrames, frames)
	}
	if d, err := strconv.ParseFloat(info.Format.Duration, 64); err != nil || math.Abs(d-seconds) > 1/float64(opts.FPS)+0.03 {
		t.Errorf("%s: lasts %s s, want %.3f", video, info.Format.Duration, seconds)
	}
	switch {
	case sound && (a == nil || a.CodecName != codecs[1]):
		t.Errorf("%s: audio stream %+v, want %s", video, a, codecs[1])
	case !sound && a != nil:
		t.Errorf("%s: an audio stream %+v in an example without sound", video, a)
	}
}
