module github.com/cutroom/cutroom

go 1.26.8

require (
	github.com/go-text/typesetting v0.2.1
	golang.org/x/image v0.24.0
)

require golang.org/x/text v0.22.0 // indirect
