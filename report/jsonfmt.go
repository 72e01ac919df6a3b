package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// indentFit writes the JSON value src to dst, indented by two spaces per
// level, except that an object or array whose compact form fits in width
// bytes stays on one line. Per-query values, which are most of a
// results.json, so take one line each instead of one line per number.
func indentFit(dst *bytes.Buffer, src []byte, width int) error {
	var compact bytes.Buffer
	if err := json.Compact(&compact, src); err != nil {
		return err
	}
	b := compact.Bytes()
	end, err := fitValue(dst, b, 0, 0, width)
	if err != nil {
		return err
	}
	if end != len(b) {
		return fmt.Errorf("indentFit: trailing data at byte %d", end)
	}
	dst.WriteByte('\n')
	return nil
}

// fitValue writes the compact value starting at b[i] at indentation depth
// and returns the index after it.
func fitValue(dst *bytes.Buffer, b []byte, i, depth, width int) (int, error) {
	end, err := skipValue(b, i)
	if err != nil {
		return 0, err
	}
	if c := b[i]; (c != '{' && c != '[') || end-i <= width || end-i == 2 {
		dst.Write(b[i:end])
		return end, nil
	}
	open, closing := b[i], byte('}')
	if open == '[' {
		closing = ']'
	}
	dst.WriteByte(open)
	pad := strings.Repeat("  ", depth+1)
	j := i + 1
	for {
		dst.WriteByte('\n')
		dst.WriteString(pad)
		if open == '{' {
			k, err := skipValue(b, j) // the key
			if err != nil {
				return 0, err
			}
			dst.Write(b[j:k])
			dst.WriteString(": ")
			j = k + 1 // past ':'
		}
		if j, err = fitValue(dst, b, j, depth+1, width); err != nil {
			return 0, err
		}
		if b[j] == ',' {
			dst.WriteByte(',')
			j++
			continue
		}
		break
	}
	dst.WriteByte('\n')
	dst.WriteString(strings.Repeat("  ", depth))
	dst.WriteByte(closing)
	return j + 1, nil
}

// skipValue returns the index after the compact JSON value at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, fmt.Errorf("indentFit: unexpected end of JSON")
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1, nil
			}
		}
		return 0, fmt.Errorf("indentFit: unterminated string")
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				k, err := skipValue(b, j)
				if err != nil {
					return 0, err
				}
				j = k - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, fmt.Errorf("indentFit: unterminated %c", b[i])
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ':' {
			j++
		}
		if j == i {
			return 0, fmt.Errorf("indentFit: unexpected %q at byte %d", b[i], i)
		}
		return j, nil
	}
}
