package dataset

import (
	"errors"
	"strings"
)

// PickFiles returns, of the files of a collection folder a user gives,
// those the loaders read (IsFile), each mapped to its path in the
// folder; files chosen one by one (folder false) that end in .tsv are
// taken as qrels/NAME.tsv.
func PickFiles(files []string, folder bool) (map[string]string, error) {
	send := map[string]string{}
	for _, f := range files {
		as := f
		if !folder && strings.HasSuffix(f, ".tsv") && !strings.Contains(f, "/") {
			as = "qrels/" + f
		}
		if IsFile(as) {
			send[f] = as
		}
	}
	if len(send) == 0 {
		return nil, errors.New("none of the chosen files is one a BEIR folder holds (corpus.jsonl, queries.jsonl, qrels/<split>.tsv, answers.jsonl)")
	}
	return send, nil
}
