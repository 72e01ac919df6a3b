package encoder

import (
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/modelfiles"
)

// LoadTokenizer reads the tokenizer of the model in d, in any of the
// layouts tokenizer.LoadFS reads (tokenizer.json; vocab.json and
// merges.txt; a SentencePiece .model; vocab.txt; with the folder's
// config.json, tokenizer_config.json and special_tokens_map.json).
func LoadTokenizer(d modelfiles.Dir) (*tokenizer.Tokenizer, error) {
	fsys, dir := d.FS()
	return tokenizer.LoadFSAs(fsys, dir, d.Name())
}
