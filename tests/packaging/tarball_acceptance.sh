#!/usr/bin/env bash
# Acceptance of the packages (issue 15), from a fresh clone of the committed HEAD:
#   1. `scripts/package.sh` in the clone produces dist/*.deb and dist/*.tar.gz (and the .debug);
#   2. the source clone is moved away, so nothing can fall back to it;
#   3. the tarball, extracted into a new directory, runs `agentconform run --protocol chopsticks`
#      (every chopsticks case) from an unrelated working directory with no AGENTCONFORM_*
#      variable set: exit 0, and `--version` says the data came from the extracted tree.
# Not part of scripts/test.sh (a release build takes minutes); docs/packaging.md says how to run it:
#   tests/packaging/tarball_acceptance.sh [REPOSITORY]   (default: this checkout)
# Prints the package sizes; leaves the packages in $AC_ACCEPTANCE_KEEP when that is set.
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
work=$(mktemp -d /tmp/ac-acceptance.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "== fresh clone of $repo ($(git -C "$repo" rev-parse --short HEAD))"
git clone -q --no-local "$repo" "$work/src"

echo "== scripts/package.sh"
(cd "$work/src" && scripts/package.sh)
ls -l "$work"/src/dist/
deb=$(ls "$work"/src/dist/agentconform_*.deb)
tgz=$(ls "$work"/src/dist/agentconform-*.tar.gz)
[ -f "$deb" ] && [ -f "$tgz" ] || { echo "FAIL: dist/ lacks the .deb or the .tar.gz" >&2; exit 1; }
mkdir -p "$work/dist"
cp "$deb" "$tgz" "$work"/src/dist/*.debug "$work/dist/"
[ -z "${AC_ACCEPTANCE_KEEP:-}" ] || { mkdir -p "$AC_ACCEPTANCE_KEEP"; cp "$work"/dist/* "$AC_ACCEPTANCE_KEEP/"; }

echo "== the source clone moves away; the tarball is extracted elsewhere"
mv "$work/src" "$work/src-moved"
mkdir -p "$work/unpacked" "$work/anywhere"
tar -xzf "$work/dist/$(basename "$tgz")" -C "$work/unpacked"
exe=$(ls "$work"/unpacked/*/bin/agentconform)
cd "$work/anywhere"
unset AGENTCONFORM_DATA_DIR AGENTCONFORM_DEPS_DIR
env | grep '^AGENTCONFORM_' && { echo "FAIL: AGENTCONFORM_ variables are set" >&2; exit 1; }

"$exe" --version | tee version.txt
grep -qx "data: $(dirname "$(dirname "$exe")")/share/agentconform (installed)" version.txt ||
  { echo "FAIL: the extracted binary does not read its own share/agentconform" >&2; exit 1; }

echo "== agentconform run --protocol chopsticks (from $PWD)"
set +e
"$exe" run --protocol chopsticks --quiet
code=$?
set -e
echo "exit code: $code"
[ "$code" -eq 0 ] || { echo "FAIL: exit $code" >&2; exit 1; }
ls agentconform-report/

echo "== sizes"
for f in "$work"/dist/*; do printf '  %-56s %s\n' "$(basename "$f")" "$(du -h --apparent-size "$f" | cut -f1)"; done
echo "PASS: tarball acceptance"
