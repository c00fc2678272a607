# ASan+UBSan for the asan preset. Non-recoverable UBSan so that a finding fails the test.
if(AC_SANITIZE)
  set(_ac_san -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(${_ac_san})
  add_link_options(${_ac_san})
  # Executables are linked without PIE. In a PIE the sanitizers' metadata takes about 4 million
  # relative relocations (a .rela.dyn of 100 MB in agentconform), which the loader applies at every
  # start: `agentconform --version` cost 144 ms and 45k page faults, 78 ms and 16k without PIE. The
  # tests start the CLI and the lobby hundreds of times.
  add_link_options($<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
endif()

# The fuzz preset instruments every library for coverage; only fuzz targets link the fuzzer main.
# An OSS-Fuzz / ClusterFuzzLite build (.clusterfuzzlite/build.sh) brings its own sanitizer and
# coverage flags in CXXFLAGS and the fuzzer main in LIB_FUZZING_ENGINE: AC_FUZZ_EXTERNAL_FLAGS.
option(AC_FUZZ_EXTERNAL_FLAGS "Fuzzing: take sanitizer flags from CXXFLAGS and the engine from AC_FUZZING_ENGINE" OFF)
if(AC_BUILD_FUZZERS AND NOT AC_FUZZ_EXTERNAL_FLAGS)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
