package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

// peersPythonOrSkip returns the Python of the peers' environment that
// scripts/setup-peers.sh installs ($DREVAL_PEERS, else the user cache's
// dreval/peers), skipping the test when it is absent: neither make setup
// nor CI installs it. DREVAL_REQUIRE_PEERS=1 makes its absence a failure;
// DREVAL_PEERS_TESTS=0 skips the test all the same.
func peersPythonOrSkip(t *testing.T) string {
	t.Helper()
	skipPeersTests(t)
	py := filepath.Join(peersDir(t), "bin", "python")
	if _, err := os.Stat(py); err != nil {
		msg := fmt.Sprintf("the peers' Python environment is not installed (%s is absent); scripts/setup-peers.sh installs pytrec_eval, BEIR, ir_measures and ranx there", py)
		if os.Getenv("DREVAL_REQUIRE_PEERS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return py
}

// peersDir is where scripts/setup-peers.sh installs the peers' Python
// environment and what it computes once for the tests (mpnet-reference):
// $DREVAL_PEERS, else the user cache's dreval/peers.
func peersDir(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("DREVAL_PEERS"); dir != "" {
		return dir
	}
	c, err := os.UserCacheDir()
	if err != nil {
		t.Skip(err)
	}
	return filepath.Join(c, "dreval", "peers")
}

// skipPeersTests skips the tests that compare dreval with the peers (the
// Python libraries, and MPNet's real weights) when DREVAL_PEERS_TESTS=0:
// they run wherever those are installed, and take minutes.
func skipPeersTests(t *testing.T) {
	t.Helper()
	if os.Getenv("DREVAL_PEERS_TESTS") == "0" {
		t.Skip("DREVAL_PEERS_TESTS=0: the comparisons with the peers are not run")
	}
}

// peerOutput is what scripts/peers/conformance.py prints.
type peerOutput struct {
	Versions map[string]string     `json:"versions"`
	Runs     map[string]peerScores `json:"runs"`
}

// peerScores are one run's scores by the peers.
type peerScores struct {
	Versions   map[string]string `json:"-"`
	PytrecEval struct {
		PerQuery map[string]map[string]float64 `json:"per_query"`
		All      map[string]float64            `json:"all"`
	} `json:"pytrec_eval"`
	BEIR       map[string]float64 `json:"beir"`
	IRMeasures map[string]float64 `json:"ir_measures"`
	Ranx       map[string]float64 `json:"ranx"`
	ST         map[string]float64 `json:"st"`
}

// metricsJSON is "dreval metrics -format json -q".
type metricsJSON struct {
	NumQ     int                           `json:"num_q"`
	All      map[string]float64            `json:"all"`
	PerQuery map[string]map[string]float64 `json:"per_query"`
}

const peerCuts = "1,3,5,10,100,1000"

// peerTRECMeasures are the trec_eval measures compared, as -m takes them.
var peerTRECMeasures = "map,Rprec,recip_rank,ndcg,num_ret,num_rel,num_rel_ret," +
	"P." + peerCuts + ",recall." + peerCuts + ",ndcg_cut." + peerCuts + ",map_cut." + peerCuts + ",success." + peerCuts

// tieRun writes run with every score rounded to one decimal (lists full
// of ties, which trec_eval breaks by document id, descending) and, at the
// head of each query's list, a document whose id is the query's (which
// BEIR's ignore_identical_ids removes): added, or moved up where the list
// holds it.
func tieRun(t *testing.T, run, out string) {
	t.Helper()
	f, err := os.Open(run)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]string
	own := map[string]bool{} // queries whose list holds their own id
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Fields(sc.Text())
		if len(p) != 6 {
			t.Fatalf("%s: %q is not a run line", run, sc.Text())
		}
		lines = append(lines, p)
		own[p[0]] = own[p[0]] || p[2] == p[0]
	}
	var b strings.Builder
	seen := map[string]bool{}
	for _, p := range lines {
		s, err := strconv.ParseFloat(p[4], 64)
		if err != nil {
			t.Fatal(err)
		}
		if !seen[p[0]] && !own[p[0]] {
			fmt.Fprintf(&b, "%s Q0 %s 0 9 tie\n", p[0], p[0])
		}
		seen[p[0]] = true
		if p[2] == p[0] {
			s = 9
		}
		fmt.Fprintf(&b, "%s Q0 %s %s %.1f tie\n", p[0], p[2], p[3], s)
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConformanceLivePeers is issue 27's conformance against the real
// libraries: runs that dreval writes on the shared collections (the static
// model's clean run, and the same with scores rounded to one decimal and
// the query's own id at the head of each list: ties and BEIR's identical
// ids), scored by pytrec_eval, BEIR's EvaluateRetrieval
// (ignore_identical_ids), ir_measures, ranx and, where PyTorch is
// installed, sentence-transformers' InformationRetrievalEvaluator in the
// peers' environment (scripts/peers/conformance.py), against "dreval
// metrics -convention trec", "beir" and "st". pytrec_eval's every
// per-query value and mean, and ir_measures', must equal dreval's within
// 1e-12; BEIR's, which it rounds to 5 decimals, must be dreval's rounded.
// ranx is compared where its semantics are trec_eval's (it averages over
// every qrels query, as dreval's -c does), sentence-transformers' with
// -convention st; both must equal dreval's on the runs without ties, and
// their differences on the tied runs (tie orders of their own) are
// reported, not failed.
func TestConformanceLivePeers(t *testing.T) {
	py := peersPythonOrSkip(t)
	script := filepath.Join(sharedtest.Root(), "scripts", "peers", "conformance.py")
	names := []string{"cranfield", "cacm", "vaswani-npl"}
	if testing.Short() {
		names = names[:1]
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data := sharedtest.Path(t, "data/"+name)
			out := filepath.Join(t.TempDir(), "eval")
			if code, _, errOut := runCLI(t, "", "eval", "-data", data, "-models", "static", "-rates", "0", "-out", out, "-quiet"); code != 0 {
				t.Fatalf("dreval eval: exit %d:\n%s", code, errOut)
			}
			qrels := filepath.Join(out, "qrels", name+".qrels")
			clean := filepath.Join(out, "runs", "static__clean.trec")
			ties := filepath.Join(out, "ties.trec")
			tieRun(t, clean, ties)
			peers := runPeers(t, py, script, qrels, clean, ties)
			for _, run := range []string{clean, ties} {
				t.Run(strings.TrimSuffix(filepath.Base(run), ".trec"), func(t *testing.T) {
					p, ok := peers.Runs[run]
					if !ok {
						t.Fatalf("%s scored no run %s", script, run)
					}
					p.Versions = peers.Versions
					comparePeers(t, qrels, run, p)
				})
			}
		})
	}
}

// runPeers scores runs with scripts/peers/conformance.py (its libraries
// imported once for all of them).
func runPeers(t *testing.T, py, script, qrels string, runs ...string) peerOutput {
	t.Helper()
	args := []string{script, "-qrels", qrels, "-k", peerCuts}
	for _, r := range runs {
		args = append(args, "-run", r)
	}
	if hasST(py) {
		args = append(args, "-st")
	}
	cmd := exec.Command(py, args...)
	cmd.Env = append(os.Environ(), "PYTHONWARNINGS=ignore")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	var out peerOutput
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return out
}

// hasST reports whether the peers' environment of py has
// sentence-transformers (PEERS_TORCH=1).
func hasST(py string) bool {
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(py)), "lib", "python*", "site-packages", "sentence_transformers"))
	return len(m) > 0
}

func comparePeers(t *testing.T, qrels, run string, peer peerScores) {
	metricsOf := func(args ...string) metricsJSON {
		t.Helper()
		args = append([]string{"metrics", "-qrels", qrels, "-run", run, "-format", "json", "-q"}, args...)
		code, out, errOut := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("dreval %s: exit %d:\n%s", strings.Join(args, " "), code, errOut)
		}
		var m metricsJSON
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("dreval %s: %v", strings.Join(args, " "), err)
		}
		return m
	}

	// pytrec_eval: every query's value and every mean.
	trec := metricsOf("-convention", "trec", "-m", peerTRECMeasures)
	compared, worst := 0, 0.0
	if len(peer.PytrecEval.PerQuery) != trec.NumQ || trec.NumQ == 0 {
		t.Errorf("pytrec_eval scored %d queries, dreval %d", len(peer.PytrecEval.PerQuery), trec.NumQ)
	}
	for qid, pv := range peer.PytrecEval.PerQuery {
		dv, ok := trec.PerQuery[qid]
		if !ok {
			t.Errorf("query %s: pytrec_eval scores it, dreval does not", qid)
			continue
		}
		for m, v := range pv {
			d, ok := dv[m]
			if !ok {
				t.Fatalf("dreval has no %s (pytrec_eval measures: %v)", m, slices.Sorted(mapKeys(pv)))
			}
			if e := math.Abs(d - v); e > 1e-12 {
				t.Errorf("query %s %s: dreval %.15g, pytrec_eval %.15g", qid, m, d, v)
			} else {
				worst = max(worst, e)
			}
			compared++
		}
	}
	for m, v := range peer.PytrecEval.All {
		if e := math.Abs(trec.All[m] - v); e > 1e-12 {
			t.Errorf("mean %s: dreval %.15g, pytrec_eval %.15g", m, trec.All[m], v)
		} else {
			worst = max(worst, e)
		}
		compared++
	}
	t.Logf("pytrec_eval %s: %d values (%d queries) equal, largest difference %.2g", peer.Versions["pytrec-eval-terrier"], compared, trec.NumQ, worst)

	// BEIR: NDCG@k, MAP@k, Recall@k, P@k rounded to 5 decimals.
	beir := metricsOf("-convention", "beir", "-m", "ndcg_cut."+peerCuts+",map_cut."+peerCuts+",recall."+peerCuts+",P."+peerCuts)
	beirNames := map[string]string{"NDCG": "ndcg_cut_", "MAP": "map_cut_", "Recall": "recall_", "P": "P_"}
	n := 0
	for k, v := range peer.BEIR {
		name, cut, _ := strings.Cut(k, "@")
		d, ok := beir.All[beirNames[name]+cut]
		if !ok {
			t.Errorf("BEIR's %s has no dreval counterpart", k)
			continue
		}
		if math.Abs(d-v) > 0.5e-5+1e-12 {
			t.Errorf("BEIR %s: %.5f; dreval -convention beir %.10f", k, v, d)
		}
		n++
	}
	if n == 0 {
		t.Error("BEIR scored nothing")
	}
	t.Logf("BEIR %s EvaluateRetrieval (ignore_identical_ids): %d values equal to 5 decimals (%d queries)", peer.Versions["beir"], n, beir.NumQ)

	// ir_measures, through its pytrec_eval provider.
	if peer.IRMeasures != nil {
		names := map[string]string{"AP": "map", "RR": "recip_rank", "Rprec": "Rprec", "nDCG": "ndcg",
			"P": "P_", "R": "recall_", "nDCG@": "ndcg_cut_", "AP@": "map_cut_", "Success": "success_"}
		n, worst := 0, 0.0
		for k, v := range peer.IRMeasures {
			name, cut, hasCut := strings.Cut(k, "@")
			key := names[name]
			if hasCut {
				if p, ok := names[name+"@"]; ok {
					key = p
				}
				key += cut
			}
			d, ok := trec.All[key]
			if !ok {
				t.Errorf("ir_measures' %s has no dreval counterpart (%s)", k, key)
				continue
			}
			if e := math.Abs(d - v); e > 1e-12 {
				t.Errorf("ir_measures %s: %.15g; dreval %s %.15g", k, v, key, d)
			} else {
				worst = max(worst, e)
			}
			n++
		}
		t.Logf("ir_measures %s: %d values equal, largest difference %.2g", peer.Versions["ir-measures"], n, worst)
	}

	// sentence-transformers' InformationRetrievalEvaluator.
	if peer.ST != nil {
		var ms []string
		for _, m := range []string{"accuracy", "precision", "recall", "ndcg", "mrr", "map"} {
			for _, k := range strings.Split(peerCuts, ",") {
				ms = append(ms, m+"@"+k)
			}
		}
		st := metricsOf("-convention", "st", "-m", strings.Join(ms, ","))
		var differ []string
		n, worst := 0, 0.0
		for _, k := range slices.Sorted(mapKeys(peer.ST)) {
			d, ok := st.All[k]
			if !ok {
				t.Errorf("sentence-transformers' %s has no dreval counterpart", k)
				continue
			}
			if e := math.Abs(d - peer.ST[k]); e > 1e-12 {
				differ = append(differ, fmt.Sprintf("%s %.6f (dreval %.6f)", k, peer.ST[k], d))
			} else {
				worst = max(worst, e)
			}
			n++
		}
		t.Logf("sentence-transformers %s InformationRetrievalEvaluator: %d values, %d equal within 1e-12 (largest difference %.2g); %d differ: %s",
			peer.Versions["sentence-transformers"], n, n-len(differ), worst, len(differ), strings.Join(differ, ", "))
		if strings.HasSuffix(run, "static__clean.trec") && len(differ) > 0 {
			t.Errorf("sentence-transformers differs from dreval -convention st on a run without ties: %s", strings.Join(differ, ", "))
		}
	}

	// ranx: every qrels query averaged (dreval -c).
	if peer.Ranx != nil {
		all := metricsOf("-convention", "trec", "-c", "-m", peerTRECMeasures)
		names := map[string]string{"map": "map", "mrr": "recip_rank", "r-precision": "Rprec", "ndcg": "ndcg",
			"precision": "P_", "recall": "recall_", "ndcg@": "ndcg_cut_", "map@": "map_cut_", "hit_rate": "success_"}
		var same, differ []string
		for _, k := range slices.Sorted(mapKeys(peer.Ranx)) {
			v := peer.Ranx[k]
			name, cut, hasCut := strings.Cut(k, "@")
			if name == "mrr" && hasCut {
				continue // reciprocal rank cut at k: trec_eval has none
			}
			key := names[name]
			if hasCut {
				if p, ok := names[name+"@"]; ok {
					key = p
				}
				key += cut
			}
			d, ok := all.All[key]
			if !ok {
				t.Errorf("ranx's %s has no dreval counterpart (%s)", k, key)
				continue
			}
			if math.Abs(d-v) <= 1e-9 {
				same = append(same, k)
			} else {
				differ = append(differ, fmt.Sprintf("%s %.6f (dreval -c %s %.6f)", k, v, key, d))
			}
		}
		t.Logf("ranx %s: %d values equal within 1e-9; %d differ: %s", peer.Versions["ranx"], len(same), len(differ), strings.Join(differ, ", "))
		if strings.HasSuffix(run, "static__clean.trec") && len(differ) > 0 {
			t.Errorf("ranx differs from dreval -c on a run without ties: %s", strings.Join(differ, ", "))
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
