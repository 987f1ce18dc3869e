#!/usr/bin/env bash
# The test suite on a fresh machine: fetch the models if absent, then run every test
# (unit, property and integration tests, the latter with the real bi-encoder and the
# real `attest` binary).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh
models/fetch.sh
ATTEST_REQUIRE_GENERATOR=1 ATTEST_REQUIRE_BROWSER=1 cargo test --quiet "$@"
