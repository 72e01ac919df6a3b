// Command messagesgen writes webapp/static/messages.js, the browser
// app's message types and field names as constants for the page's
// scripts, from package browser's messages (browser.MessagesJS). "go
// generate ./webapp" runs it.
package main

import (
	"fmt"
	"os"

	"github.com/dreval/dreval/browser"
)

func main() {
	if err := os.WriteFile("static/messages.js", browser.MessagesJS(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "messagesgen:", err)
		os.Exit(1)
	}
}
