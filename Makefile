# dreval — see README.md. Quick start: make run; make test.
GO ?= go
BUILD := build

.PHONY: all setup build beam run test bench wasm worker results golden-tokenizer clean

all: build

## setup: install everything dreval needs beyond Go (idempotent)
setup:
	scripts/setup.sh

## wasm: the browser app (webapp/static/app.wasm.gz + wasm_exec.js), embedded by build
wasm:
	scripts/wasm-build.sh

## build: the native CLI in build/dreval, with the browser app embedded
build: wasm
	$(GO) build -o $(BUILD)/dreval ./cmd/dreval

## beam: the Apache Beam pipeline in build/dreval-beam (its own module, beam/; docs/beam.md)
beam:
	cd beam && $(GO) build -o ../$(BUILD)/dreval-beam ./cmd/dreval-beam

## run: the main job: the robustness experiment on the built-in demo collection
run: setup build
	$(BUILD)/dreval eval -data demo -out out/eval

## test: vet, gofmt, unit tests (native and js/wasm), a short run of every fuzz target
test: wasm
	scripts/test.sh

## bench: every speed figure in docs/performance.md (SECTIONS="metrics search" for some)
bench:
	scripts/bench.sh

## worker: the Cloudflare Worker in build/worker (docs/page.md "Deploy to Cloudflare")
worker: wasm
	scripts/worker-build.sh

## results: regenerate every figure in docs/results (not part of make test)
results: setup build
	scripts/results.sh

## golden-tokenizer: regenerate the tokenizer's golden ids with HF tokenizers (npm) and SentencePiece (python3)
golden-tokenizer:
	scripts/golden-tokenizer/run.sh

clean:
	rm -rf $(BUILD) out
