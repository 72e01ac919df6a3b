#!/usr/bin/env python3
"""Score a TREC run with the real libraries dreval's conventions reproduce.

Run by TestConformanceLivePeers (cmd/dreval) in the peers' environment that
scripts/setup-peers.sh installs; by hand:

    ~/.cache/dreval/peers/bin/python scripts/peers/conformance.py \
        -qrels QRELS -run RUN [-run RUN2 ...] [-k 1,3,5,10,100,1000] [-st]

QRELS is TREC ("qid iter docid rel"), RUN a TREC run ("qid Q0 docid rank
score tag"). It prints one JSON object on stdout, {"versions": {...},
"runs": {RUN: {...}}}, each run's object holding:

  "pytrec_eval": {"versions", "per_query": {qid: {measure: value}},
                  "all": {measure: mean}}   trec_eval's measures, full
                  precision (pytrec_eval.RelevanceEvaluator; "all" is
                  pytrec_eval.compute_aggregated_measure over the queries);
  "beir": {measure: value}   EvaluateRetrieval.evaluate(qrels, results,
                  k_values, ignore_identical_ids=True): NDCG@k, MAP@k,
                  Recall@k, P@k, as BEIR rounds them (5 decimals);
  "ir_measures": {measure: value}   ir_measures.calc_aggregate, when it is
                  installed;
  "ranx": {measure: value}   ranx.evaluate, when it is installed;
  "st": {measure: value}   sentence-transformers' InformationRetrievalEvaluator
                  (compute_metrics on the run's lists; relevant = rel >= 1;
                  queries without a relevant document dropped), with -st
                  where sentence-transformers is installed (PEERS_TORCH=1).

The run's scores are read as Python floats, as BEIR's results dict holds
them; pytrec_eval (trec_eval) orders each list by score, ties by document
id descending.
"""
import argparse
import copy
import json
import logging
import sys
from importlib import metadata


def read_qrels(path):
    qrels = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            p = line.split()
            if not p:
                continue
            if len(p) != 4:
                sys.exit(f"{path}:{n}: want 'qid iter docid rel', got {line!r}")
            qrels.setdefault(p[0], {})[p[2]] = int(p[3])
    return qrels


def read_run(path):
    run = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            p = line.split()
            if not p:
                continue
            if len(p) != 6:
                sys.exit(f"{path}:{n}: want 'qid Q0 docid rank score tag', got {line!r}")
            run.setdefault(p[0], {})[p[2]] = float(p[4])
    return run


def version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-qrels", required=True)
    ap.add_argument("-run", required=True, action="append", help="run file (repeatable: the libraries are imported once)")
    ap.add_argument("-k", default="1,3,5,10,100,1000", help="cut-offs, comma-separated")
    ap.add_argument("-st", action="store_true", help="also sentence-transformers' InformationRetrievalEvaluator (imports PyTorch: slow)")
    a = ap.parse_args()
    ks = [int(k) for k in a.k.split(",")]
    qrels = read_qrels(a.qrels)
    out = {"versions": {n: version(n) for n in ("pytrec-eval-terrier", "beir", "ir-measures", "ranx", "sentence-transformers", "numpy")},
           "python": sys.version.split()[0], "runs": {}}
    for path in a.run:
        out["runs"][path] = score(qrels, read_run(path), ks, a.st)
    json.dump(out, sys.stdout)


def score(qrels, run, ks, st):
    out = {}
    import pytrec_eval
    cut = lambda name: name + "." + ",".join(map(str, ks))
    measures = {"map", "Rprec", "recip_rank", "ndcg", "num_rel_ret", "num_ret", "num_rel",
                cut("P"), cut("recall"), cut("ndcg_cut"), cut("map_cut"), cut("success")}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    names = sorted(next(iter(per_query.values())).keys()) if per_query else []
    out["pytrec_eval"] = {
        "per_query": per_query,
        "all": {m: pytrec_eval.compute_aggregated_measure(m, [q[m] for q in per_query.values()]) for m in names},
    }

    from beir.retrieval.evaluation import EvaluateRetrieval
    logging.disable(logging.WARNING)
    results = copy.deepcopy(run)  # BEIR pops identical ids from it
    scores = EvaluateRetrieval.evaluate(qrels, results, ks, ignore_identical_ids=True)
    out["beir"] = {k: v for d in scores for k, v in d.items()}

    try:
        import ir_measures
        from ir_measures import AP, P, R, RR, Rprec, Success, nDCG
    except ImportError:
        ir_measures = None
    if ir_measures is not None:
        ms = [AP, RR, Rprec, nDCG] + [m @ k for k in ks for m in (P, R, nDCG, AP, Success)]
        agg = ir_measures.calc_aggregate(ms, qrels, run)
        out["ir_measures"] = {str(m): v for m, v in agg.items()}

    try:
        import ranx
    except ImportError:
        ranx = None
    if ranx is not None:
        ms = ["map", "mrr", "r-precision", "ndcg"] + [f"{m}@{k}" for k in ks for m in ("precision", "recall", "ndcg", "map", "hit_rate", "mrr")]
        # ranx keeps only relevant judgments (rel > 0) and scores every
        # query of the qrels; a run query without judgments is an error.
        rq = ranx.Qrels({q: {d: r for d, r in docs.items()} for q, docs in qrels.items()})
        rr = ranx.Run({q: docs for q, docs in run.items() if q in qrels})
        out["ranx"] = {k: float(v) for k, v in ranx.evaluate(rq, rr, ms, make_comparable=True).items()}

    if st:
        from sentence_transformers.evaluation import InformationRetrievalEvaluator
        relevant = {q: {d for d, r in docs.items() if r >= 1} for q, docs in qrels.items()}
        ev = InformationRetrievalEvaluator(
            queries={q: q for q in qrels}, corpus={}, relevant_docs=relevant,
            mrr_at_k=ks, ndcg_at_k=ks, accuracy_at_k=ks, precision_recall_at_k=ks, map_at_k=ks, write_csv=False)
        lists = [[{"corpus_id": d, "score": sc} for d, sc in run.get(q, {}).items()] for q in ev.queries_ids]
        scores = ev.compute_metrics(lists)
        out["st"] = {f"{m.removesuffix('@k')}@{k}": float(v) for m, d in scores.items() for k, v in d.items()}

    return out


if __name__ == "__main__":
    main()
