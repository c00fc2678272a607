# Project-wide warnings, applied per target with ac_set_warnings(target), and the shared
# precompiled header: nlohmann/json and the standard headers nearly every translation unit
# parses. Parsing them once instead of ~200 times roughly halves a clean build on two cores
# (CI must stay well under 30 minutes). ac_pch builds the PCH; every target reuses it
# (same compiler flags; their extra -D macros do not touch these headers).
# Every translation unit is compiled with -pthread (it predefines _REENTRANT, and re2's
# pkg-config flags add it to ac_core anyway): a PCH is only used where such macros match.
add_compile_options(-pthread)
set(AC_WARNING_OPTIONS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-missing-field-initializers)
option(AC_PCH "Use a precompiled header for nlohmann/json and common standard headers" ON)

# The PCH is built by a target of its own with no -D of any kind: GCC refuses a PCH in any
# translation unit that lacks a macro the PCH was built with ("not used because `X' not
# defined"), so building it inside a library with private definitions (AC_SOURCE_DIR,
# VALIJSON_USE_EXCEPTIONS, ...) silently disables it everywhere else.
if(AC_PCH)
  add_library(ac_pch OBJECT ${CMAKE_CURRENT_LIST_DIR}/pch_anchor.cpp)
  target_link_libraries(ac_pch PRIVATE nlohmann_json::nlohmann_json)
  # The same options as every user of the PCH (-Wpedantic changes predefined macros).
  target_compile_options(ac_pch PRIVATE ${AC_WARNING_OPTIONS})
  target_precompile_headers(ac_pch PRIVATE
    <nlohmann/json.hpp> <string> <string_view> <vector> <map> <set> <memory> <optional>
    <functional> <chrono> <mutex> <filesystem>)
endif()

function(ac_set_warnings target)
  target_compile_options(${target} PRIVATE ${AC_WARNING_OPTIONS})
  if(AC_PCH)
    target_precompile_headers(${target} REUSE_FROM ac_pch)
  endif()
endfunction()

# Test executables compile at -O0: their own code is assertions and fixtures, the code under
# test (the libraries) keeps the preset's optimisation. With ASan+UBSan, -O0 compiles a test
# file about 40% faster, the largest share of a clean CI build. GCC refuses a PCH built at
# another -O level (__OPTIMIZE__ differs), so tests have their own, which also holds gtest.
set(AC_TEST_OPTIONS -O0)
if(AC_PCH AND AC_BUILD_TESTS)
  add_library(ac_pch_test OBJECT ${CMAKE_CURRENT_LIST_DIR}/pch_anchor.cpp)
  target_link_libraries(ac_pch_test PRIVATE nlohmann_json::nlohmann_json GTest::gtest GTest::gmock)
  target_compile_options(ac_pch_test PRIVATE ${AC_WARNING_OPTIONS} ${AC_TEST_OPTIONS})
  target_compile_definitions(ac_pch_test PRIVATE GTEST_HAS_PTHREAD=1)
  target_precompile_headers(ac_pch_test PRIVATE
    <nlohmann/json.hpp> <string> <string_view> <vector> <map> <set> <memory> <optional>
    <functional> <chrono> <mutex> <filesystem> <gtest/gtest.h> <gmock/gmock.h>)
endif()

function(ac_set_test_options target)
  target_compile_options(${target} PRIVATE ${AC_WARNING_OPTIONS} ${AC_TEST_OPTIONS})
  if(AC_PCH)
    target_precompile_headers(${target} REUSE_FROM ac_pch_test)
  endif()
endfunction()
