#include "harness/cli/io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdio>

namespace ac::cli {

Expected<std::string, std::string> read_input(const std::string& path, std::size_t max_bytes) {
  const bool use_stdin = path.empty() || path == "-";
  int fd = use_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return unexpected("cannot open " + path + ": " + std::strerror(errno));
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string err = std::strerror(errno);
      if (!use_stdin) ::close(fd);
      return unexpected("cannot read " + (use_stdin ? std::string("standard input") : path) + ": " + err);
    }
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      if (!use_stdin) ::close(fd);
      return unexpected("input larger than " + std::to_string(max_bytes) + " bytes");
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  if (!use_stdin) ::close(fd);
  return out;
}

Expected<bool, std::string> write_file(const std::string& path, const std::string& bytes, unsigned mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return unexpected("cannot create " + path + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string err = std::strerror(errno);
      ::close(fd);
      return unexpected("cannot write " + path + ": " + err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) return unexpected("cannot write " + path + ": " + std::strerror(errno));
  return true;
}

}  // namespace ac::cli
