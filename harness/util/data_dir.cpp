#include "harness/util/data_dir.hpp"

#include <unistd.h>

#include <cstdlib>
#include <system_error>

#ifndef AC_SOURCE_DIR
#error "AC_SOURCE_DIR must be defined by the build"
#endif

namespace ac {
namespace {

// The directory of the running executable (Linux /proc/self/exe).
std::filesystem::path executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

}  // namespace

std::filesystem::path data_dir() {
  if (const char* env = std::getenv("AGENTCONFORM_DATA_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  // A checkout: the source tree the binary was built from.
  std::error_code ec;
  if (std::filesystem::is_directory(std::filesystem::path(AC_SOURCE_DIR) / "schemas", ec)) return AC_SOURCE_DIR;
  // A relocated binary (e.g. a ClusterFuzzLite $OUT): data shipped next to it.
  const auto shipped = executable_dir() / "agentconform-data";
  if (std::filesystem::is_directory(shipped / "schemas", ec)) return shipped;
  return AC_SOURCE_DIR;
}

}  // namespace ac
