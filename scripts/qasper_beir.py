#!/usr/bin/env python3
"""qasper as a BEIR retrieval set: paragraphs as documents, questions as queries, the
paragraphs holding a question's gold evidence as relevant.

    python3 scripts/qasper_beir.py ../shared/data/qasper /tmp/qasper-beir
    attest eval retrieval --dataset /tmp/qasper-beir --eval-index /tmp/idx-qasper-beir

Retrieval runs over all papers at once (harder than asking each of its own paper), which
is what a comparison of two encoders needs: the same queries over the same paragraphs.
A paragraph is relevant when it holds the first 60 characters (whitespace collapsed) of a
piece of the evidence, or a piece holds the whole paragraph. Questions without evidence
(unanswerable) are left out, and so are those whose evidence no paragraph holds.
"""
import json
import os
import re
import sys


def norm(s):
    return re.sub(r"\s+", " ", s).strip().lower()


def paragraphs(md):
    out = []
    for block in re.split(r"\n\s*\n", md):
        b = block.strip()
        if b and not b.startswith("#"):
            out.append(b)
    return out


def main(src, dst):
    os.makedirs(os.path.join(dst, "qrels"), exist_ok=True)
    corpus, by_doc = [], {}
    for name in sorted(os.listdir(os.path.join(src, "docs"))):
        with open(os.path.join(src, "docs", name), encoding="utf-8") as f:
            paras = paragraphs(f.read())
        ids = []
        for i, p in enumerate(paras):
            pid = f"{name[:-3]}#{i}"
            corpus.append({"_id": pid, "title": "", "text": p})
            ids.append((pid, norm(p)))
        by_doc[name] = ids
    queries, qrels = [], []
    with open(os.path.join(src, "questions.jsonl"), encoding="utf-8") as f:
        for line in f:
            q = json.loads(line)
            pieces = [norm(e) for e in re.split(r"\n+", q.get("evidence_text") or "") if norm(e)]
            if not q.get("answerable") or not pieces:
                continue
            rel = {pid for pid, p in by_doc.get(q["doc"], [])
                   for e in pieces if e[:60] in p or (len(p) > 40 and p in e)}
            if not rel:
                continue
            queries.append({"_id": q["id"], "text": q["question"]})
            qrels.extend((q["id"], pid) for pid in sorted(rel))
    with open(os.path.join(dst, "corpus.jsonl"), "w", encoding="utf-8") as f:
        for c in corpus:
            f.write(json.dumps(c) + "\n")
    with open(os.path.join(dst, "queries.jsonl"), "w", encoding="utf-8") as f:
        for q in queries:
            f.write(json.dumps(q) + "\n")
    with open(os.path.join(dst, "qrels", "test.tsv"), "w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for qid, pid in qrels:
            f.write(f"{qid}\t{pid}\t1\n")
    print(f"{len(corpus)} paragraphs, {len(queries)} queries, {len(qrels)} relevant pairs")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
