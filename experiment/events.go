package experiment

// The steps an Event reports.
const (
	StepLoad          = "load"           // a dataset is being loaded
	StepModel         = "model"          // a model is being opened
	StepEncodeCorpus  = "encode corpus"  // documents encoded (Unit "docs")
	StepIndex         = "index"          // a lexical index is being built
	StepEncodeQueries = "encode queries" // distinct query id sequences encoded, clean and perturbed (Unit "queries")
	StepRank          = "rank"           // distinct query id sequences searched, clean and perturbed (Unit "queries")
	StepSearch        = "search"         // runs searched and scored (Unit "runs")
	StepWarning       = "warning"        // Message is a warning about the data or the cache
	StepInfo          = "info"           // Message is information (a cache hit, ...)
)

// Event is one progress report of Run. Counting steps report Done of Total
// items of Unit; StepWarning and StepInfo carry a Message.
type Event struct {
	Step    string
	Dataset string
	Model   string
	Done    int
	Total   int
	Unit    string
	Message string
}

// Subject returns what the event concerns: "demo/minilm", "demo",
// "minilm" or "".
func (e Event) Subject() string {
	switch {
	case e.Dataset != "" && e.Model != "":
		return e.Dataset + "/" + e.Model
	case e.Dataset != "":
		return e.Dataset
	}
	return e.Model
}

// Label returns the step with its subject, as in "encode corpus
// demo/minilm".
func (e Event) Label() string {
	if s := e.Subject(); s != "" {
		return e.Step + " " + s
	}
	return e.Step
}
