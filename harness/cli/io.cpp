#include "harness/cli/io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdio>
#include <iostream>

namespace ac::cli {

Expected<std::string, ReadError> read_input(const std::string& path, std::size_t max_bytes, const std::string& what) {
  return read_bounded(path.empty() ? std::string("-") : path, max_bytes, what);
}

int report_read_error(const std::string& command, const ReadError& error) {
  std::cerr << command << ": " << error.message << "\n";
  return error.exit_code();
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
