package experiment

import (
	"strings"
	"testing"
)

func TestShardRange(t *testing.T) {
	for _, tc := range []struct{ n, total int }{{1, 0}, {1, 7}, {3, 1400}, {10, 100000}, {7, 3}, {4, 4}} {
		next := 0
		for i := 0; i < tc.n; i++ {
			lo, hi := ShardRange(i, tc.n, tc.total)
			if lo != next || hi < lo || hi-lo > tc.total/tc.n+1 || hi-lo < tc.total/tc.n {
				t.Errorf("ShardRange(%d, %d, %d) = [%d, %d), want from %d, %d or %d rows", i, tc.n, tc.total, lo, hi, next, tc.total/tc.n, tc.total/tc.n+1)
			}
			next = hi
		}
		if next != tc.total {
			t.Errorf("%d shards of %d rows end at %d", tc.n, tc.total, next)
		}
	}
}

func TestParseShard(t *testing.T) {
	for s, want := range map[string][2]int{"0/1": {0, 1}, "2/3": {2, 3}, "9/10": {9, 10}} {
		i, n, err := ParseShard(s)
		if err != nil || i != want[0] || n != want[1] {
			t.Errorf("ParseShard(%q) = %d, %d, %v", s, i, n, err)
		}
	}
	for _, s := range []string{"", "1", "3/3", "-1/2", "0/0", "a/b", "1/2/3", " 0/1"} {
		if _, _, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q) accepted", s)
		}
	}
}

const goodMeta = `{"format": "dreval-embedding-shard-v1", "model": "m", "model_fingerprint": "f", "tokenizer_fingerprint": "t",
 "side": "document", "passage_text": false, "shard": 1, "shards": 3, "first_row": 3, "rows": 3, "total_rows": 10, "dim": 8,
 "embeddings": "s.npy", "ids": "s.ids"}`

func TestParseShardMeta(t *testing.T) {
	m, err := ParseShardMeta([]byte(goodMeta), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if back, err := ParseShardMeta(b, "again.json"); err != nil || back != m {
		t.Errorf("Marshal does not read back: %v %+v", err, back)
	}
	for _, tc := range []struct{ edit, want string }{
		{`"format": "x",`, `format "x"`},
		{`"rows": 5,`, "shard 1 of 3 of 10 rows holds 3 from 3"},
		{`"shard": 3,`, "want 0 <= shard < shards"},
		{`"dim": 0,`, "dim 0"},
		{`"side": "both",`, `side "both"`},
		{`"ids": "../s.ids",`, `file name "../s.ids"`},
		{`"model_fingerprint": "",`, "no model_fingerprint"},
		{`"extra": 1,`, `unknown field "extra"`},
	} {
		key := tc.edit[:strings.Index(tc.edit, ":")]
		text := goodMeta
		if i := strings.Index(text, key); i >= 0 {
			j := i + strings.IndexAny(text[i:], ",}")
			text = text[:i] + strings.TrimSuffix(tc.edit, ",") + text[j:]
		} else {
			text = "{" + tc.edit + text[1:]
		}
		_, err := ParseShardMeta([]byte(text), "bad.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "bad.json: ") {
			t.Errorf("%s: error %v, want one naming bad.json and saying %q", tc.edit, err, tc.want)
		}
	}
}

func FuzzParseShardMeta(f *testing.F) {
	f.Add([]byte(goodMeta))
	f.Add([]byte(`{"format": "dreval-embedding-shard-v1"}`))
	f.Add([]byte(`{} {}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseShardMeta(b, "f.json")
		if err != nil {
			return
		}
		lo, hi := ShardRange(m.Shard, m.Shards, m.TotalRows)
		if m.FirstRow != lo || m.Rows != hi-lo || m.Dim < 1 {
			t.Fatalf("accepted an inconsistent shard: %+v", m)
		}
		out, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if back, err := ParseShardMeta(out, "g.json"); err != nil || back != m {
			t.Fatalf("does not read back: %v", err)
		}
	})
}

func FuzzParseShard(f *testing.F) {
	f.Add("0/1")
	f.Add("7/12")
	f.Fuzz(func(t *testing.T, s string) {
		i, n, err := ParseShard(s)
		if err == nil && (i < 0 || i >= n) {
			t.Fatalf("ParseShard(%q) = %d, %d", s, i, n)
		}
	})
}
