#!/usr/bin/env python3
"""Run the issue-27 blind set (tests/fixtures/workflow-blind) with the release binary.

    scripts/blind-workflow.py REALDOCS_DIR WORK_DIR

Makes the image-only versions of the pages named in ocr.jsonl (scripts/scan-page.py),
ingests them with the real scan and the forms into WORK_DIR/idx, prints each page's
character accuracy, then asks questions.jsonl and prints what each answer states.
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIX = os.path.join(ROOT, "tests", "fixtures", "workflow-blind")
ATTEST = os.path.join(ROOT, "target", "release", "attest")


def norm(s):
    return " ".join(s.split())


def edit(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a):
        cur = [i + 1] * (len(b) + 1)
        for j, cb in enumerate(b):
            cur[j + 1] = min(prev[j] + (ca != cb), prev[j + 1] + 1, cur[j] + 1)
        prev = cur
    return prev[-1]


def best_window(line, text):
    """Accuracy of `line` against the best window of `text` (same length, slid by word)."""
    line, text = norm(line), norm(text)
    best = 0.0
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == " "]
    for s in starts:
        window = text[s:s + len(line) + 4]
        best = max(best, 1 - edit(line, window[:len(line)]) / max(len(line), 1),
                   1 - edit(line, window) / max(len(line), 1))
    return best


def attest(idx, *args):
    out = subprocess.run([ATTEST, "--index", idx, "--model-dir",
                          os.path.join(ROOT, "models", "all-MiniLM-L6-v2"), *args],
                         capture_output=True, text=True)
    return out.stdout


def main():
    realdocs, work = sys.argv[1], sys.argv[2]
    docs = os.path.join(work, "docs")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(docs)
    pages = [json.loads(l) for l in open(os.path.join(FIX, "ocr.jsonl"))]
    for p in pages:
        src = os.path.join(realdocs, "docs", p["doc"])
        if p["kind"] == "real-scan":
            shutil.copy(src, docs)
        else:
            out = os.path.join(docs, p["doc"].replace(".pdf", ".scan.pdf"))
            subprocess.run([os.path.join(HERE, "scan-page.py"), src, str(p["page"]), out], check=True)
    for form in ["fec-form3x-iaff-firepac-2018-01.pdf", "irs-fw9-2024.pdf", "irs-fw4-2025.pdf"]:
        shutil.copy(os.path.join(realdocs, "docs", form), docs)
    idx = os.path.join(work, "idx")
    print(attest(idx, "ingest", docs).strip().splitlines()[-2:])
    import sqlite3
    db = sqlite3.connect(os.path.join(idx, "attest.sqlite3"))
    texts = {os.path.basename(path): text for path, text in db.execute("SELECT path, text FROM documents")}
    for p in pages:
        name = p["doc"] if p["kind"] == "real-scan" else p["doc"].replace(".pdf", ".scan.pdf")
        got = texts.get(name, "")
        if p["kind"] == "real-scan":
            accs = [best_window(l, got) for l in p["lines"]]
            acc = sum(accs) / len(accs)
        else:
            want = subprocess.run(["pdftotext", "-raw", "-f", str(p["page"]), "-l", str(p["page"]),
                                   os.path.join(realdocs, "docs", p["doc"]), "-"],
                                  capture_output=True, text=True).stdout
            acc = 1 - edit(norm(want), norm(got)) / max(len(norm(want)), 1)
        flag = "ok" if acc >= p["min_char_accuracy"] else "BELOW"
        print(f"ocr {name}: characters right {acc:.3f} (target {p['min_char_accuracy']}) {flag}")
    for q in (json.loads(l) for l in open(os.path.join(FIX, "questions.jsonl"))):
        a = json.loads(attest(idx, "ask", q["question"], "--json") or "{}")
        value = (a.get("answer_value") or {}).get("raw")
        status = a.get("status")
        quotes = [e.get("display", "")[:90] for e in a.get("evidence", [])[:2]]
        print(json.dumps({"id": q["id"], "expect": q["expect"], "status": status, "value": value,
                          "answer": a.get("answer", "")[:160], "quotes": quotes}))


if __name__ == "__main__":
    main()
