#!/usr/bin/env python3
"""answers-crosscheck.py re-implements DPR's answer matching (string mode, and
dreval's substring mode) with Python's unicodedata, independently of the Go
package answer, and prints the gold-paragraph counts that answer's tests
assert: SQuAD v1.1 dev 10569 of 10570; DuReader test extractive answers
string 54, substring 99, verbatim 57 of 99.

Usage: scripts/answers-crosscheck.py [SHARED_DATA_DIR]   (default ../shared/data)
"""
import json, os, sys, unicodedata
def cat(c): return unicodedata.category(c)
def tokens(s):
    s = unicodedata.normalize('NFD', s)
    out=[]; i=0; n=len(s)
    while i<n:
        c=s[i]
        if cat(c)[0] in 'LNM':
            j=i+1
            while j<n and cat(s[j])[0] in 'LNM': j+=1
            out.append(s[i:j].lower()); i=j; continue
        if cat(c)[0] not in 'ZC': out.append(c.lower())
        i+=1
    return out
def has(answers, text):
    t=tokens(text)
    for a in answers:
        a=tokens(a)
        if not a: continue
        for i in range(len(t)-len(a)+1):
            if t[i:i+len(a)]==a: return True
    return False
def sub(answers,text):
    t=''.join(tokens(text))
    return any(a and a in t for a in (''.join(tokens(x)) for x in answers))
def load(d):
    corpus={}
    for l in open(d+'/corpus.jsonl'):
        o=json.loads(l); corpus[o['_id']]=o['text']
    qrels={}
    for i,l in enumerate(open(d+'/qrels/test.tsv')):
        if i==0: continue
        q,doc,s=l.split('\t'); qrels.setdefault(q,[]).append(doc)
    ans={}
    for l in open(d+'/answers.jsonl'):
        o=json.loads(l); ans[o['query-id']]=o
    return corpus,qrels,ans
data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'data')
c,q,a=load(os.path.join(data, 'squad-v1.1-dev'))
print('squad gold string-mode hits', sum(any(has(a[k]['answers'],c[d]) for d in docs) for k,docs in q.items()), 'of', len(q))
c,q,a=load(os.path.join(data, 'dureader-demo-zh'))
print('dureader extractive string', sum(any(has(a[k]['fake_answers'],c[d]) for d in docs) for k,docs in q.items()),
      'substring', sum(any(sub(a[k]['fake_answers'],c[d]) for d in docs) for k,docs in q.items()),
      'verbatim', sum(any(x and x in c[d] for x in a[k]['fake_answers'] for d in docs) for k,docs in q.items()), 'of', len(q))
