#include "harness/util/data_dir.hpp"

#include <cstdlib>

#ifndef AC_SOURCE_DIR
#error "AC_SOURCE_DIR must be defined by the build"
#endif

namespace ac {

std::filesystem::path data_dir() {
  if (const char* env = std::getenv("AGENTCONFORM_DATA_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return AC_SOURCE_DIR;
}

}  // namespace ac
