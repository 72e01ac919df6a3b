// Command menusgen writes the browser app's menus into
// webapp/static/index.html from the tables users choose from (package
// internal/menus). "go generate ./webapp" runs it.
package main

import (
	"fmt"
	"os"

	"github.com/dreval/dreval/internal/menus"
)

func main() {
	const page = "static/index.html"
	b, err := os.ReadFile(page)
	if err == nil {
		b, err = menus.Render(b)
	}
	if err == nil {
		err = os.WriteFile(page, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "menusgen:", err)
		os.Exit(1)
	}
}
