//go:build nodemo

package dataset

import (
	"errors"
	"io/fs"
)

// embeddedDemo fails: this build (tag nodemo: the browser app, which
// fetches the files) embeds no demo collection.
func embeddedDemo() (fs.FS, error) { return nil, errNoDemo }

var errNoDemo = errors.New("not embedded in this build (tag nodemo), and no source was set (dataset.SetDemoSource)")
