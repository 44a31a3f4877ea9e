#!/usr/bin/env python3
"""A desktop app's side of bundling cutroom (docs/bundling.md), in the standard library only.

It starts `cutroom serve` on a free loopback port with its own data dir and API key, learns
where it listens from the ready object on an inherited pipe (--ready-fd), creates a project,
exports it to MP4 through the API, downloads the file, and then dies with SIGKILL, as a
crashing app would: the server notices (--parent-pid, --exit-on-stdin-eof), pauses what it
renders, and exits on its own.

    python3 examples/bundling/parent.py --cutroom ./cutroom --data-dir /tmp/app-data --out /tmp/out.mp4

It prints one JSON line: the ready object, the task and the output file.
"""

import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request

# A 2 s, 320x180 editor state: one green rectangle over the whole frame.
STATE = {
    "compositionWidth": 320, "compositionHeight": 180, "timebaseTicksPerSecond": 240000,
    "tracks": [{"id": "t1", "items": ["s1"], "hidden": False, "muted": False}],
    "assets": {}, "transitions": {}, "globalBackground": {"type": "none"}, "deletedAssets": [],
    "items": {"s1": {
        "id": "s1", "type": "solid", "startTicks": 0, "durationTicks": 480000,
        "shape": "rectangle", "color": "#22c55e", "isDraggingInTimeline": False, "keepAspectRatio": False,
        **{k: {"value": v, "keyframes": []} for k, v in {
            "left": 0, "top": 0, "width": 320, "height": 180, "scaleX": 1, "scaleY": 1,
            "opacity": 1, "borderRadius": 0, "rotation": 0}.items()},
    }},
}


def start_cutroom(cutroom, data_dir, api_key, timeout=30):
    """Start cutroom serve and return (process, ready object) once it answers requests."""
    ready_r, ready_w = os.pipe()
    proc = subprocess.Popen(
        [cutroom, "serve",
         "--addr", "127.0.0.1:0",            # a free port: the ready object names it
         "--data-dir", data_dir,
         "--api-key", api_key,               # the app's own key: nothing to parse from stdout
         "--ready-fd", str(ready_w),         # the ready object arrives on this pipe
         "--parent-pid", str(os.getpid()),   # exit when this process ends...
         "--exit-on-stdin-eof",              # ...or when the stdin pipe below closes
         "--log-format", "json"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, pass_fds=(ready_w,))
    os.close(ready_w)  # only the server holds the write end now: EOF means it wrote or died
    with os.fdopen(ready_r, "rb") as ready_pipe:
        line = ready_pipe.readline()  # one JSON line, then the server closes its end
    if not line:
        proc.wait(timeout)
        sys.exit(f"cutroom exited with status {proc.returncode} before it was ready")
    return proc, json.loads(line)


def api(ready, api_key, method, path, body=None):
    """One JSON request to the server; returns the answer's "data"."""
    req = urllib.request.Request(ready["url"] + ready["api"] + path, method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"x-api-key": api_key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.load(resp)["data"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cutroom", default="cutroom", help="the cutroom binary")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--out", required=True, help="where the MP4 goes")
    ap.add_argument("--stay", action="store_true", help="stop the server and exit normally instead of dying")
    args = ap.parse_args()

    api_key = "cutroom_sk_" + secrets.token_urlsafe(24)
    proc, ready = start_cutroom(args.cutroom, args.data_dir, api_key)

    project = api(ready, api_key, "POST", "/projects", {"title": "Bundled", "editorState": STATE})
    created = api(ready, api_key, "POST", f"/projects/{project['projectId']}/exports",
                  {"fps": 30, "ratio": "16:9", "scale": 0.6, "format": "mp4"})
    deadline = time.monotonic() + 120
    while True:
        task = api(ready, api_key, "GET", f"/exports/{created['taskId']}")
        if task["status"] in ("COMPLETED", "FAILED", "CANCELED"):
            break
        if time.monotonic() > deadline:
            sys.exit(f"export {task['taskId']} not done in time: {task['status']}")
        time.sleep(0.2)
    if task["status"] != "COMPLETED":
        sys.exit(f"export {task['taskId']}: {task['status']} {task.get('error')}")
    with urllib.request.urlopen(task["outputUrl"], timeout=60) as resp, open(args.out, "wb") as out:
        out.write(resp.read())

    print(json.dumps({"ready": ready, "taskId": task["taskId"], "output": args.out}), flush=True)
    if args.stay:
        proc.terminate()  # SIGTERM: the same graceful shutdown; or close proc.stdin
        sys.exit(proc.wait(60))
    os.kill(os.getpid(), signal.SIGKILL)  # die as a crashing app does: the server follows


if __name__ == "__main__":
    main()
