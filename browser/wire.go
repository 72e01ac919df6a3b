package browser

import (
	"fmt"
	"reflect"
	"strings"
)

// A message crosses between Go and JavaScript as a tree of the values a
// JavaScript object holds, which the js/wasm adapter converts to and from
// JavaScript one for one: map[string]any (an object), []any (an array),
// string, float64 (a number; Encode leaves Go's integers as they are),
// bool, []byte (a Uint8Array) and nil (null or undefined).

// Encode returns m as a tree: its fields under their json names (an
// embedded struct's fields among them, omitempty fields left out when
// zero) and "type" its MessageType.
func Encode(m Message) map[string]any {
	out := map[string]any{"type": m.MessageType()}
	encodeStruct(out, reflect.ValueOf(m).Elem())
	return out
}

func encodeStruct(out map[string]any, v reflect.Value) {
	for _, f := range fieldsOf(v.Type()) {
		fv := v.FieldByIndex(f.index)
		if f.embedded {
			encodeStruct(out, fv)
			continue
		}
		if f.omitEmpty && fv.IsZero() {
			continue
		}
		out[f.name] = encodeValue(fv)
	}
}

func encodeValue(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return encodeValue(v.Elem())
	case reflect.Struct:
		out := map[string]any{}
		encodeStruct(out, v)
		return out
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Bytes()
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = encodeValue(v.Index(i))
		}
		return out
	case reflect.Map:
		out := map[string]any{}
		for it := v.MapRange(); it.Next(); {
			out[it.Key().String()] = encodeValue(it.Value())
		}
		return out
	}
	return v.Interface()
}

// DecodeRequest returns the request tree t holds, by its "type".
func DecodeRequest(t map[string]any) (Message, error) { return decode(t, requests) }

// DecodeReply returns the reply tree t holds, by its "type".
func DecodeReply(t map[string]any) (Message, error) { return decode(t, replies) }

func decode(t map[string]any, kinds []Message) (Message, error) {
	typ, _ := t["type"].(string)
	for _, k := range kinds {
		if k.MessageType() == typ {
			m := reflect.New(reflect.TypeOf(k).Elem())
			if err := decodeStruct(m.Elem(), t, ""); err != nil {
				return nil, fmt.Errorf("message %s: %w", typ, err)
			}
			return m.Interface().(Message), nil
		}
	}
	return nil, fmt.Errorf("unknown message type %q", typ)
}

func decodeStruct(v reflect.Value, t map[string]any, at string) error {
	for _, f := range fieldsOf(v.Type()) {
		fv := v.FieldByIndex(f.index)
		if f.embedded {
			if err := decodeStruct(fv, t, at); err != nil {
				return err
			}
			continue
		}
		if err := decodeValue(fv, t[f.name], at+f.name); err != nil {
			return err
		}
	}
	return nil
}

func decodeValue(v reflect.Value, x any, at string) error {
	if x == nil {
		return nil // absent: the zero value
	}
	bad := func() error { return fmt.Errorf("field %s: %T is not a %s", at, x, v.Type()) }
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := decodeValue(p.Elem(), x, at); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Struct:
		m, ok := x.(map[string]any)
		if !ok {
			return bad()
		}
		return decodeStruct(v, m, at+".")
	case reflect.Slice:
		if b, ok := x.([]byte); ok && v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes(b)
			return nil
		}
		xs, ok := x.([]any)
		if !ok {
			return bad()
		}
		s := reflect.MakeSlice(v.Type(), len(xs), len(xs))
		for i, e := range xs {
			if err := decodeValue(s.Index(i), e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Map:
		m, ok := x.(map[string]any)
		if !ok {
			return bad()
		}
		out := reflect.MakeMapWithSize(v.Type(), len(m))
		for k, e := range m {
			ev := reflect.New(v.Type().Elem()).Elem()
			if err := decodeValue(ev, e, at+"."+k); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k), ev)
		}
		v.Set(out)
	case reflect.String:
		s, ok := x.(string)
		if !ok {
			return bad()
		}
		v.SetString(s)
	case reflect.Bool:
		b, ok := x.(bool)
		if !ok {
			return bad()
		}
		v.SetBool(b)
	case reflect.Float64:
		f, ok := number(x)
		if !ok {
			return bad()
		}
		v.SetFloat(f)
	case reflect.Int:
		f, ok := number(x)
		if !ok || f != float64(int(f)) {
			return bad()
		}
		v.SetInt(int64(f))
	case reflect.Uint64:
		f, ok := number(x)
		if !ok || f < 0 || f != float64(uint64(f)) {
			return bad()
		}
		v.SetUint(uint64(f))
	default:
		return bad()
	}
	return nil
}

// number returns x as a float64: a JavaScript number, or a Go integer
// (a tree made in Go).
func number(x any) (float64, bool) {
	switch n := x.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case uint64:
		return float64(n), true
	}
	return 0, false
}

// field is a struct field as a message holds it.
type field struct {
	name      string
	index     []int
	embedded  bool
	omitEmpty bool
}

// fieldsOf returns the fields of struct type t under their json names
// (an embedded struct as one field with embedded set).
func fieldsOf(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			out = append(out, field{index: f.Index, embedded: true})
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		out = append(out, field{name: name, index: f.Index, omitEmpty: opts == "omitempty"})
	}
	return out
}
