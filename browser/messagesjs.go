package browser

import (
	"fmt"
	"reflect"
	"strings"
)

// MessagesJSFile is where MessagesJS goes, relative to the module's
// root.
const MessagesJSFile = "webapp/static/messages.js"

// MessagesJS returns webapp/static/messages.js: the type of every
// message (MSG) and the field names of every message and value (FIELDS),
// by Go type name, and the types of the page's messages to and from
// worker.js (WORKER_MSG), as constants for the page's scripts.
func MessagesJS() []byte {
	var b strings.Builder
	b.WriteString(`// messages.js: the messages between the page and the app's workers, as
// constants for the page's scripts: MSG.<Go type> is a message's "type",
// FIELDS.<Go type> the field names of a message or of a value in one;
// WORKER_MSG the types of the messages between the page and worker.js.
// Written by "go generate ./webapp" from browser/messages.go: do not edit.
"use strict";

const MSG = Object.freeze({
`)
	for _, group := range [][]Message{requests, replies} {
		for _, m := range group {
			fmt.Fprintf(&b, "  %s: %q,\n", reflect.TypeOf(m).Elem().Name(), m.MessageType())
		}
	}
	b.WriteString("});\n\nconst FIELDS = Object.freeze({\n")
	var all []any
	for _, m := range append(append([]Message{}, requests...), replies...) {
		all = append(all, m)
	}
	for _, v := range append(all, values...) {
		t := reflect.TypeOf(v).Elem()
		var names []string
		for _, n := range fieldNames(t) {
			names = append(names, fmt.Sprintf("%q", n))
		}
		fmt.Fprintf(&b, "  %s: Object.freeze([%s]),\n", t.Name(), strings.Join(names, ", "))
	}
	b.WriteString("});\n\nconst WORKER_MSG = Object.freeze({\n")
	for _, m := range workerMessages {
		fmt.Fprintf(&b, "  %s: %q,\n", m.Name, m.Type)
	}
	b.WriteString("});\n")
	return []byte(b.String())
}

// fieldNames returns the json names of struct type t's fields, an
// embedded struct's among them.
func fieldNames(t reflect.Type) []string {
	var out []string
	for _, f := range fieldsOf(t) {
		if f.embedded {
			out = append(out, fieldNames(t.FieldByIndex(f.index).Type)...)
		} else {
			out = append(out, f.name)
		}
	}
	return out
}
