# ASan+UBSan for the asan preset. Non-recoverable UBSan so that a finding fails the test.
if(AC_SANITIZE)
  set(_ac_san -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(${_ac_san})
  add_link_options(${_ac_san})
endif()

# The fuzz preset instruments every library for coverage; only fuzz targets link the fuzzer main.
if(AC_BUILD_FUZZERS)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
