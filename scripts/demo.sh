#!/usr/bin/env bash
# The main job on a fresh machine: fetch the models if absent, build, ingest the bundled
# sample corpus into ./.attest, run sample searches (plain and multi-query), then ask the
# corpus real questions: a cited answer (with a conflict between two sources), and an
# abstention for a question the corpus cannot answer, and end with a checklist review of
# the sample project in corpus/review/ (a PDF, a DOCX and a report).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh
models/fetch.sh all-MiniLM-L6-v2
cargo build --release --quiet
attest=target/release/attest

echo "== attest ingest corpus/"
"$attest" ingest corpus/
echo
echo "== attest status"
"$attest" status
for q in "How long must client records be retained?" \
         "What must happen within 24 hours of a crisis call?"; do
  echo
  echo "== attest search \"$q\" --k 3"
  "$attest" search "$q" --k 3
done
echo
echo "== attest search --multi-query \"How soon must an assessment be completed after first contact?\""
"$attest" search --multi-query "How soon must an assessment be completed after first contact?"
echo
echo "== attest ask \"How long must client records be retained?\""
"$attest" ask "How long must client records be retained?"
echo
echo "== attest ask \"What is the boiling point of liquid nitrogen?\"   (not in the corpus: exit 1)"
"$attest" ask "What is the boiling point of liquid nitrogen?" || [ $? -eq 1 ]
echo
echo "== attest serve --addr 127.0.0.1:0   (then one question and one rejected text over HTTP)"
"$attest" serve --addr 127.0.0.1:0 > target/serve-demo.out 2> target/serve-demo.err &
server=$!
for _ in $(seq 1 600); do grep -q listening target/serve-demo.out 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's/^attest: listening on //p' target/serve-demo.out)
python3 - "$base" <<'PY'
import json, sys, urllib.request, urllib.error
base = sys.argv[1]
def post(path, body):
    req = urllib.request.Request(base + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)
code, a = post("/v1/ask", {"question": "How long must client records be retained?"})
print(f"POST /v1/ask -> {code} {a['status']}: {a['answer'].splitlines()[0]}")
code, r = post("/v1/validate", {"text": "Records are kept forever by the agency and never destroyed.", "evidence": a["evidence"]})
print(f"POST /v1/validate (uncited text) -> {code} {r['message']}: " + ", ".join(v["type"] for v in r["violations"]))
print(f"viewer: {base}/   metrics: {base}/metrics   API: {base}/openapi.json")
PY
kill -TERM "$server"; wait "$server"
echo
echo "== attest review corpus/review/checklist.json --scope corpus/review   (conflicts and a missing requirement: exit 1)"
code=0
"$attest" review corpus/review/checklist.json --scope corpus/review \
  --report target/review-sample.md > target/review-sample.txt || code=$?
head -n 20 target/review-sample.txt
echo "(full review: target/review-sample.txt; report: target/review-sample.md, evidence: target/review-sample.evidence.json)"
[ "$code" -le 1 ]
