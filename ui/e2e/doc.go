// Package e2e holds the browser app's end-to-end tests: they build the
// wasm app, serve it with the page's files and the installed models from a
// plain net/http file server on 127.0.0.1, drive headless Chromium with
// chromedp, and check the numbers the page shows against the same
// pipeline run natively.
//
// The tests need Debian's chromium (apt-get install -y chromium) and the
// minilm model ("make setup"); they are skipped without them, and fail
// under CI=true. DREVAL_E2E_OUT names a directory for the screenshots
// (default: the test's temporary directory).
//
// The tests are built only natively (the !js build tag): chromedp starts
// Chromium as a process, which js/wasm cannot.
package e2e
