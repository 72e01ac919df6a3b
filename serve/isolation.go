package serve

import "net/http"

// IsolationHeaders are the headers that make the browser app
// cross-origin isolated (self.crossOriginIsolated), which is what lets
// onnxruntime-web run a session on several threads (SharedArrayBuffer):
// every response of NewMux carries them, and "dreval site" writes them
// to its _headers file for the static hosts that read one (Cloudflare
// Pages and Workers static assets, Netlify). The app needs nothing from
// other origins, so none of its resources is blocked by them.
var IsolationHeaders = map[string]string{
	"Cross-Origin-Opener-Policy":   "same-origin",
	"Cross-Origin-Embedder-Policy": "require-corp",
	"Cross-Origin-Resource-Policy": "same-origin",
}

// isolate adds IsolationHeaders to every response of h.
func isolate(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range IsolationHeaders {
			w.Header().Set(k, v)
		}
		h.ServeHTTP(w, r)
	})
}
