package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/serve"
	"github.com/dreval/dreval/webapp"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "serve the browser app, model files, demo data and the HTTP API (/api/encode, /api/metrics, /api/perturb)",
		run:     runServe,
	})
}

const serveUsage = `[-addr 127.0.0.1:8080] [-models DIR] [flags]

Serves the browser app built into this binary, the files of the installed
models (/models/NAME/config.json, tokenizer.json, *.safetensors, model.onnx),
the demo corpus embedded by each model (/data/demo/MODEL.npy and .json,
computed on first request, or read from the "dreval eval" cache),
onnxruntime-web (/ort/, from -ort-web) and the API. The page encodes the
models this server serves through /api/encode (ONNX Runtime when it runs
here: -engine auto). Every response is sent with the headers that make the
page cross-origin isolated (COOP/COEP), so onnxruntime-web may use threads.

  POST /api/encode   {"model": "minilm", "texts": [...]} or {"model", "ids": [[...]]}, optional "engine": "go" (409 if the server encodes with another engine)
                     -> {"embeddings": [[...]], "dim", "truncated"}; with
                     Accept: application/octet-stream, little-endian float32 rows
  POST /api/metrics  {"qrels": "<text>", "run": "<text>", "measures": [...],
                     "convention": "trec", "complete": false, "level": 1,
                     "per_query": false} -> "dreval metrics -format json"'s output
  POST /api/perturb  {"texts": [...], "mode": "idshift", "rate": 0.1, "seed": 1,
                     "tokenizer": "minilm"} -> perturbed ids and decoded text
  GET  /healthz

Errors are JSON {"error": "..."}. It listens on 127.0.0.1 unless -addr says
otherwise. Request bodies must arrive within -body-timeout, and API
requests end within -timeout. It stops gracefully on SIGINT or SIGTERM:
requests in flight finish (for up to -grace, by default as long as the
longest may take); any still running then are stopped and answered 503.`

func runServe(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "serve", serveUsage)
	addr := fs.String("addr", "127.0.0.1:8080", "listen `address` (host:port; 0.0.0.0:PORT listens on every interface)")
	models := modelsDirFlag(fs)
	engine := fs.String("engine", "auto", "encoder `engine`: "+engine.Help())
	ortLib := fs.String("ort-lib", evalDefaultOrtLib(), "ONNX Runtime shared `library`")
	cacheDir := fs.String("cache", evalDefaultCacheDir(), "corpus embedding cache `directory` shared with \"dreval eval\" (\"\": none)")
	ortWeb := fs.String("ort-web", defaultORTWeb(), "onnxruntime-web `directory` served under /ort/ for the page's transformer engine (scripts/setup-ort-web.sh installs it; \"\": none, the page encodes in pure Go)")
	maxBody := fs.Int64("max-body", serve.DefaultLimits.MaxBodyBytes, "largest request body in `bytes` (413 beyond)")
	maxTexts := fs.Int("max-texts", serve.DefaultLimits.MaxTexts, "most texts per encode or perturb request (400 beyond)")
	timeout := fs.Duration("timeout", serve.DefaultLimits.Timeout, "most time an API request may take (503 beyond)")
	encoders := fs.Int("encoders", serve.DefaultLimits.MaxConcurrentEncodes, "encode requests running at once")
	queueWait := fs.Duration("queue-wait", serve.DefaultLimits.QueueWait, "how long an encode or metrics request waits for a slot before 503")
	bodyTimeout := fs.Duration("body-timeout", serve.DefaultLimits.BodyTimeout, "most time a client may take to send a request body (408 and the connection closed beyond)")
	maxBodies := fs.Int64("max-bodies", serve.DefaultLimits.MaxBodyBytesInFlight, "request body `bytes` held at once; a request waits -queue-wait for room, then 503")
	metricsSlots := fs.Int("metrics", serve.DefaultLimits.MaxConcurrentMetrics, "metrics requests evaluated at once (their memory is a few times their bodies')")
	grace := fs.Duration("grace", 0, "how long SIGINT or SIGTERM waits for requests in flight before stopping them with 503 (0: the longest a request may take, -body-timeout + -timeout, and 5s)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	case *maxBody < 1:
		return usageErrorf("-max-body must be at least 1, got %d", *maxBody)
	case *maxTexts < 1:
		return usageErrorf("-max-texts must be at least 1, got %d", *maxTexts)
	case *timeout <= 0:
		return usageErrorf("-timeout must be positive, got %s", *timeout)
	case *encoders < 1:
		return usageErrorf("-encoders must be at least 1, got %d", *encoders)
	case *queueWait <= 0:
		return usageErrorf("-queue-wait must be positive, got %s", *queueWait)
	case *bodyTimeout <= 0:
		return usageErrorf("-body-timeout must be positive, got %s", *bodyTimeout)
	case *maxBodies < *maxBody:
		return usageErrorf("-max-bodies must be at least -max-body (%d), got %d", *maxBody, *maxBodies)
	case *metricsSlots < 1:
		return usageErrorf("-metrics must be at least 1, got %d", *metricsSlots)
	case *grace < 0:
		return usageErrorf("-grace must not be negative, got %s", *grace)
	}
	eng, err := parseEngineFlag(*engine)
	if err != nil {
		return err
	}
	if !webapp.Built() {
		fmt.Fprintf(env.stderr, "dreval serve: warning: %v; serving the API and files only\n", errNoApp)
	}
	sm := newServeModels(*models, eng, *ortLib, *cacheDir)
	sm.note = func(msg string) { fmt.Fprintf(env.stderr, "dreval serve: %s\n", msg) }
	ortFS, ortIndex, err := ortWebFS(*ortWeb)
	switch {
	case err != nil:
		fmt.Fprintf(env.stderr, "dreval serve: warning: not serving onnxruntime-web: %v; the page encodes what this server does not with the pure-Go engine\n", err)
	case ortIndex != nil:
		fmt.Fprintf(env.stderr, "dreval serve: onnxruntime-web %s under /ort/ (from %s)\n", ortIndex.Version, *ortWeb)
	}
	limits := serve.Limits{MaxBodyBytes: *maxBody, MaxTexts: *maxTexts, Timeout: *timeout,
		MaxConcurrentEncodes: *encoders, QueueWait: *queueWait, BodyTimeout: *bodyTimeout, MaxConcurrentMetrics: *metricsSlots,
		MaxBodyBytesInFlight: *maxBodies}
	if *grace == 0 {
		*grace = serveGrace(limits)
	}
	h := serve.NewMux(serve.Options{
		Assets:      webapp.FS(),
		WasmGz:      webapp.WasmName,
		ORTWeb:      ortFS,
		Models:      modelsFS(*models),
		Encoder:     sm.encoder,
		Demo:        sm.demo,
		QueryReader: sm.queryReading,
		Limits:      limits,
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "dreval serve: http://%s/ (models from %s; Ctrl-C stops)\n", ln.Addr(), *models)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = serveUntil(ctx, ln, h, *grace, env.stderr)
	if err == nil {
		fmt.Fprintln(env.stderr, "dreval serve: stopped")
	}
	return err
}

// serveGrace is how long a shutdown waits for requests in flight: the
// longest a request may take (its body, then its work), and 5 s to
// write the reply.
func serveGrace(l serve.Limits) time.Duration {
	d := serve.DefaultLimits
	body, work := l.BodyTimeout, l.Timeout
	if body <= 0 {
		body = d.BodyTimeout
	}
	if work <= 0 {
		work = d.Timeout
	}
	return body + work + 5*time.Second
}

// serveUntil serves h on ln until ctx is done, then shuts down
// gracefully: it stops accepting and lets requests in flight finish for
// up to grace; then it stops those still running (their contexts end
// with serve.ErrShuttingDown: the API answers them 503, and their work
// stops), gives them 5 s to reply, and returns.
func serveUntil(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration, log io.Writer) error {
	base, stopRequests := context.WithCancelCause(context.Background())
	defer stopRequests(nil)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err // Serve failed before any signal
	case <-ctx.Done():
	}
	fmt.Fprintf(log, "dreval serve: shutting down; waiting up to %s for requests in flight\n", grace)
	sctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t := time.AfterFunc(grace, func() {
		fmt.Fprintf(log, "dreval serve: requests still running after %s are stopped and answered 503\n", grace)
		stopRequests(serve.ErrShuttingDown)
		time.AfterFunc(5*time.Second, cancel)
	})
	defer t.Stop()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("shutting down: requests still running 5s after they were stopped: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
