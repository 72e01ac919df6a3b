//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"sync"
	"syscall/js"

	"github.com/dreval/dreval/browser"
	"github.com/dreval/dreval/encoder/ortweb"
	"github.com/dreval/dreval/internal/jsvalue"
)

// The functions of worker.js (drevalFetchFile, drevalORT, drevalFetch,
// drevalDerive, drevalDerived) are there in every worker the app runs in
// (it calls drevalReady at its start).

// files is browser.Fetcher: worker.js's drevalFetchFile, which the page
// answers once for every worker.
type files struct{}

func (files) Fetch(url string, size int64, label string, sum bool) func() ([]byte, string, error) {
	asked := js.Global().Call("drevalFetchFile", url, size, label, sum)
	return func() ([]byte, string, error) {
		a, err := jsvalue.Await(asked)
		if err != nil {
			return nil, "", fmt.Errorf("fetching %s: %v", url, err)
		}
		// The page hashed these bytes once for every worker, which each
		// get an exact copy of them; b is this worker's copy of its copy.
		b := jsvalue.Bytes(jsvalue.Uint8Array(a.Get("data")))
		if !sum {
			return b, "", nil
		}
		return b, a.Get("sha256").String(), nil
	}
}

// server is browser.Server: the browser's fetch of api/encode beside the
// worker's script.
type server struct{}

func (server) Post(body []byte, accept string) (*browser.HTTPReply, error) {
	loc := js.Global().Get("location")
	if p := loc.Get("protocol").String(); p != "http:" && p != "https:" {
		return nil, fmt.Errorf("served over %s, not HTTP", p)
	}
	url := js.Global().Get("URL").New("api/encode", loc.Get("href")).Call("toString")
	resp, err := jsvalue.Await(js.Global().Call("fetch", url, js.ValueOf(map[string]any{"method": "POST", "body": string(body),
		"headers": map[string]any{"Content-Type": "application/json", "Accept": accept}})))
	if err != nil {
		return nil, err
	}
	ab, err := jsvalue.Await(resp.Call("arrayBuffer"))
	if err != nil {
		return nil, fmt.Errorf("reading the reply: %v", err)
	}
	header := func(name string) string {
		if v := resp.Get("headers").Call("get", name); v.Type() == js.TypeString {
			return v.String()
		}
		return ""
	}
	return &browser.HTTPReply{Status: resp.Get("status").Int(), StatusText: resp.Get("statusText").String(), Header: header, Body: jsvalue.Bytes(jsvalue.Uint8Array(ab))}, nil
}

var peers struct {
	sync.Mutex
	list []browser.Peer
}

// peerList returns the helper workers the page gave this worker (the
// MessagePorts in drevalPeers), each set up on first use: its replies go
// to their calls (browser.PortPeer).
func peerList() []browser.Peer {
	peers.Lock()
	defer peers.Unlock()
	ports := js.Global().Get("drevalPeers")
	for i := len(peers.list); ports.Truthy() && i < ports.Length(); i++ {
		port := ports.Index(i)
		p := browser.NewPortPeer(func(t map[string]any) { port.Call("postMessage", jsvalue.ToJS(t)) })
		port.Set("onmessage", js.FuncOf(func(_ js.Value, args []js.Value) any {
			t, _ := jsvalue.FromJS(args[0].Get("data")).(map[string]any)
			p.Receive(t)
			return nil
		}))
		peers.list = append(peers.list, p)
	}
	return peers.list
}

// ort is browser.ORT: worker.js's drevalConfig, drevalORT (ortweb.js),
// and drevalFetch, drevalDerive and drevalDerived, which share the
// graphs between the workers.
type ort struct{}

func (ort) Config() (c browser.WorkerConfig) {
	if v := js.Global().Get("drevalConfig"); v.Type() == js.TypeObject {
		json.Unmarshal([]byte(js.Global().Get("JSON").Call("stringify", v).String()), &c)
	}
	return c
}

func (ort) Load(ep string) (browser.Runtime, string, error) {
	v, err := jsvalue.Await(js.Global().Call("drevalORT", ep))
	if err != nil {
		return nil, "", err
	}
	rt, err := ortweb.NewRuntime(v.Get("ort"), v.Get("ep").String())
	if err != nil {
		return nil, "", err
	}
	return runtime{rt}, v.Get("note").String(), nil // "" where there is none
}

func (ort) FetchGraph(url string, size int64, label string) (browser.Graph, error) {
	ab, err := jsvalue.Await(js.Global().Call("drevalFetch", url, size, label))
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %v", url, err)
	}
	g := jsvalue.Uint8Array(ab)
	if n := int64(g.Length()); size >= 0 && n != size {
		return nil, fmt.Errorf("%s has %d bytes, but the index lists %d: the download was cut short", url, n, size)
	}
	return g, nil
}

func (ort) Derive(key, label string) (browser.Graph, error) {
	ans, err := jsvalue.Await(js.Global().Call("drevalDerive", key, label))
	if err != nil || !ans.Get("data").Truthy() {
		return nil, err
	}
	return jsvalue.Uint8Array(ans.Get("data")), nil
}

func (ort) Derived(key string, g browser.Graph, err error) {
	if err != nil {
		js.Global().Call("drevalDerived", key, js.Null(), err.Error())
	} else {
		js.Global().Call("drevalDerived", key, g)
	}
}

func (ort) Graph(g *ortweb.Graph) browser.Graph { return g.JS() }

// runtime is browser.Runtime: onnxruntime-web, its graphs Uint8Arrays.
type runtime struct{ *ortweb.Runtime }

func (r runtime) EP() string { return r.Runtime.EP }

func (r runtime) Open(g browser.Graph, optimized bool) (ortweb.Forwarder, error) {
	s, err := r.Runtime.Open(g.(js.Value), optimized)
	if err != nil {
		return nil, err
	}
	return s, nil
}
