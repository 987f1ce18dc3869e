#!/usr/bin/env bash
# System packages the project uses, installed when absent (Debian/Ubuntu):
#   poppler-utils   pdftotext/pdfinfo, the PDF text extractor ingest prefers (layout kept).
#   tesseract-ocr   OCR of image-only PDF pages and image files (with its English data).
#   chromium, chromium-driver
#                   headless Chromium and its WebDriver, for the evidence viewer's browser
#                   test (tests/viewer.rs); `attest` itself never needs them.
#   curl            the README's example request, which tests/docs.rs runs as written.
# Without root or apt-get it says what is missing and goes on: ingest then falls back to
# the pure-Rust pdf-extract and the tests that need a package say they were skipped
# (in CI, ATTEST_REQUIRE_BROWSER=1 turns a missing browser into a failure).
set -euo pipefail

need=()
command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
command -v tesseract >/dev/null 2>&1 || need+=(tesseract-ocr)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
command -v curl >/dev/null 2>&1 || need+=(curl)

if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: apt-get not found; install ${need[*]} by hand for the best PDF text" >&2
    exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo="sudo -n"
    else
        echo "setup: not root and no sudo; install ${need[*]} by hand for the best PDF text" >&2
        exit 0
    fi
fi
echo "setup: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null || echo "setup: apt-get update failed" >&2
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null \
    || echo "setup: could not install ${need[*]}" >&2
