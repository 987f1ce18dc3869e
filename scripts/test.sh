#!/usr/bin/env bash
# The test suite on a fresh machine: fetch the models if absent, start a local Milvus
# server for the Milvus backend's tests (scripts/milvus.sh), then run every test (unit,
# property and integration tests, the latter with the real bi-encoder, the real `attest`
# binary and the real server).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh
models/fetch.sh
url="$(scripts/milvus.sh start)"
trap 'scripts/milvus.sh stop' EXIT
ATTEST_TEST_MILVUS_URL="$url" ATTEST_REQUIRE_MILVUS=1 \
    ATTEST_REQUIRE_GENERATOR=1 ATTEST_REQUIRE_BROWSER=1 ATTEST_REQUIRE_OCR=1 cargo test --quiet "$@"
