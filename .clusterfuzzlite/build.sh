#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build of every libFuzzer target of agentconform (fuzz/targets/*.cpp,
# binaries fuzz_<name>), as the OSS-Fuzz build environment expects:
#   in:  CC, CXX, CFLAGS, CXXFLAGS (sanitizers, coverage, -fsanitize=fuzzer-no-link), LIB_FUZZING_ENGINE,
#        SRC, WORK (scratch: the CMake build lives in $WORK/agentconform-build), OUT
#   out: $OUT/fuzz_<name>                      the binary (OpenSSL and libsodium linked statically)
#        $OUT/fuzz_<name>_seed_corpus.zip      fuzz/corpus/<name>/, the directories of fuzz/seeds/<name>.txt
#                                              and fuzz/regressions/<name>/ (crashes that must stay fixed)
#        $OUT/fuzz_<name>.dict                 fuzz/dict/<name>.dict
#        $OUT/fuzz_<name>.options              [libfuzzer] max_len, timeout, rss_limit_mb, dict
#        $OUT/agentconform-data/               what the binaries read at run time (schemas/, the hub
#                                              targets' configs): harness/util/data_dir.cpp looks for it
#                                              next to a relocated executable
# scripts/test.sh runs this script outside Docker with the same variables (clang-19, ASan+UBSan) and
# smoke-runs every binary from $OUT (fuzz/smoke_out.sh). docs/fuzzing.md, last section, has the layout.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# In the ClusterFuzzLite image the checkout is the working directory ($SRC/agentconform) and this
# script may have been copied to $SRC; run from the checkout it finds the tree next to itself.
if [ -f "$here/../fuzz/CMakeLists.txt" ]; then root=$(cd "$here/.." && pwd); else root=$PWD; fi
[ -f "$root/fuzz/CMakeLists.txt" ] || { echo "build.sh: cannot find the agentconform checkout" >&2; exit 1; }
: "${CXX:?}" "${CXXFLAGS:?}" "${LIB_FUZZING_ENGINE:?}" "${OUT:?}" "${WORK:?}"
build=$WORK/agentconform-build
mkdir -p "$OUT" "$build"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

# re2 from source when the image brings it (.clusterfuzzlite/Dockerfile): compiled with $CXX and
# $CXXFLAGS (libc++, sanitizers, coverage) and linked statically, found through a pkg-config file
# of our own. On a plain host (scripts/test.sh) the system's libre2 is used.
if [ -d "${SRC:-/nonexistent}/re2" ]; then
  re2=$WORK/re2-install
  cmake -S "$SRC/re2" -B "$WORK/re2-build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
    -DCMAKE_BUILD_TYPE= -DBUILD_SHARED_LIBS=OFF -DRE2_BUILD_TESTING=OFF -DCMAKE_INSTALL_PREFIX="$re2" >/dev/null
  cmake --build "$WORK/re2-build" --parallel "${AC_BUILD_JOBS:-$(nproc)}"
  cmake --install "$WORK/re2-build" >/dev/null
  libdir=$(dirname "$(find "$re2" -name libre2.a | head -1)")
  mkdir -p "$re2/pkgconfig"
  printf 'Name: re2\nDescription: re2 built for fuzzing\nVersion: 0\nLibs: -L%s -lre2 -pthread\nCflags: -I%s/include -pthread\n' \
    "$libdir" "$re2" > "$re2/pkgconfig/re2.pc"
  export PKG_CONFIG_PATH="$re2/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
fi

# The fuzz preset's options (CMakePresets.json "fuzz"), with OSS-Fuzz's flags instead of the
# preset's own: AC_FUZZ_EXTERNAL_FLAGS keeps cmake/Sanitizers.cmake from adding sanitizers, and the
# empty build type adds no optimization flags of its own ($CXXFLAGS carries -O1 -gline-tables-only).
cmake -S "$root" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE= \
  -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DAC_BUILD_FUZZERS=ON -DAC_BUILD_TESTS=OFF -DAC_BUILD_BENCH=OFF -DAC_BUILD_NET=OFF \
  -DAC_FUZZ_EXTERNAL_FLAGS=ON \
  -DAC_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DOPENSSL_USE_STATIC_LIBS=TRUE >/dev/null

names=()
for src in "$root"/fuzz/targets/*.cpp; do
  names+=("$(basename "$src" .cpp)")
done
cmake --build "$build" --parallel "${AC_BUILD_JOBS:-$(nproc)}" --target "${names[@]/#/fuzz_}"

# Seed corpus zips are built with Python's zipfile (in every base image; `zip` is not on a plain
# Debian host): flat, one entry per file, names prefixed by their directory so none collide.
zip_corpus() {
  python3 - "$@" <<'PY'
import os, sys, zipfile
out, dirs = sys.argv[1], sys.argv[2:]
n = 0
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for i, d in enumerate(dirs):
        for base, _, files in sorted(os.walk(d)):
            for f in sorted(files):
                path = os.path.join(base, f)
                z.write(path, "%d-%s" % (i, os.path.relpath(path, d).replace(os.sep, "_")))
                n += 1
print("%s: %d seeds" % (os.path.basename(out), n))
PY
}

for name in "${names[@]}"; do
  fuzzer=fuzz_$name
  install -m 0755 "$build/bin/$fuzzer" "$OUT/$fuzzer"

  dirs=()
  [ -d "$root/fuzz/corpus/$name" ] && dirs+=("$root/fuzz/corpus/$name")
  if [ -f "$root/fuzz/seeds/$name.txt" ]; then
    while IFS= read -r line; do
      [ -n "$line" ] && [ -d "$root/$line" ] && dirs+=("$root/$line")
    done < "$root/fuzz/seeds/$name.txt"
  fi
  [ -d "$root/fuzz/regressions/$name" ] && dirs+=("$root/fuzz/regressions/$name")
  [ ${#dirs[@]} -gt 0 ] || { echo "build.sh: $fuzzer has no seeds (fuzz/corpus/$name, fuzz/seeds/$name.txt)" >&2; exit 1; }
  rm -f "$OUT/${fuzzer}_seed_corpus.zip"
  zip_corpus "$OUT/${fuzzer}_seed_corpus.zip" "${dirs[@]}"

  [ -f "$root/fuzz/dict/$name.dict" ] || { echo "build.sh: fuzz/dict/$name.dict is missing" >&2; exit 1; }
  cp "$root/fuzz/dict/$name.dict" "$OUT/$fuzzer.dict"

  # Session inputs of the hub targets are a few KiB; the byte-level targets get more room.
  max_len=65536
  [[ $name == hub_* ]] && max_len=16384
  cat > "$OUT/$fuzzer.options" <<OPTIONS
[libfuzzer]
max_len = $max_len
timeout = 10
rss_limit_mb = 2560
dict = $fuzzer.dict
OPTIONS
done

# Run-time data: the schemas every codec and the lobby configuration read, the hub targets'
# configuration variants, and the reference lobby's fault catalogue.
data=$OUT/agentconform-data
rm -rf "$data"
mkdir -p "$data/fuzz/hub" "$data/reference"
cp -r "$root/schemas" "$data/schemas"
cp -r "$root/fuzz/hub/configs" "$data/fuzz/hub/configs"
for f in "$root"/reference/*/faults.json; do
  p=$(basename "$(dirname "$f")")
  mkdir -p "$data/reference/$p"
  cp "$f" "$data/reference/$p/faults.json"
done
echo "build.sh: ${#names[@]} fuzz targets in $OUT"
