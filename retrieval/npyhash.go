package retrieval

import (
	"hash"
	"io"
	"os"
)

// ReadNPYFileHashed reads path as ReadNPYFile does, writing every byte it
// reads (the whole file, header included, when it succeeds) to h as it
// goes, so that checking a checksum of the file costs no second read.
func ReadNPYFileHashed(path string, h hash.Hash) (*Matrix, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return readNPY(io.TeeReader(f, h), path, size)
}
