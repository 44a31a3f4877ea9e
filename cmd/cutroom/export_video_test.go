package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cutroom/cutroom/internal/dirtest"
	"github.com/cutroom/cutroom/model"
	"github.com/cutroom/cutroom/storage"
	"github.com/google/uuid"
)

func needFFprobe(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (make test-deps)", tool)
		}
	}
}

// probeVideo returns codec, size, frame rate and decoded frame count of a file's video.
func probeVideo(t *testing.T, path string) (codec string, w, h int, rate string, frames int64) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,width,height,r_frame_rate,nb_read_frames", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var r struct {
		Streams []struct {
			CodecName    string `json:"codec_name"`
			Width        int    `json:"width"`
			Height       int    `json:"height"`
			RFrameRate   string `json:"r_frame_rate"`
			NbReadFrames string `json:"nb_read_frames"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Streams) != 1 {
		t.Fatalf("ffprobe: %s %v", out, err)
	}
	s := r.Streams[0]
	n, _ := strconv.ParseInt(s.NbReadFrames, 10, 64)
	return s.CodecName, s.Width, s.Height, s.RFrameRate, n
}

// leftovers lists files in dir whose names contain name (the output or its temp files).
func leftovers(t *testing.T, dir, name string) []string {
	t.Helper()
	var got []string
	for _, n := range dirtest.Names(t, dir) {
		if strings.Contains(n, name) || strings.Contains(n, ".tmp") || strings.Contains(n, "spool") {
			got = append(got, n)
		}
	}
	return got
}

func TestExportVideo(t *testing.T) {
	needFFprobe(t)
	dir, state := writeExportFixture(t)
	assets := filepath.Join(dir, "assets")
	for _, tc := range []struct {
		name  string
		out   string
		args  []string
		codec string
		w, h  int
		rate  string
		n     int64
	}{
		{"mp4 from the extension", "a.mp4", nil, "h264", 160, 90, "30/1", 30},
		{"webm 60 fps scale 2", "b.webm", []string{"--fps", "60", "--scale", "2", "--crf", "40", "--preset", "ultrafast"}, "vp9", 320, 180, "60/1", 60},
		{"mp4 by --format, odd scale rounds to even", "c.video", []string{"--format", "mp4", "--scale", "1.05", "--threads", "1", "--workers", "1"}, "h264", 168, 94, "30/1", 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.out)
			args := append([]string{"export", state, "-o", out, "--assets", assets}, tc.args...)
			cmd := exec.Command(binPath, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("export: %v\n%s", err, stderr.String())
			}
			codec, w, h, rate, n := probeVideo(t, out)
			if codec != tc.codec || w != tc.w || h != tc.h || rate != tc.rate || n != tc.n {
				t.Errorf("got %s %dx%d %s %d frames, want %s %dx%d %s %d", codec, w, h, rate, n, tc.codec, tc.w, tc.h, tc.rate, tc.n)
			}
			// not a terminal: plain progress lines, ending at 100%, and a summary
			msg := stderr.String()
			if !strings.Contains(msg, "frames (100%)") || strings.Contains(msg, "\r") || !strings.Contains(msg, "export: wrote") {
				t.Errorf("stderr is not plain progress lines:\n%s", msg)
			}
		})
	}
	if got := leftovers(t, dir, ".tmp"); len(got) != 0 {
		t.Errorf("temporary files left: %v", got)
	}
}

func TestExportVideoFailsCleanly(t *testing.T) {
	dir, state := writeExportFixture(t)
	assets := filepath.Join(dir, "assets")
	out := filepath.Join(dir, "v.mp4")
	failsCleanly(t, dir, "v.", []failCase{
		{"missing asset", []string{"export", state, "-o", out, "--assets", filepath.Join(dir, "nothing")}, "asset"},
		{"format mismatch", []string{"export", state, "-o", out, "--format", "webm", "--assets", assets}, "does not match"},
		{"unknown extension", []string{"export", state, "-o", filepath.Join(dir, "v.avi"), "--assets", assets}, "cannot tell the format"},
		{"bad format", []string{"export", state, "-o", out, "--format", "mov", "--assets", assets}, "use mp4 or webm"},
		{"frame with video", []string{"export", state, "-o", out, "--frame", "2", "--assets", assets}, "--frame is for PNG"},
		{"bad crf", []string{"export", state, "-o", out, "--crf", "99", "--assets", assets}, "crf 99"},
		{"bad preset", []string{"export", state, "-o", out, "--preset", "warp", "--assets", assets}, "preset"},
		{"too large", []string{"export", state, "-o", out, "--scale", "8", "--max-side", "1000", "--assets", assets}, "at most 1000 pixels"},
		{"bad fps", []string{"export", state, "-o", out, "--fps", "0", "--assets", assets}, "--fps"},
		{"bad progress", []string{"export", state, "-o", out, "--progress", "loud", "--assets", assets}, "--progress"},
		{"missing dir", []string{"export", state, "-o", filepath.Join(dir, "no", "v.mp4"), "--assets", assets}, "not usable"},
	})
}

// failCase is a cutroom command that must fail, and what its message must mention.
type failCase struct {
	name string
	args []string
	msg  string
}

// failsCleanly runs each case: the command must fail with a message mentioning msg and
// leave nothing named like name, and no temporary file, in dir.
func failsCleanly(t *testing.T, dir, name string, cases []failCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := exec.Command(binPath, tc.args...).CombinedOutput()
			if err == nil {
				t.Fatalf("export succeeded:\n%s", b)
			}
			if !strings.Contains(string(b), tc.msg) {
				t.Errorf("message %q does not mention %q", b, tc.msg)
			}
			if got := leftovers(t, dir, name); len(got) != 0 {
				t.Errorf("left files behind: %v", got)
			}
		})
	}
}

// TestExportVideoInterrupt sends SIGINT mid-render: the command fails with a clear message
// and leaves no output or temporary file.
func TestExportVideoInterrupt(t *testing.T) {
	dir, state := writeExportFixture(t)
	raw, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	// ten minutes of video: far longer than the test waits
	long := strings.ReplaceAll(string(raw), `"durationTicks":240000`, `"durationTicks":144000000`)
	if err := os.WriteFile(state, []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "long.mp4")
	cmd := exec.Command(binPath, "export", state, "-o", out, "--assets", filepath.Join(dir, "assets"), "--progress", "lines", "--preset", "ultrafast")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() || !strings.Contains(sc.Text(), "frames") {
		t.Fatalf("no progress line: %q", sc.Text())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var rest strings.Builder
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("export did not stop after SIGINT")
	}
	if err == nil {
		t.Fatal("interrupted export exited 0")
	}
	if !strings.Contains(rest.String(), "interrupted") {
		t.Errorf("stderr after SIGINT: %q", rest.String())
	}
	if got := leftovers(t, dir, "long.mp4"); len(got) != 0 {
		t.Errorf("left files behind: %v", got)
	}
}

// TestExportVideoFromDataDir resolves an uploaded asset from a stopped server's data dir
// with --workspace, and refuses while another process holds the database.
func TestExportVideoFromDataDir(t *testing.T) {
	needFFprobe(t)
	dir, state := writeExportFixture(t)
	dataDir := t.TempDir()
	db, ws, key, green := uploadedAsset(t, dataDir, state)
	if err := os.MkdirAll(filepath.Join(dataDir, "files", filepath.Dir(key)), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "files", key), green, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "dd.mp4")
	args := []string{"export", state, "-o", out, "--assets", filepath.Join(dir, "assets"), "--data-dir", dataDir, "--workspace", ws}
	// while this test holds the database, like a running server
	if b, err := exec.Command(binPath, args...).CombinedOutput(); err == nil || !strings.Contains(string(b), "in use") {
		t.Errorf("export with the database held: err %v\n%s", err, b)
	}
	db.Close()
	if b, err := exec.Command(binPath, args...).CombinedOutput(); err != nil {
		t.Fatalf("export from the data dir: %v\n%s", err, b)
	}
	if codec, _, _, _, n := probeVideo(t, out); codec != "h264" || n != 30 {
		t.Errorf("got %s with %d frames", codec, n)
	}
	// without --workspace the uploaded file is not found
	if b, err := exec.Command(binPath, "export", state, "-o", filepath.Join(dir, "nows.mp4"), "--assets", filepath.Join(dir, "assets")).CombinedOutput(); err == nil || !strings.Contains(string(b), "asset") {
		t.Errorf("export without --workspace: err %v\n%s", err, b)
	}
}

// uploadedAsset records, in a new database in dataDir, a workspace and an uploaded image
// asset whose file is the fixture's green.png (state's directory: writeExportFixture),
// rewrites state to name it by its key, and returns the open database (the caller closes
// it), the workspace id, the asset's file key (under files/) and the file's bytes; the
// file itself is not stored.
func uploadedAsset(t *testing.T, dataDir, state string) (db *storage.DB, workspaceID, key string, file []byte) {
	t.Helper()
	db, err := storage.Open(dataDir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := db.CreateWorkspace(storage.WorkspaceInput{Name: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	key = "assets/" + ws.ID + "/" + id + "/green.png"
	green, err := os.ReadFile(filepath.Join(filepath.Dir(state), "assets", "media", "green.png"))
	if err != nil {
		t.Fatal(err)
	}
	w := 20
	if err := db.CreateAsset(model.Asset{ID: id, WorkspaceID: ws.ID, Type: "image", Source: "upload", Filename: "green.png",
		MimeType: "image/png", Size: int64(len(green)), FileKey: key, Width: &w, Height: &w, CreatedAt: time.Now()}, ""); err != nil {
		t.Fatal(err)
	}
	// The state names the uploaded file by its key; the --assets dir does not have it.
	raw, _ := os.ReadFile(state)
	if err := os.WriteFile(state, []byte(strings.Replace(string(raw), `"remoteKey":"media/green.png"`, `"remoteKey":"`+key+`"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return db, ws.ID, key, green
}
