"""Writes the editor state of the clip benchmarks (video-clips.sh, pip.sh).

usage: clips_state.py OUT SECONDS SOURCE_WxH [PIP_W PIP_H PIP_X PIP_Y | single]

Two full-frame clips a.mp4 and b.mp4 (SOURCE_WxH, drawn at 1920x1080) cut at the middle with
a 1 s fade, under music.mp3 at -6 dB with 2 s fades; with the PIP arguments, a third clip
c.mp4 plays the whole time in a PIP_W x PIP_H corner at PIP_X, PIP_Y. With "single" (clip.sh),
a.mp4 alone fills the frame for the whole time: no cut, no fade, no music.
"""
import json
import sys

path, secs = sys.argv[1], int(sys.argv[2])
sw, sh = (int(v) for v in sys.argv[3].split("x"))
single = sys.argv[4:] == ["single"]
pip = [] if single else [int(v) for v in sys.argv[4:8]]
tb, half = 240000, secs // 2


def anim(v):
    return {"value": v, "keyframes": []}


def item(i, typ, asset, start, dur, extra):
    m = {"id": i, "type": typ, "assetId": asset, "startTicks": start, "durationTicks": dur,
         "isDraggingInTimeline": False, "left": anim(0), "top": anim(0), "width": anim(1920), "height": anim(1080),
         "scaleX": anim(1), "scaleY": anim(1), "opacity": anim(1), "rotation": anim(0),
         "decibelAdjustment": anim(0), "playbackRate": 1, "audioFadeInDurationInSeconds": 0,
         "audioFadeOutDurationInSeconds": 0}
    m.update(extra)
    return m


vid = {"keepAspectRatio": False, "borderRadius": anim(0), "videoStartFromInSeconds": 0}


def vasset(i, f, d, w, h):
    return {"id": i, "type": "video", "filename": f, "size": 1, "remoteUrl": None, "remoteKey": f,
            "mimeType": "video/mp4", "durationInSeconds": d, "hasAudioTrack": False, "width": w, "height": h}


tracks = [{"id": "music", "hidden": False, "muted": False, "items": ["m"]},
          {"id": "video", "hidden": False, "muted": False, "items": ["a", "b"]}]
assets = {"a": vasset("a", "a.mp4", half + 1, sw, sh), "b": vasset("b", "b.mp4", half + 1, sw, sh),
          "music": {"id": "music", "type": "audio", "filename": "music.mp3", "size": 1, "remoteUrl": None,
                    "remoteKey": "music.mp3", "mimeType": "audio/mpeg", "durationInSeconds": secs}}
items = {"a": item("a", "video", "a", 0, half * tb, vid),
         "b": item("b", "video", "b", half * tb, (secs - half) * tb, dict(vid, videoStartFromInSeconds=0.5)),
         "m": item("m", "audio", "music", 0, secs * tb, {"audioStartFromInSeconds": 0,
                   "decibelAdjustment": anim(-6), "audioFadeInDurationInSeconds": 2, "audioFadeOutDurationInSeconds": 2})}
if pip:
    pw, ph, px, py = pip
    tracks.insert(1, {"id": "pip", "hidden": False, "muted": False, "items": ["c"]})
    assets["c"] = vasset("c", "c.mp4", secs, 1920, 1080)
    items["c"] = item("c", "video", "c", 0, secs * tb, dict(vid, left=anim(px), top=anim(py), width=anim(pw), height=anim(ph)))
if single:
    tracks = [{"id": "video", "hidden": False, "muted": False, "items": ["a"]}]
    assets = {"a": vasset("a", "a.mp4", secs, sw, sh)}
    items = {"a": item("a", "video", "a", 0, secs * tb, vid)}
st = {"compositionWidth": 1920, "compositionHeight": 1080, "timebaseTicksPerSecond": tb,
      "tracks": tracks, "assets": assets, "items": items,
      "transitions": {} if single else {"x": {"id": "x", "trackId": "video", "fromClipId": "a", "toClipId": "b",
                                            "type": "fade", "durationTicks": tb}},
      "globalBackground": {"type": "color", "color": "#000000", "gradient": None}}
json.dump(st, open(path, "w"))
