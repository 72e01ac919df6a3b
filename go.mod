module github.com/dreval/dreval

go 1.26.0

require (
	golang.org/x/text v0.44.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
