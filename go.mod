module github.com/cutroom/cutroom

go 1.26.8

require github.com/santhosh-tekuri/jsonschema/v6 v6.0.2

require golang.org/x/text v0.14.0 // indirect
