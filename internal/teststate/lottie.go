package teststate

import "strconv"

// Lottie is a valid w x h state of 0.2 s with one lottie item "l1", iw x ih at left, 0,
// whose asset "lot" carries doc (a Lottie document) as its inline resourceJson, drawn
// stretched (keepAspectRatio when iw == ih).
func Lottie(doc string, w, h, left, iw, ih int) string {
	return `{"compositionWidth":` + strconv.Itoa(w) + `,"compositionHeight":` + strconv.Itoa(h) + `,"timebaseTicksPerSecond":240000,` +
		`"tracks":[{"id":"t1","items":["l1"],"hidden":false,"muted":false}],` +
		`"assets":{"lot":{"id":"lot","type":"lottie","filename":"lot.json","size":1,"remoteUrl":null,` +
		`"remoteKey":null,"mimeType":"application/json","durationInSeconds":2,"width":100,"height":100,` +
		`"resourceType":"lottie","resourceJson":` + doc + `}},` +
		`"items":{"l1":{"id":"l1","type":"lottie","assetId":"lot","startTicks":0,"durationTicks":48000,` +
		`"left":{"value":` + strconv.Itoa(left) + `,"keyframes":[]},"top":{"value":0,"keyframes":[]},` +
		`"width":{"value":` + strconv.Itoa(iw) + `,"keyframes":[]},"height":{"value":` + strconv.Itoa(ih) + `,"keyframes":[]},` +
		`"scaleX":{"value":1,"keyframes":[]},"scaleY":{"value":1,"keyframes":[]},"opacity":{"value":1,"keyframes":[]},` +
		`"rotation":{"value":0,"keyframes":[]},"lottieStartFromInSeconds":0,"playbackRate":1,` +
		`"isDraggingInTimeline":false,"keepAspectRatio":` + strconv.FormatBool(iw == ih) + `}},` +
		`"transitions":{},"globalBackground":{"type":"none"},"deletedAssets":[]}`
}
