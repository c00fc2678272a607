#!/usr/bin/env bash
# Clean-root proof of the .deb (issue 15; docs/packaging.md):
#   1. lintian on the .deb: no error (warnings and infos are printed);
#   2. a fresh Debian 12 root made by mmdebstrap (essential packages + apt, nothing else);
#   3. `apt-get install ./agentconform_*.deb` inside it (chroot): apt resolves the dependencies
#      dpkg-shlibdeps computed, from the mirror;
#   4. `agentconform --version` there, which must read /usr/share/agentconform;
#   5. a full `agentconform run` (every protocol, every suite) against the embedded lobby: exit 0;
#   6. `apt-get purge --autoremove agentconform`: afterwards the root holds exactly the files it
#      held before the installation (package state under /var/lib/dpkg, /var/lib/apt, caches and
#      logs aside), so nothing is left behind.
# Needs root (mmdebstrap --mode=root, mount, chroot) and the Debian mirror; not part of
# scripts/test.sh. Usage (after scripts/package.sh):
#   tests/packaging/clean_root_proof.sh [path/to/agentconform_*.deb]
# Environment: AC_DEBIAN_MIRROR (default http://deb.debian.org/debian), AC_PROOF_LOG (default
# dist/clean_root_proof.log: everything printed is kept there).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
deb=${1:-$(ls "$repo"/dist/agentconform_*.deb 2>/dev/null | head -n 1 || true)}
mirror=${AC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
log=${AC_PROOF_LOG:-$repo/dist/clean_root_proof.log}

[ "$(id -u)" -eq 0 ] || { echo "clean_root_proof: needs root (mmdebstrap --mode=root, mount, chroot)" >&2; exit 2; }
[ -n "$deb" ] && [ -f "$deb" ] || { echo "clean_root_proof: no .deb (run scripts/package.sh, or give its path)" >&2; exit 2; }
for tool in mmdebstrap lintian; do
  command -v "$tool" >/dev/null || { echo "clean_root_proof: $tool is missing (scripts/setup.sh package)" >&2; exit 2; }
done
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")

mkdir -p "$(dirname "$log")"
exec > >(tee "$log") 2>&1

work=$(mktemp -d /tmp/ac-clean-root.XXXXXX)
root=$work/root
cleanup() {
  umount "$root/dev/pts" 2>/dev/null || true
  umount "$root/proc" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
# Every path of the root but the package manager's state, caches, logs and the scratch space.
snapshot() {
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp -o -path ./run \
      -o -path ./var/log -o -path ./var/cache -o -path ./var/lib/apt -o -path ./var/lib/dpkg \) -prune -o -print |
   LC_ALL=C sort)
}

echo "clean-root proof of $(basename "$deb") ($(du -h --apparent-size "$deb" | cut -f1)), $(date -u +%Y-%m-%dT%H:%M:%SZ)"

step "lintian $(basename "$deb")"
# --fail-on error: warnings, infos (-I) and pedantic tags are printed but do not fail the proof.
lintian -I --pedantic --fail-on error "$deb" && echo "lintian: no errors"

step "fresh Debian 12 root: mmdebstrap --variant=apt bookworm ($mirror)"
mmdebstrap --variant=apt --mode=root --quiet bookworm "$root" "$mirror"
echo "root: $(chroot "$root" dpkg-query -W -f '.\n' | wc -l) packages, $(du -sh "$root" | cut -f1)"
mount -t proc proc "$root/proc"  # agentconform finds its data through /proc/self/exe
mount --bind /dev/pts "$root/dev/pts"  # apt's terminal log
snapshot > "$work/before"

step "apt-get install ./$(basename "$deb") (dependencies from the mirror)"
cp "$deb" "$root/tmp/"
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "/tmp/$(basename "$deb")" |
  grep -E '^(The following|  |Setting up|[0-9]+ upgraded)' || true
in_root dpkg-query -W -f 'installed: ${Package} ${Version}\nDepends: ${Depends}\n' agentconform

step "agentconform --version"
in_root agentconform --version | tee "$work/version"
grep -qx 'data: /usr/share/agentconform (installed)' "$work/version" ||
  { echo "FAIL: the installed binary does not read /usr/share/agentconform" >&2; exit 1; }

step "agentconform run (every protocol and suite, embedded reference lobby)"
set +e
in_root sh -c 'cd /tmp && agentconform run --jobs 8 --quiet --report-dir /tmp/agentconform-report'
code=$?
set -e
echo "agentconform run: exit $code"
[ "$code" -eq 0 ] || { echo "FAIL: agentconform run exited $code" >&2; exit 1; }
ls "$root/tmp/agentconform-report"

step "apt-get purge --autoremove agentconform"
in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y --autoremove agentconform |
  grep -E '^(The following|  |Removing|Purging|[0-9]+ upgraded)' || true
if status=$(in_root dpkg-query -W -f '${db:Status-Abbrev}' agentconform 2>/dev/null); then
  case "$status" in un*) ;; *) echo "FAIL: dpkg still has agentconform: '$status'" >&2; exit 1 ;; esac
fi
echo "dpkg: agentconform is not installed (purged)"
snapshot > "$work/after"
if ! diff -u "$work/before" "$work/after"; then
  echo "FAIL: the purge left files behind or removed files that were there before (diff above)" >&2
  exit 1
fi
echo "no file left behind: the root's $(wc -l < "$work/before") paths are those it had before the installation"

printf '\nPASS: clean-root proof of %s\n' "$(basename "$deb")"
