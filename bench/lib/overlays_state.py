"""Writes the editor states of bench/overlays.sh.

usage: overlays_state.py OUT_WITH OUT_ALONE SECONDS LOGO_SIZE LOGO_X LOGO_Y

One full-frame 1920x1080 clip clip.mp4 (SECONDS long, no sound). OUT_WITH adds, above it, a
caption line a second (Noto Sans Bold 48 px, white with a 3 px black stroke, on a box of
black at 60% with 16 px of padding, centred 120 px above the bottom: the text of
captions.txt, line by line) and the PNG logo.png (LOGO_SIZE square at LOGO_X, LOGO_Y) for the
whole duration; OUT_ALONE is the clip alone.
"""
import json
import os
import sys

out_with, out_alone, secs = sys.argv[1], sys.argv[2], int(sys.argv[3])
ls, lx, ly = (int(v) for v in sys.argv[4:7])
lines = open(os.path.join(os.path.dirname(out_with), "captions.txt")).read().splitlines()
tb = 240000


def anim(v):
    return {"value": v, "keyframes": []}


def box(i, typ, start, dur, left, top, w, h, extra):
    m = {"id": i, "type": typ, "startTicks": start, "durationTicks": dur, "isDraggingInTimeline": False,
         "left": anim(left), "top": anim(top), "width": anim(w), "height": anim(h),
         "scaleX": anim(1), "scaleY": anim(1), "opacity": anim(1), "rotation": anim(0)}
    m.update(extra)
    return m


crops = {c: anim(0) for c in ("cropLeft", "cropTop", "cropRight", "cropBottom")}
clip = box("clip", "video", 0, secs * tb, 0, 0, 1920, 1080, dict(crops, **{
    "assetId": "clip", "keepAspectRatio": False, "borderRadius": anim(0), "videoStartFromInSeconds": 0,
    "decibelAdjustment": anim(0), "playbackRate": 1, "audioFadeInDurationInSeconds": 0,
    "audioFadeOutDurationInSeconds": 0}))
assets = {"clip": {"id": "clip", "type": "video", "filename": "clip.mp4", "size": 1, "remoteUrl": None,
                   "remoteKey": "clip.mp4", "mimeType": "video/mp4", "durationInSeconds": secs,
                   "hasAudioTrack": False, "width": 1920, "height": 1080}}


def state(tracks, items, assets):
    return {"compositionWidth": 1920, "compositionHeight": 1080, "timebaseTicksPerSecond": tb,
            "tracks": tracks, "assets": assets, "items": items, "transitions": {},
            "globalBackground": {"type": "color", "color": "#000000", "gradient": None}}


def track(i, ids):
    return {"id": i, "hidden": False, "muted": False, "items": ids}


json.dump(state([track("video", ["clip"])], {"clip": clip}, assets), open(out_alone, "w"))

items = {"clip": clip}
caps = []
for s in range(secs):
    i = f"cap{s}"
    caps.append(i)
    items[i] = box(i, "text", s * tb, tb, 160, 1080 - 120 - 80, 1600, 80, {
        "text": lines[s % len(lines)], "fontFamily": "Noto Sans",
        "fontStyle": {"variant": "normal", "weight": "700"}, "lineHeight": 1.2, "letterSpacing": 0,
        "fontSize": 48, "align": "center", "color": "#ffffff", "strokeWidth": 3, "strokeColor": "#000000",
        "direction": "ltr", "resizeOnEdit": False,
        "background": {"color": "rgba(0,0,0,0.6)", "horizontalPadding": 16, "borderRadius": 0}})
items["logo"] = box("logo", "image", 0, secs * tb, lx, ly, ls, ls, dict(crops, **{
    "assetId": "logo", "keepAspectRatio": True, "borderRadius": anim(0)}))
assets = dict(assets, logo={"id": "logo", "type": "image", "filename": "logo.png", "size": 1, "remoteUrl": None,
                            "remoteKey": "logo.png", "mimeType": "image/png", "width": ls, "height": ls})
json.dump(state([track("logo", ["logo"]), track("captions", caps), track("video", ["clip"])], items, assets),
          open(out_with, "w"))
