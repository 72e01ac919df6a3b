package ui

import (
	"strconv"

	"github.com/dreval/dreval/results"
)

// changed writes an example's changed tokens as "3/12".
func changed(e results.Example) string {
	return strconv.Itoa(e.Changed) + "/" + strconv.Itoa(e.Considered)
}
