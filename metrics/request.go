package metrics

import (
	"fmt"
	"io"
	"strconv"
)

// Request is an evaluation as "dreval metrics" (and "dreval compare"), the
// server's /api/metrics and the page's qrels + run mode take it from their
// users: names and numbers as given, not yet checked. Check turns it into
// measures and Options with the same checks and messages for all of them,
// and Evaluate then reads the qrels and scores a run.
type Request struct {
	// Measures are measure specifications as ParseMeasures reads them
	// ("map", "P.5,10", "ndcg@10"); none means Defaults.
	Measures []string
	// Convention names the convention (ParseConvention); "" means trec.
	Convention string
	// QrelsFormat names the qrels format (ParseQrelsFormat); "" means
	// auto.
	QrelsFormat string
	// Level is the relevance level (trec_eval's -l): at least 1. It has
	// no default here: a caller that lets its users leave it out sets 1.
	Level int
	// Complete scores qrels queries missing from the run as 0
	// (trec_eval's -c).
	Complete bool
	// Defaults returns the measures evaluated when Measures is empty; nil
	// means DefaultMeasures.
	Defaults func(Convention) []Measure
}

// The fields of a Request as RequestError names them (the names of
// /api/metrics' JSON fields).
const (
	FieldMeasures    = "measures"
	FieldConvention  = "convention"
	FieldQrelsFormat = "qrels_format"
	FieldLevel       = "level"
)

// RequestError reports the field of a Request at fault: Field is one of
// FieldMeasures, FieldConvention, FieldQrelsFormat and FieldLevel. A
// caller that shows its users other names (a command's flags) may replace
// Field before showing the error.
type RequestError struct {
	Field string
	// Value is the value at fault, shown after Field when not empty.
	Value string
	Err   error
}

func (e *RequestError) Error() string {
	if e.Value != "" {
		return fmt.Sprintf("%s %s: %v", e.Field, e.Value, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Field, e.Err)
}

func (e *RequestError) Unwrap() error { return e.Err }

// Checked is a Request after Check: what Evaluate and EvaluateReader take.
type Checked struct {
	Measures    []Measure
	Options     Options
	QrelsFormat QrelsFormat
}

// Check checks r's fields in a fixed order (convention, qrels format,
// level, measures) and returns the first problem as a *RequestError, or
// the measures, options and qrels format r asks for.
func (r Request) Check() (Checked, error) {
	var c Checked
	conv := ConventionTREC
	if r.Convention != "" {
		var err error
		if conv, err = ParseConvention(r.Convention); err != nil {
			return c, &RequestError{Field: FieldConvention, Err: err}
		}
	}
	if r.QrelsFormat != "" {
		var err error
		if c.QrelsFormat, err = ParseQrelsFormat(r.QrelsFormat); err != nil {
			return c, &RequestError{Field: FieldQrelsFormat, Err: err}
		}
	}
	if r.Level < 1 {
		return c, &RequestError{Field: FieldLevel, Value: strconv.Itoa(r.Level), Err: fmt.Errorf("expected 1 or more")}
	}
	if len(r.Measures) > 0 {
		var err error
		if c.Measures, err = ParseMeasures(r.Measures, conv); err != nil {
			return c, &RequestError{Field: FieldMeasures, Err: err}
		}
	} else if r.Defaults != nil {
		c.Measures = r.Defaults(conv)
	} else {
		c.Measures = DefaultMeasures(conv)
	}
	c.Options = Options{Convention: conv, RelLevel: r.Level, Complete: r.Complete}
	return c, nil
}

// Evaluate checks r (see Check), reads the qrels from qrels (qrelsName
// names them in errors) in r's format and scores the run read from run
// (runName) with EvaluateReader. A problem with r is a *RequestError, one
// with the qrels a *ParseError naming the file and line, and one with the
// run an error starting "evaluating runName: ".
func (r Request) Evaluate(qrels io.Reader, qrelsName string, run io.Reader, runName string) (*Result, error) {
	c, err := r.Check()
	if err != nil {
		return nil, err
	}
	q, err := ReadQrelsFormat(qrels, qrelsName, c.QrelsFormat)
	if err != nil {
		return nil, err
	}
	res, err := EvaluateReader(q, run, runName, c.Measures, c.Options)
	if err != nil {
		return nil, fmt.Errorf("evaluating %s: %w", runName, err)
	}
	return res, nil
}
