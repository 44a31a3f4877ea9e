// Package encode holds the video and audio codecs and the MP4 and WebM muxers. All of cutroom's cgo lives here.
package encode
