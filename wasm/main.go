//go:build js && wasm

// Command wasm is dreval's browser app as the page's Web Workers run it,
// one wasm instance each (webapp/static/worker.js): a thin adapter to
// package browser, which holds the app (its state, its messages, its
// runs) and tests natively. It turns each message the worker gets
// (drevalHandle) into browser's typed request (browser.DecodeRequest of
// the tree jsvalue.FromJS makes), answers it with browser.App.Handle and
// posts the replies back; and it implements browser.Ports with syscall/js
// (host.go): the site's files, "dreval serve"'s api/encode, the helper
// workers (the MessagePorts in drevalPeers) and onnxruntime-web.
package main

import (
	"syscall/js"

	"github.com/dreval/dreval/browser"
	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/internal/jsvalue"
)

func main() {
	if !dataset.DemoEmbedded() { // built as scripts/wasm-build.sh builds it
		dataset.SetDemoSource(browser.DemoSource(files{}))
	}
	a := browser.New(browser.Ports{Files: files{}, Server: server{}, Peers: peerList, ORT: ort{}})
	js.Global().Set("drevalHandle", js.FuncOf(func(this js.Value, args []js.Value) any {
		if len(args) == 2 {
			go handle(a, args[0], args[1])
		}
		return nil
	}))
	js.Global().Call("drevalReady")
	select {}
}

// handle answers message msg; reply is where its answers go (the
// worker's scope or a MessagePort), with msg's id.
func handle(a *browser.App, msg, reply js.Value) {
	id := msg.Get("id")
	post := func(m browser.Message) {
		v := jsvalue.ToJS(browser.Encode(m))
		v.Set("id", id)
		reply.Call("postMessage", v)
	}
	t, _ := jsvalue.FromJS(msg).(map[string]any)
	req, err := browser.DecodeRequest(t)
	if err != nil {
		post(&browser.ErrorReply{Message: err.Error()})
		return
	}
	a.Handle(req, post)
}
