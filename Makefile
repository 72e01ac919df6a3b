# dreval — see README.md. Quick start: make run; make test.
GO ?= go
BUILD := build

.PHONY: all setup build run test bench wasm clean

all: build

## setup: install everything dreval needs beyond Go (idempotent)
setup:
	scripts/setup.sh

## build: the native CLI in build/dreval
build:
	$(GO) build -o $(BUILD)/dreval ./cmd/dreval

## run: the main job on built-in data
run: setup build
	$(BUILD)/dreval metrics -qrels cmd/dreval/testdata/example.qrels -run cmd/dreval/testdata/example.run -m map,ndcg_cut.10,P.5,recip_rank

## test: vet, gofmt, unit tests, a short run of every fuzz target
test:
	scripts/test.sh

## bench: Go benchmarks and the side-by-side speed scripts
bench:
	scripts/bench.sh

## wasm: the browser build in build/dreval.wasm
wasm:
	GOOS=js GOARCH=wasm $(GO) build -o $(BUILD)/dreval.wasm ./cmd/dreval

clean:
	rm -rf $(BUILD)
