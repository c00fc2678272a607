// The lookup order of the data directory (see data_dir.hpp): an override, then locations
// relative to the executable (so a package or tarball works wherever it is unpacked), and the
// build's source tree last, so an installed binary never reads a stale checkout.
#include "harness/util/data_dir.hpp"

#include <unistd.h>

#include <cstdlib>
#include <system_error>
#include <utility>

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

bool holds_data(const std::filesystem::path& dir) {
  std::error_code ec;
  return !dir.empty() && std::filesystem::is_directory(dir / "schemas", ec);
}

std::pair<std::filesystem::path, const char*> locate() {
  if (const char* env = std::getenv("AGENTCONFORM_DATA_DIR"); env != nullptr && *env != '\0') {
    return {env, "AGENTCONFORM_DATA_DIR"};
  }
  const auto exe_dir = executable_dir();
  // lexically_normal: "/usr/bin/../share/agentconform" is shown as "/usr/share/agentconform".
  const auto installed = exe_dir.empty() ? exe_dir : (exe_dir / ".." / "share" / "agentconform").lexically_normal();
  if (holds_data(installed)) return {installed, "installed"};
  if (!exe_dir.empty() && holds_data(exe_dir / "agentconform-data")) {
    return {exe_dir / "agentconform-data", "shipped next to the executable"};
  }
  const std::filesystem::path source(AC_SOURCE_DIR);
  if (holds_data(source)) return {source, "source tree"};
  // Nothing found: name the place an installed binary expects, so "cannot open .../schemas"
  // points at the broken installation rather than at the machine the binary was built on.
  return {installed.empty() ? source : installed, "not found"};
}

}  // namespace

std::filesystem::path data_dir() { return locate().first; }

std::string data_dir_origin() { return locate().second; }

}  // namespace ac
