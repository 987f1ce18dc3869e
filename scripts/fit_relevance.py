#!/usr/bin/env python3
"""Fit the relevance model (src/evidence/relevance.toml) on public question sets.

    scripts/fit_relevance.py BIN QASPER_DIR HOTPOT_QUESTIONS [--index DIR] [--out FILE] [--cache FILE]

(--cache keeps the collected candidates in FILE and reads them from there when it exists.)

BIN is a release build of attest; QASPER_DIR holds the QASPER development split
(`docs/`, `questions.jsonl`); HOTPOT_QUESTIONS is HotpotQA's `questions_dev.jsonl`.
Standard library only; deterministic (no sampling, no random start).

Data (see docs/fitting.md):
- The QASPER papers are split by a hash of the file name: 5 in 10 to fit, 2 in 10 to
  validate, 3 in 10 never read here (reported on).
- Each QASPER question is asked of its own paper (`ask --scope`); a candidate is relevant
  when its quote holds one of the question's expected strings. Questions the papers leave
  unanswered give only irrelevant candidates; answerable questions no candidate of which
  holds an expected string are left out of the fit (their labels are unknown) but count
  as missed in validation.
- Out-of-domain questions: HotpotQA's questions (encyclopedic, multi-hop) asked of a
  QASPER paper, which cannot answer them: every candidate is irrelevant. The first half
  goes with the fit papers, the second with the validation papers.

The model is a logistic regression over the verifier's features, fitted by Newton's
method with a small ridge penalty. The threshold is the one that, on the validation
questions, cites an expected string for the most answerable questions while abstaining
on at least 99 % of the out-of-domain questions (ties: the higher threshold). Relevance
says whether a passage is about the question at all; whether a passage about it states
what is asked (a near miss in the same field) is left to the typed decisions after it,
so QASPER's unanswerable questions are reported, not constrained.
"""
import hashlib, json, math, os, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

FEATURES = ["cosine", "coverage", "context_cosine", "cosine_gap", "context_gap",
            "chunk_rank", "words", "type_match"]
RIDGE = 1.0
ANSWER_ITEMS = 4  # statements an answer cites at most (max_statements)
OOD_FLOOR = 0.99


def split_of(doc):
    b = hashlib.sha256(doc.encode()).digest()[0] % 10
    return "fit" if b < 5 else ("val" if b < 7 else "report")


def norm(s):
    return " ".join(str(s or "").replace("\u00a0", " ").split()).lower()


def ask(bin_, index, question, scope):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    try:
        subprocess.run([bin_, "--index", index, "ask", question, "--scope", scope,
                        "--no-memory", "--json", "--audit", path],
                       capture_output=True, text=True, timeout=300)
        with open(path) as f:
            text = f.read()
        return json.loads(text) if text.strip() else {}
    finally:
        os.unlink(path)


def rows_of(audit, expect):
    """(features, relevant) of every scored, complete, verbatim candidate of the first
    research step (later steps depend on the model's own verdicts)."""
    out = []
    for c in audit.get("candidates", []):
        if c.get("step") != 1:
            continue
        rel = c.get("relevance", {})
        feats = rel.get("features")
        reason = (c.get("rejected") or {}).get("reason")
        if feats is None or reason not in (None, "does_not_address_question"):
            continue
        quote = norm(c.get("quote"))
        out.append(([feats[k] for k in FEATURES], any(e and e in quote for e in expect)))
    return out


def collect(bin_, index, docs, qasper, hotpot):
    jobs = []
    for q in qasper:
        expect = [norm(x) for x in q.get("expect", [])] if q["answerable"] else []
        jobs.append(("qasper", q, expect, f"{docs}/{q['doc']}"))
    for q, doc in hotpot:
        jobs.append(("ood", q, [], f"{docs}/{doc}"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        audits = list(pool.map(lambda j: ask(bin_, index, j[1]["question"], j[3]), jobs))
    return [dict(source=j[0], answerable=j[0] == "qasper" and j[1]["answerable"],
                 id=j[1].get("id", ""), kind=j[1].get("kind", "ood"),
                 rows=rows_of(a, j[2])) for j, a in zip(jobs, audits)]


def solve(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                m[r] = [x - f * y for x, y in zip(m[r], m[i])]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(xs, ys, iters=25):
    d = len(xs[0]) + 1
    w = [0.0] * d
    for _ in range(iters):
        g = [0.0] * d
        h = [[0.0] * d for _ in range(d)]
        for x, y in zip(xs, ys):
            v = [1.0] + x
            p = 1 / (1 + math.exp(-sum(a * b for a, b in zip(w, v))))
            for i in range(d):
                g[i] += (p - y) * v[i]
                for j in range(d):
                    h[i][j] += p * (1 - p) * v[i] * v[j]
        for i in range(1, d):
            g[i] += RIDGE * w[i]
            h[i][i] += RIDGE
        step = solve(h, g)
        w = [a - b for a, b in zip(w, step)]
        if max(abs(s) for s in step) < 1e-9:
            break
    return w


def prob(w, x):
    return 1 / (1 + math.exp(-(w[0] + sum(a * b for a, b in zip(w[1:], x)))))


def outcome(w, t, q):
    scored = sorted((prob(w, x), y) for x, y in q["rows"])[::-1]
    passed = [y for p, y in scored if p >= t]
    return bool(passed), any(passed[:ANSWER_ITEMS])


def choose_threshold(w, val):
    best = None
    for k in range(1, 100):
        t = k / 100
        ans = [q for q in val if q["answerable"]]
        ood = [q for q in val if q["source"] == "ood"]
        una = [q for q in val if q["source"] == "qasper" and not q["answerable"]]
        cited = sum(outcome(w, t, q)[1] for q in ans) / max(len(ans), 1)
        ood_abst = sum(not outcome(w, t, q)[0] for q in ood) / max(len(ood), 1)
        una_abst = sum(not outcome(w, t, q)[0] for q in una) / max(len(una), 1)
        ok = ood_abst >= OOD_FLOOR
        key = (ok, cited if ok else ood_abst, t)
        if best is None or key > best[0]:
            best = (key, t, dict(cited=cited, ood_abstained=ood_abst,
                                 unanswerable_abstained=una_abst))
    return best[1], best[2]


def main():
    bin_, qdir, hotpot_file = sys.argv[1:4]
    arg = lambda k, d: sys.argv[sys.argv.index(k) + 1] if k in sys.argv else d
    index = arg("--index", "/tmp/attest-fit-qasper")
    out = arg("--out", os.path.join(os.path.dirname(__file__), "..", "src", "evidence", "relevance.toml"))
    docs = os.path.abspath(os.path.join(qdir, "docs"))
    if not os.path.exists(index):
        subprocess.run([bin_, "--index", index, "ingest", docs], check=True)
    qs = [json.loads(l) for l in open(os.path.join(qdir, "questions.jsonl"))]
    hot = [dict(question=json.loads(l)["question_text"]) for l in open(hotpot_file)]
    cache = arg("--cache", None)
    data = json.load(open(cache)) if cache and os.path.exists(cache) else {}
    for part in ("fit", "val"):
        if part in data:
            continue
        qp = [q for q in qs if split_of(q["doc"]) == part]
        papers = sorted({q["doc"] for q in qp})
        half = hot[: len(hot) // 2] if part == "fit" else hot[len(hot) // 2:]
        ood = [(q, papers[i % len(papers)]) for i, q in enumerate(half)]
        data[part] = collect(bin_, index, docs, qp, ood)
    if cache:
        json.dump(data, open(cache, "w"))
    usable = [q for q in data["fit"] if not q["answerable"] or any(y for _, y in q["rows"])]
    xs = [x for q in usable for x, _ in q["rows"]]
    ys = [float(y) for q in usable for _, y in q["rows"]]
    w = fit(xs, ys)
    t, val = choose_threshold(w, data["val"])
    count = lambda part, src: sum(q["source"] == src for q in data[part])
    with open(out, "w") as f:
        f.write("# Written by scripts/fit_relevance.py (see docs/fitting.md); do not edit by hand.\n")
        f.write(f"threshold = {t:.2f}\nbias = {w[0]:.6f}\n\n[weights]\n")
        for name, v in zip(FEATURES, w[1:]):
            f.write(f"{name} = {v:.6f}\n")
        f.write("\n[fitted_on]\n")
        f.write(f"fit_questions = {count('fit', 'qasper')}\nfit_out_of_domain = {count('fit', 'ood')}\n")
        f.write(f"fit_candidates = {len(xs)}\nfit_relevant = {int(sum(ys))}\n")
        f.write(f"val_questions = {count('val', 'qasper')}\nval_out_of_domain = {count('val', 'ood')}\n")
        for k, v in val.items():
            f.write(f"val_{k} = {v:.3f}\n")
    print(open(out).read())


if __name__ == "__main__":
    main()
