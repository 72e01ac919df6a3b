package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/dreval/dreval/encoder/tokenizer"
)

// server holds what the handlers share.
type server struct {
	opts   Options
	limits Limits
	assets *assets
	sem    chan struct{} // encode slots

	metricsSem chan struct{} // metrics slots
	bodies     *budget       // the request bodies' bytes

	tokMu sync.Mutex
	toks  map[string]*tokenizerEntry

	demoMu sync.Mutex
	demo   map[string]*demoEntry

	digests digestCache // of the models' weights, for the model index
}

type tokenizerEntry struct {
	once sync.Once
	tok  *tokenizer.Tokenizer
	err  error
}

// NewMux returns the handler of every route (see the package
// documentation) configured by opts.
func NewMux(opts Options) http.Handler {
	opts.Models = confine(opts.Models)
	s := &server{
		opts:   opts,
		limits: opts.Limits.withDefaults(),
		toks:   map[string]*tokenizerEntry{},
		demo:   map[string]*demoEntry{},
	}
	s.sem = make(chan struct{}, s.limits.MaxConcurrentEncodes)
	s.metricsSem = make(chan struct{}, s.limits.MaxConcurrentMetrics)
	s.bodies = newBudget(s.limits.MaxBodyBytesInFlight)
	wasm := opts.WasmGz
	if wasm == "" {
		wasm = "app.wasm.gz"
	}
	s.assets = newAssets(opts.Assets, wasm, opts.HostCompresses)

	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", s.healthz)
	mux.Handle("/api/metrics", s.api(http.MethodPost, s.metrics))
	mux.Handle("/api/perturb", s.api(http.MethodPost, s.perturb))
	mux.Handle("/api/encode", s.api(http.MethodPost, s.encode))
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errorf(http.StatusNotFound, "no API endpoint %s (known: /api/encode, /api/metrics, /api/perturb)", r.URL.Path))
	})
	mux.HandleFunc("/models/", s.models)
	mux.HandleFunc("/data/", s.demoFile)
	mux.HandleFunc("/ort/", s.ortWeb)
	mux.Handle("/", s.assets)
	return isolate(bodyDeadline(mux, s.limits.BodyTimeout))
}

func (s *server) healthz(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, errorf(http.StatusMethodNotAllowed, "%s /healthz: use GET", r.Method))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, "ok\n")
}

// httpError is an error with the HTTP status it answers.
type httpError struct {
	status int
	msg    string
	header http.Header
}

func (e *httpError) Error() string { return e.msg }

func errorf(status int, format string, args ...any) *httpError {
	return &httpError{status: status, msg: fmt.Sprintf(format, args...)}
}

// writeError writes err as {"error": "..."}: an *httpError with its
// status, anything else as 500.
func writeError(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	var he *httpError
	if errors.As(err, &he) {
		status = he.status
		for k, v := range he.header {
			w.Header()[k] = v
		}
	}
	msg := err.Error()
	if status >= 500 {
		// The server's own failure: its files are named, not where
		// they are kept.
		msg = scrubPaths(msg)
	}
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// reply is a computed API response.
type reply struct {
	contentType string
	header      http.Header
	body        []byte
}

// jsonReply marshals v as the reply body.
func jsonReply(v any) (*reply, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding the response: %w", err)
	}
	return &reply{contentType: "application/json", body: buf.Bytes()}, nil
}

// request is what an API function sees of a request: its body, read
// whole and bounded, and the headers it may look at.
type request struct {
	body   []byte
	accept string
}

type apiFunc func(ctx context.Context, req *request) (*reply, error)

// api wraps f: it checks the method, reads the body (413 beyond
// MaxBodyBytes), runs f under the request timeout, turns a panic into a
// 500, and writes the reply or the error as JSON.
func (s *server) api(method string, f apiFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method {
			w.Header().Set("Allow", method)
			writeError(w, errorf(http.StatusMethodNotAllowed, "%s %s: use %s", r.Method, r.URL.Path, method))
			return
		}
		// The body's bytes, held from before it is read until f is done
		// with it: waiting requests hold no memory.
		hold := s.limits.MaxBodyBytes
		if r.ContentLength >= 0 {
			hold = min(r.ContentLength, hold)
		}
		if !s.bodies.take(r.Context(), hold, s.limits.QueueWait) {
			e := errorf(http.StatusServiceUnavailable, "the server is busy: it holds %d MB of request bodies, and not %d bytes more came free within %s; retry shortly",
				s.limits.MaxBodyBytesInFlight>>20, hold, s.limits.QueueWait)
			e.header = http.Header{"Retry-After": {"1"}}
			writeError(w, e)
			return
		}
		held := true
		defer func() {
			if held {
				s.bodies.give(hold)
			}
		}()
		body, err := readBody(w, r, s.limits.MaxBodyBytes)
		if err != nil {
			var tooBig *http.MaxBytesError
			var ne net.Error
			switch {
			case errors.As(err, &tooBig):
				writeError(w, errorf(http.StatusRequestEntityTooLarge, "the request body exceeds the limit of %d bytes", tooBig.Limit))
			case errors.As(err, &ne) && ne.Timeout():
				w.Header().Set("Connection", "close")
				writeError(w, errorf(http.StatusRequestTimeout, "the request body did not arrive within %s", s.limits.BodyTimeout))
			default:
				writeError(w, errorf(http.StatusBadRequest, "reading the request body: %v", err))
			}
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.limits.Timeout)
		defer cancel()
		type result struct {
			rep *reply
			err error
		}
		done := make(chan result, 1)
		req := &request{body: body, accept: r.Header.Get("Accept")}
		held = false // given back when f returns, which may be after the reply
		go func() {
			defer s.bodies.give(hold)
			defer func() {
				if p := recover(); p != nil {
					done <- result{err: fmt.Errorf("internal error: %v", p)}
				}
			}()
			rep, err := f(ctx, req)
			done <- result{rep, err}
		}()
		var res result
		select {
		case res = <-done:
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), ErrShuttingDown) {
				w.Header().Set("Connection", "close")
				e := errorf(http.StatusServiceUnavailable, "the server is shutting down: the request was stopped before it finished; retry once it is back")
				e.header = http.Header{"Retry-After": {"5"}}
				writeError(w, e)
				return
			}
			if r.Context().Err() != nil {
				return // the client went away
			}
			writeError(w, errorf(http.StatusServiceUnavailable, "the request took longer than the limit of %s", s.limits.Timeout))
			return
		}
		if res.err != nil {
			writeError(w, res.err)
			return
		}
		for k, v := range res.rep.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", res.rep.contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(res.rep.body)))
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write(res.rep.body)
	})
}

// decodeJSON decodes body into v strictly: one JSON object, no unknown
// fields, nothing after it. Errors are 400s that say what is wrong.
func decodeJSON(body []byte, v any, what string) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errorf(http.StatusBadRequest, "the request body is empty; send a JSON object (%s)", what)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return errorf(http.StatusBadRequest, "malformed JSON at byte %d: %v (expected %s)", se.Offset, err, what)
		case errors.As(err, &te):
			return errorf(http.StatusBadRequest, "field %q: got a JSON %s, want %s (expected %s)", te.Field, te.Value, te.Type, what)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return errorf(http.StatusBadRequest, "malformed JSON: the body ends early (expected %s)", what)
		}
		return errorf(http.StatusBadRequest, "malformed request: %v (expected %s)", err, what)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errorf(http.StatusBadRequest, "malformed request: data after the JSON object (expected %s)", what)
	}
	return nil
}

// waitSem takes a slot of sem (the encode or the metrics slots; what
// names them), waiting up to QueueWait; the caller must release it with
// <-sem.
func (s *server) waitSem(ctx context.Context, sem chan struct{}, what string) error {
	select {
	case sem <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(s.limits.QueueWait)
	defer t.Stop()
	select {
	case sem <- struct{}{}:
		return nil
	case <-t.C:
	case <-ctx.Done():
	}
	e := errorf(http.StatusServiceUnavailable, "the server is busy: %d %s requests are running and none finished within %s; retry shortly", cap(sem), what, s.limits.QueueWait)
	e.header = http.Header{"Retry-After": {"1"}}
	return e
}
