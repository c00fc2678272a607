# Every third-party dependency comes from a Debian 12 package installed by scripts/setup.sh.
find_package(nlohmann_json 3.11 REQUIRED)
find_package(OpenSSL 3 REQUIRED)
find_package(Threads REQUIRED)

# valijson: header-only; setup.sh unpacks Debian's libvalijson-dev without its Qt/Poco dependencies.
find_path(VALIJSON_INCLUDE_DIR valijson/validator.hpp
          PATHS /usr/include $ENV{AGENTCONFORM_DEPS_DIR}/valijson/usr/include
                /opt/agentconform-deps/valijson/usr/include
          NO_DEFAULT_PATH)
if(NOT VALIJSON_INCLUDE_DIR)
  message(FATAL_ERROR "valijson headers not found: run scripts/setup.sh")
endif()
add_library(valijson INTERFACE)
target_include_directories(valijson SYSTEM INTERFACE ${VALIJSON_INCLUDE_DIR})
# Without this valijson reports schema errors (a bad $ref, a malformed peer schema) with abort().
target_compile_definitions(valijson INTERFACE VALIJSON_USE_EXCEPTIONS=1)

if(AC_BUILD_NET)
  find_package(Boost 1.81.0 EXACT REQUIRED CONFIG COMPONENTS url)
  find_package(CLI11 REQUIRED)
endif()
if(AC_BUILD_TESTS)
  find_package(GTest REQUIRED)
  find_package(rapidcheck REQUIRED)
endif()
if(AC_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
