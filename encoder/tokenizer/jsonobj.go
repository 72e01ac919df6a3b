package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// jsonObject is one JSON object with its path, for error messages.
type jsonObject struct {
	name, path string
	m          map[string]json.RawMessage
}

// parseObject parses data, a whole JSON document, as an object; name
// names the file and path the object's field in errors ("" for the
// document). The document is validated once; its objects are then split
// by splitObject, whose values are slices of data (so data must not be
// modified while they are used), and a tokenizer.json's 30,000-token
// vocabulary is not parsed again for each object around it.
func parseObject(data []byte, name, path string) (jsonObject, error) {
	if !json.Valid(data) {
		return parseObjectStd(data, name, path)
	}
	return parseValid(data, name, path)
}

// parseValid is parseObject for data already validated: a value of a
// document parseObject read.
func parseValid(data []byte, name, path string) (jsonObject, error) {
	if m, ok := splitObject(data); ok {
		return jsonObject{name: name, path: path, m: m}, nil
	}
	return parseObjectStd(data, name, path)
}

// parseObjectStd is parseObject through encoding/json, which names what
// is wrong with data when it is not a JSON object.
func parseObjectStd(data []byte, name, path string) (jsonObject, error) {
	o := jsonObject{name: name, path: path}
	if err := json.Unmarshal(data, &o.m); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return o, fmt.Errorf("%s: invalid JSON at byte %d: %v", name, se.Offset, err)
		}
		if path == "" {
			return o, fmt.Errorf("%s: want a JSON object: %v", name, err)
		}
		return o, fmt.Errorf("%s: %s: want a JSON object, got %s", name, path, kindOf(data))
	}
	if o.m == nil {
		if path == "" {
			return o, fmt.Errorf("%s: want a JSON object, got null", name)
		}
		return o, fmt.Errorf("%s: %s: want a JSON object, got null", name, path)
	}
	return o, nil
}

func (o jsonObject) field(key string) string {
	if o.path == "" {
		return key
	}
	if key == "" {
		return o.path
	}
	return o.path + "." + key
}

func (o jsonObject) errorf(key, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %s", o.name, o.field(key), fmt.Sprintf(format, args...))
}

// raw returns the field's JSON, or nil when it is absent or null.
func (o jsonObject) raw(key string) json.RawMessage {
	v := o.m[key]
	if v == nil || string(bytes.TrimSpace(v)) == "null" {
		return nil
	}
	return v
}

func (o jsonObject) has(key string) bool { return o.raw(key) != nil }

func (o jsonObject) object(key string, required bool) (jsonObject, bool, error) {
	v := o.raw(key)
	if v == nil {
		if required {
			return jsonObject{}, false, o.errorf(key, "missing")
		}
		return jsonObject{}, false, nil
	}
	sub, err := parseValid(v, o.name, o.field(key))
	return sub, err == nil, err
}

// objects reads field key as an array of objects.
func (o jsonObject) objects(key string) ([]jsonObject, error) {
	v := o.raw(key)
	if v == nil {
		return nil, o.errorf(key, "missing (want an array of objects)")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(v, &list); err != nil {
		return nil, o.errorf(key, "want an array of objects, got %s", kindOf(v))
	}
	out := make([]jsonObject, len(list))
	for i, item := range list {
		sub, err := parseValid(item, o.name, fmt.Sprintf("%s[%d]", o.field(key), i))
		if err != nil {
			return nil, err
		}
		out[i] = sub
	}
	return out, nil
}

// decode decodes field key into dst; a missing field is an error when
// required, else leaves dst alone.
func (o jsonObject) decode(key string, dst any, want string, required bool) error {
	v := o.raw(key)
	if v == nil {
		if required {
			return o.errorf(key, "missing (want %s)", want)
		}
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return o.errorf(key, "want %s, got %s", want, kindOf(v))
	}
	return nil
}

// typeName reads the object's "type".
func (o jsonObject) typeName() (string, error) {
	var typ string
	err := o.decode("type", &typ, "a string", true)
	return typ, err
}

func kindOf(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "the number " + string(v)
}

// marshalJSON encodes v without HTML escaping.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// splitObject reads v, valid JSON, into its object's fields, as
// encoding/json reads an object into a map[string]json.RawMessage (keys
// unescaped, a repeated key's last value kept), but with each value a
// slice of v rather than a copy; ok is false when v is not an object.
func splitObject(v []byte) (m map[string]json.RawMessage, ok bool) {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return nil, false
	}
	m = map[string]json.RawMessage{}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == '}' {
		return m, true
	}
	for i < len(v) && v[i] == '"' {
		j, escaped := endString(v, i)
		var key string
		if raw := v[i+1 : j-1]; escaped || !utf8.Valid(raw) {
			if err := json.Unmarshal(v[i:j], &key); err != nil {
				return nil, false
			}
		} else {
			key = string(raw)
		}
		i = skipSpace(v, j)
		if i >= len(v) || v[i] != ':' {
			return nil, false
		}
		i = skipSpace(v, i+1)
		k := endValue(v, i)
		m[key] = v[i:k:k]
		i = skipSpace(v, k)
		if i < len(v) && v[i] == ',' {
			i = skipSpace(v, i+1)
			continue
		}
		return m, i < len(v) && v[i] == '}'
	}
	return nil, false
}

// endString returns the index just past the JSON string that starts at
// v[i] (a quote) and whether it holds an escape; v is valid JSON.
func endString(v []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(v); j++ {
		switch v[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(v), escaped
}

// endValue returns the index just past the JSON value that starts at
// v[i]; v is valid JSON.
func endValue(v []byte, i int) int {
	if i >= len(v) {
		return i
	}
	switch v[i] {
	case '"':
		j, _ := endString(v, i)
		return j
	case '{', '[':
		depth := 0
		for j := i; j < len(v); j++ {
			switch v[j] {
			case '"':
				e, _ := endString(v, j)
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(v)
	}
	j := i
	for j < len(v) && v[j] != ',' && v[j] != '}' && v[j] != ']' && v[j] != ' ' && v[j] != '\t' && v[j] != '\n' && v[j] != '\r' {
		j++
	}
	return j
}
