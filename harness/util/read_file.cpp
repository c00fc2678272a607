// Bounded reads (see read_file.hpp): plain read(2) in 64 KiB blocks, so a regular file, a pipe,
// a FIFO and a device are handled alike and nothing is buffered past the limit.
#include "harness/util/read_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ac {

Expected<std::string, ReadError> read_bounded(const std::string& path, std::size_t max_bytes, const std::string& what) {
  const bool use_stdin = path == "-";
  const std::string name = use_stdin ? std::string("standard input") : path;
  if (path.empty()) return unexpected(ReadError{ReadError::Kind::cannot_open, "no file given (an empty file name)"});
  const int fd = use_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return unexpected(ReadError{ReadError::Kind::cannot_open, "cannot open " + name + ": " + std::strerror(errno)});
  const auto fail = [&](ReadError::Kind kind, std::string message) {
    if (!use_stdin) ::close(fd);
    return unexpected(ReadError{kind, std::move(message)});
  };
  if (!use_stdin) {
    // Opened without blocking (a FIFO with no writer would hang open()); reads block again.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) return fail(ReadError::Kind::cannot_read, "cannot read " + name + ": it is a directory");
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes) {
      return fail(ReadError::Kind::too_large, name + " is larger than " + std::to_string(max_bytes) + " bytes" +
                                                  (what.empty() ? "" : " (the limit for " + what + ")"));
    }
  }
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(ReadError::Kind::cannot_read, "cannot read " + name + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      return fail(ReadError::Kind::too_large, name + " is larger than " + std::to_string(max_bytes) + " bytes" +
                                                  (what.empty() ? "" : " (the limit for " + what + ")"));
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  if (!use_stdin) ::close(fd);
  return out;
}

Expected<std::string, std::string> read_file_bounded(const std::string& path, std::size_t max_bytes, const std::string& what) {
  auto r = read_bounded(path, max_bytes, what);
  if (!r) return unexpected(std::move(r.error().message));
  return std::move(*r);
}

}  // namespace ac
