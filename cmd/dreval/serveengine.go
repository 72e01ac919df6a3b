package main

// Engine names the engine computing the model's vectors ("go", "ort",
// "static"), so /api/encode serves a client asking for that engine
// (serve.EngineNamer) and refuses one asking for another.
func (e serveEncoder) Engine() string { return e.m.Engine }
