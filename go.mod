module github.com/cutroom/cutroom

go 1.26.8

require (
	github.com/Eyevinn/mp4ff v0.47.0
	github.com/at-wat/ebml-go v0.17.1
	github.com/gen2brain/x264-go v0.4.0
)
