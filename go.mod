module github.com/cutroom/cutroom

go 1.26.8
