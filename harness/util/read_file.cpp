#include "harness/util/read_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ac {

Expected<std::string, std::string> read_file_bounded(const std::string& path, std::size_t max_bytes, const std::string& what) {
  const bool use_stdin = path == "-";
  const std::string name = use_stdin ? std::string("standard input") : path;
  const int fd = use_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return unexpected("cannot open " + name + ": " + std::strerror(errno));
  std::string out;
  char buf[65536];
  std::string error;
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = "cannot read " + name + ": " + std::strerror(errno);
      break;
    }
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      error = name + " is larger than " + std::to_string(max_bytes) + " bytes" + (what.empty() ? "" : " (the limit for " + what + ")");
      break;
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  if (!use_stdin) ::close(fd);
  if (!error.empty()) return unexpected(error);
  return out;
}

}  // namespace ac
