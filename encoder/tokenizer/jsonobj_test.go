package tokenizer

import (
	"bytes"
	"encoding/json"
	"testing"
)

// checkParseObject fails t when parseObject, which splits a validated
// document itself, reads data otherwise than encoding/json does
// (parseObjectStd): the same error, or the same keys with the same values.
func checkParseObject(t *testing.T, data []byte) {
	t.Helper()
	got, gotErr := parseObject(data, "f.json", "")
	want, wantErr := parseObjectStd(data, "f.json", "")
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%q: error %v, encoding/json's %v", data, gotErr, wantErr)
	}
	if gotErr != nil {
		return
	}
	if len(got.m) != len(want.m) {
		t.Fatalf("%q: %d keys, encoding/json finds %d", data, len(got.m), len(want.m))
	}
	for k, w := range want.m {
		g, ok := got.m[k]
		if !ok {
			t.Fatalf("%q: key %q missing", data, k)
		}
		if !bytes.Equal(g, w) {
			t.Fatalf("%q: key %q has value %q, encoding/json's %q", data, k, g, w)
		}
	}
	// The nested objects read as encoding/json reads them too.
	for k, v := range want.m {
		if sub, err := parseValid(v, "f.json", k); err == nil {
			std, err := parseObjectStd(v, "f.json", k)
			if err != nil || len(std.m) != len(sub.m) {
				t.Fatalf("%q: field %q: %d keys, encoding/json's %d (%v)", data, k, len(sub.m), len(std.m), err)
			}
		}
	}
}

var objectCases = []string{
	`{}`,
	` { } `,
	`{"a":1}`,
	`{"a" : "x\"}y" , "b":[1,{"c":"]"}], "d":{"e":null}}`,
	`{"a":1,"a":2}`,
	`{"\u00e9":true,"caf\u00e9":false,"\ud800":0}`,
	"{\"\xff\":1}",
	`{"a":-1.5e3,"b":"\\","c":"\\\""}`,
	"\t{\n\"a\"\r:\n[ ]\n}\n",
	`[]`,
	`null`,
	`"s"`,
	`3`,
	`{"a":1`,
	`{"a":1}x`,
	``,
	`{"a":1,}`,
}

// TestParseObjectLikeEncodingJSON: objects, nested values, escapes,
// invalid UTF-8, repeated keys and the errors of what is not an object.
func TestParseObjectLikeEncodingJSON(t *testing.T) {
	for _, c := range objectCases {
		checkParseObject(t, []byte(c))
	}
}

// FuzzParseObject: on any input, parseObject and encoding/json agree.
func FuzzParseObject(f *testing.F) {
	for _, c := range objectCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParseObject(t, data)
		if json.Valid(data) {
			// A value inside an array, as objects() reads them.
			checkParseObject(t, append(append([]byte(`{"x":[`), data...), `]}`...))
		}
	})
}
