#include "bench/support/raw_ws.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace ac::bench {

std::string masked_text_frame(std::string_view payload) {
  std::string f;
  f.reserve(payload.size() + 14);
  f.push_back(static_cast<char>(0x81));  // FIN + text
  const std::size_t n = payload.size();
  if (n < 126) {
    f.push_back(static_cast<char>(0x80 | n));
  } else if (n <= 0xFFFF) {
    f.push_back(static_cast<char>(0x80 | 126));
    f.push_back(static_cast<char>(n >> 8));
    f.push_back(static_cast<char>(n & 0xFF));
  } else {
    f.push_back(static_cast<char>(0x80 | 127));
    for (int i = 7; i >= 0; --i) f.push_back(static_cast<char>((static_cast<std::uint64_t>(n) >> (8 * i)) & 0xFF));
  }
  f.append(4, '\0');  // masking key 0: payload bytes stay as they are
  f.append(payload);
  return f;
}

RawWs::RawWs(std::uint16_t port, const std::string& path_and_query) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    throw std::runtime_error("connect: " + why);
  }
  write_all("GET " + path_and_query +
            " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  while (std::string_view(buffer_.data(), end_).find("\r\n\r\n") == std::string_view::npos) {
    if (!fill(1024)) throw std::runtime_error("handshake: connection closed");
  }
  const std::string_view head(buffer_.data(), end_);
  if (!head.starts_with("HTTP/1.1 101")) throw std::runtime_error("handshake refused: " + std::string(head.substr(0, 200)));
  start_ = head.find("\r\n\r\n") + 4;
}

void RawWs::release_buffer() {
  buffer_.erase(0, start_);
  end_ -= start_;
  start_ = 0;
  buffer_.resize(end_);
  buffer_.shrink_to_fit();
}

RawWs::~RawWs() {
  if (fd_ >= 0) ::close(fd_);
}

void RawWs::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("send: ") + std::strerror(errno));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

bool RawWs::fill(std::size_t chunk) {
  if (start_ > 0 && start_ == end_) {
    start_ = end_ = 0;
  } else if (start_ > (1u << 20)) {
    buffer_.erase(0, start_);
    end_ -= start_;
    start_ = 0;
  }
  // buffer_ holds [0, end_) of received bytes; its size is only ever grown, so the bytes a
  // recv() is about to overwrite are not zero-filled first (a 256 KiB memset per read would
  // make the load generator, not the lobby, the bottleneck).
  if (buffer_.size() < end_ + chunk) buffer_.resize(end_ + chunk);
  ssize_t n;
  do {
    n = ::recv(fd_, buffer_.data() + end_, chunk, 0);
  } while (n < 0 && errno == EINTR);
  if (n > 0) end_ += static_cast<std::size_t>(n);
  return n > 0;
}

bool RawWs::next_frame(std::string_view& text_payload) {
  for (;;) {
    const std::size_t avail = end_ - start_;
    if (avail < 2) return false;
    const auto* p = reinterpret_cast<const unsigned char*>(buffer_.data() + start_);
    const unsigned opcode = p[0] & 0x0F;
    std::uint64_t len = p[1] & 0x7F;
    std::size_t header = 2;
    if (len == 126) {
      if (avail < 4) return false;
      len = (std::uint64_t{p[2]} << 8) | p[3];
      header = 4;
    } else if (len == 127) {
      if (avail < 10) return false;
      len = 0;
      for (int i = 0; i < 8; ++i) len = (len << 8) | p[2 + i];
      header = 10;
    }
    if (avail < header + len) return false;
    const std::string_view payload(buffer_.data() + start_ + header, len);
    start_ += header + len;
    if (opcode == 0x1) {
      text_payload = payload;
      return true;
    }
    // Control frames (ping, close) and anything else are skipped: a benchmark run is short.
  }
}

std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

std::size_t raise_fd_limit() {
  rlimit r{};
  ::getrlimit(RLIMIT_NOFILE, &r);
  r.rlim_cur = r.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &r);
  ::getrlimit(RLIMIT_NOFILE, &r);
  return r.rlim_cur;
}

}  // namespace ac::bench
