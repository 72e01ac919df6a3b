//go:build js

package bert

import "syscall/js"

// cpuSeconds returns the CPU time of the Node.js process running the test
// (process.cpuUsage), or 0 outside Node (in a browser).
func cpuSeconds() float64 {
	p := js.Global().Get("process")
	if p.IsUndefined() || p.Get("cpuUsage").IsUndefined() {
		return 0
	}
	u := p.Call("cpuUsage")
	return (u.Get("user").Float() + u.Get("system").Float()) / 1e6
}
