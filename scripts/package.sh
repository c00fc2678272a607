#!/usr/bin/env bash
# Builds the release packages of agentconform into dist/ (docs/packaging.md):
#   dist/agentconform_<version>_<arch>.deb               Depends computed by dpkg-shlibdeps
#   dist/agentconform-<version>-linux-<arch>.tar.gz      relocatable: unpack anywhere, run bin/agentconform
#   dist/agentconform-<version>-linux-<arch>.debug       the debug info split off the stripped binary
# from a release configuration in build-package/: optimized (-O2), hardened (fortify, stack
# protector, full RELRO), only the `agentconform` target (no tests, benchmarks or fuzzers).
# The installed binary is stripped; gdb finds the .debug file by the build id both carry.
# Environment: AC_PACKAGE_BUILD_DIR (default build-package), AC_BUILD_JOBS (default: every core).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

bash scripts/setup.sh package

build=${AC_PACKAGE_BUILD_DIR:-build-package}
jobs=${AC_BUILD_JOBS:-$(nproc)}
hardening="-D_FORTIFY_SOURCE=2 -fstack-protector-strong -fstack-clash-protection -fcf-protection"

# CMAKE_SKIP_INSTALL_ALL_DEPENDENCY: cpack installs what the agentconform target built instead of
# building `all` first.
cmake -S . -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=g++ \
  -DCMAKE_CXX_FLAGS="$hardening" -DCMAKE_EXE_LINKER_FLAGS="-Wl,-z,relro -Wl,-z,now" \
  -DAC_BUILD_TESTS=OFF -DAC_BUILD_BENCH=OFF -DAC_BUILD_FUZZERS=OFF -DAC_BUILD_NET=ON -DAC_SANITIZE=OFF \
  -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON >/dev/null
cmake --build "$build" --target agentconform -j "$jobs"

version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
tgz_name=$(sed -n 's/^set(CPACK_PACKAGE_FILE_NAME "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
[ -n "$version" ] && [ -n "$tgz_name" ] || { echo "package: no version in $build/CPackConfig.cmake" >&2; exit 1; }

mkdir -p dist
rm -rf dist/agentconform_*.deb dist/agentconform-*.tar.gz dist/agentconform-*.debug "$build/cpack"

# The debug info, from the unstripped build output (CPack strips its own installed copy).
objcopy --only-keep-debug --compress-debug-sections=zlib "$build/bin/agentconform" "dist/$tgz_name.debug"
chmod 644 "dist/$tgz_name.debug"

(cd "$build" && cpack --config CPackConfig.cmake -B "$root/$build/cpack" >/dev/null)
mv "$build"/cpack/agentconform_*.deb "$build/cpack/$tgz_name.tar.gz" dist/

deb=$(ls dist/agentconform_*.deb)
tgz=dist/$tgz_name.tar.gz

# Checks: the packaged binary is stripped and carries the build id of the .debug file.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" ./usr/bin/agentconform
build_id() { readelf -n "$1" 2>/dev/null | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p'; }
if readelf -S "$tmp/usr/bin/agentconform" | grep -q -e '\.symtab' -e '\.debug_info'; then
  echo "package: $deb holds an unstripped binary" >&2; exit 1
fi
if [ -z "$(build_id "$tmp/usr/bin/agentconform")" ] || [ "$(build_id "$tmp/usr/bin/agentconform")" != "$(build_id "dist/$tgz_name.debug")" ]; then
  echo "package: the build ids of the packaged binary and dist/$tgz_name.debug differ" >&2; exit 1
fi

echo "package: agentconform $version"
echo "  Depends: $(dpkg-deb -f "$deb" Depends)"
echo "  Installed-Size: $(dpkg-deb -f "$deb" Installed-Size) KiB"
for f in "$deb" "$tgz" "dist/$tgz_name.debug"; do
  printf '  %-58s %8s\n' "$f" "$(du -h --apparent-size "$f" | cut -f1)"
done
