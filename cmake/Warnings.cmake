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
