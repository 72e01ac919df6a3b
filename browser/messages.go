package browser

// ExportReply answers "export": the files "dreval eval" writes for the
// last results.
type ExportReply struct {
	JSON    string `json:"json"`
	CSV     string `json:"csv"`
	RunsZip []byte `json:"runsZip"`
	AllZip  []byte `json:"allZip"`
}

// Encoding is what one model of a run encoded.
type Encoding struct {
	Model     string  `json:"model"`
	Texts     int     `json:"texts"`
	Seconds   float64 `json:"seconds"`
	Engine    string  `json:"engine"`
	Note      string  `json:"note"`
	PerSecond float64 `json:"perSecond,omitempty"`
}
