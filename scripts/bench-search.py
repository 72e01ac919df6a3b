#!/usr/bin/python3
"""bench-search.py: the faiss side of scripts/bench-search.sh.

  bench-search.py gen DIR DOCS QUERIES DIM SEED   write DIR/corpus.npy, DIR/queries.npy
  bench-search.py faiss CORPUS QUERIES K OUT      IndexFlatIP top-k, one thread, TREC run
  bench-search.py compare RUN_A RUN_B [EPS]        same doc sets per query, ties aside

The random data is deterministic (numpy's PCG64 with the given seed):
standard normal float32 rows, L2-normalised.
"""
import sys
import time


def gen(d, docs, queries, dim, seed):
    import numpy as np
    rng = np.random.default_rng(int(seed))
    for name, n in (("corpus", int(docs)), ("queries", int(queries))):
        x = rng.standard_normal((n, int(dim)), dtype=np.float32)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        np.save("%s/%s.npy" % (d, name), x)


def run_faiss(corpus, queries, k, out):
    import numpy as np
    import faiss
    faiss.omp_set_num_threads(1)
    c, q = np.load(corpus), np.load(queries)
    t0 = time.perf_counter()
    index = faiss.IndexFlatIP(c.shape[1])
    index.add(c)
    scores, ids = index.search(q, int(k))
    t1 = time.perf_counter()
    with open(out, "w") as f:
        w = f.write
        for qi in range(q.shape[0]):
            for r, (d, s) in enumerate(zip(ids[qi].tolist(), scores[qi].tolist())):
                if d >= 0:
                    w("%d Q0 %d %d %r faiss\n" % (qi, d, r + 1, float(np.float32(s))))
    print("faiss search only: %.3f s" % (t1 - t0), file=sys.stderr)


def read_run(path):
    run = {}
    with open(path) as f:
        for line in f:
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
    return run


def compare(a_path, b_path, eps="1e-5"):
    """Checks that both runs retrieve the same documents for every query;
    a document in only one run is allowed when its score is within eps of
    that run's last (k-th) score, i.e. a tie or near-tie at the cut."""
    eps = float(eps)
    a, b = read_run(a_path), read_run(b_path)
    if set(a) != set(b):
        sys.exit("compare: query sets differ: %d vs %d queries" % (len(a), len(b)))
    differ, bad, maxdiff = 0, 0, 0.0
    for q in a:
        da, db = a[q], b[q]
        for d in set(da) & set(db):
            maxdiff = max(maxdiff, abs(da[d] - db[d]))
        only = [(d, da) for d in set(da) - set(db)] + [(d, db) for d in set(db) - set(da)]
        if only:
            differ += 1
        for d, run in only:
            if run[d] - min(run.values()) > eps:
                bad += 1
                print("compare: query %s: doc %s (score %r) is in only one run, above the cut" % (q, d, run[d]), file=sys.stderr)
    print("compare: %d queries, %d differ only at near-ties at the cut, max score difference %.3g" % (len(a), differ, maxdiff))
    if bad:
        sys.exit("compare: %d documents differ above the cut" % bad)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"gen": gen, "faiss": run_faiss, "compare": compare}[cmd](*args)
