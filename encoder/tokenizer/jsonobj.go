package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// jsonObject is one JSON object with its path, for error messages.
type jsonObject struct {
	name, path string
	m          map[string]json.RawMessage
}

func parseObject(data []byte, name, path string) (jsonObject, error) {
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
	sub, err := parseObject(v, o.name, o.field(key))
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
		sub, err := parseObject(item, o.name, fmt.Sprintf("%s[%d]", o.field(key), i))
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
