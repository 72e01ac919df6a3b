package serve

import (
	"regexp"
	"strings"
)

// absPath matches an absolute file path of two components or more
// (/dir/file, C:\dir\file) that does not continue another word or path.
var absPath = regexp.MustCompile(`(^|[\s"'(=\[])((?:/|[A-Za-z]:\\)(?:[^\s"'<>|:;,()\[\]{}*?/\\]+[/\\])+[^\s"'<>|:;,()\[\]{}*?/\\]*)`)

// scrubPaths replaces each absolute path in msg by ".../" and its last
// element: an error reply names the file it is about, not where the
// server keeps it.
func scrubPaths(msg string) string {
	return absPath.ReplaceAllStringFunc(msg, func(m string) string {
		sub := absPath.FindStringSubmatch(m)
		p := strings.TrimRight(sub[2], `/\`)
		base := p[strings.LastIndexAny(p, `/\`)+1:]
		return sub[1] + ".../" + base
	})
}
