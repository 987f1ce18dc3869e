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
echo "== attest review corpus/review/checklist.json --scope corpus/review   (conflicts and a missing requirement: exit 1)"
code=0
"$attest" review corpus/review/checklist.json --scope corpus/review \
  --report target/review-sample.md > target/review-sample.txt || code=$?
head -n 20 target/review-sample.txt
echo "(full review: target/review-sample.txt; report: target/review-sample.md, evidence: target/review-sample.evidence.json)"
[ "$code" -le 1 ]
