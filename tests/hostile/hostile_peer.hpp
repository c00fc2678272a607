// Test support: a hostile endpoint on 127.0.0.1 written with plain POSIX sockets, so it can do
// what no well-behaved server library lets it do: say nothing, answer one byte at a time, answer
// garbage, reset the connection, send a wrong 101, redirect to itself, flood pings or data, declare
// a frame of 2^62 bytes, stop in the middle of a frame, send invalid UTF-8, deeply nested JSON or
// a close frame with a forbidden code.
//
// HTTP requests that are not WebSocket upgrades get a plausible answer in the WebSocket modes
// (201 with a registration body for POST, 200 {} otherwise), so a target's preflight and
// registrations pass and the hostile part happens on the WebSocket, where it hurts.
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ac::testing {

enum class Hostility {
  silence,          // accept, then say nothing
  byte_at_a_time,   // a valid answer, one byte every 200 ms
  garbage_http,     // bytes that are not HTTP, then close
  reset,            // close with RST right after reading the request
  bad_101,          // 101 with a Sec-WebSocket-Accept that does not match the key
  redirect_loop,    // 302 to the same URL, on every request
  ping_flood,       // empty pings (and a message every 4096), as fast as the harness reads
  data_flood,       // 64 KiB text messages, as fast as the harness reads
  huge_frame,       // a frame header declaring 2^62 bytes, then a trickle of payload
  half_frame,       // a frame header declaring 1000 bytes, 10 of them, then silence
  invalid_utf8,     // text frames that are not UTF-8
  deep_json,       // a text frame of 100000 nested arrays
  bad_close,        // a close frame with code 999 and a reason that is not UTF-8, then FIN
};

inline const char* hostility_name(Hostility h) {
  switch (h) {
    case Hostility::silence: return "silence";
    case Hostility::byte_at_a_time: return "byte_at_a_time";
    case Hostility::garbage_http: return "garbage_http";
    case Hostility::reset: return "reset";
    case Hostility::bad_101: return "bad_101";
    case Hostility::redirect_loop: return "redirect_loop";
    case Hostility::ping_flood: return "ping_flood";
    case Hostility::data_flood: return "data_flood";
    case Hostility::huge_frame: return "huge_frame";
    case Hostility::half_frame: return "half_frame";
    case Hostility::invalid_utf8: return "invalid_utf8";
    case Hostility::deep_json: return "deep_json";
    case Hostility::bad_close: return "bad_close";
  }
  return "?";
}

class HostilePeer {
 public:
  explicit HostilePeer(Hostility mode) : mode_(mode) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 64) != 0) {
      throw std::runtime_error("hostile peer: cannot listen on 127.0.0.1");
    }
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~HostilePeer() {
    stop_ = true;
    acceptor_.join();
    std::vector<std::thread> workers;
    {
      std::lock_guard lock(mutex_);
      workers.swap(workers_);
    }
    for (auto& t : workers) t.join();
    ::close(listen_fd_);
  }
  HostilePeer(const HostilePeer&) = delete;
  HostilePeer& operator=(const HostilePeer&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::uint64_t connections() const { return connections_.load(); }

 private:
  void accept_loop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) continue;
      ++connections_;
      std::lock_guard lock(mutex_);
      workers_.emplace_back([this, fd] {
        serve(fd);
        ::close(fd);
      });
    }
  }

  // Waits until fd is ready for `events` or the peer stops; false when it should give up.
  bool wait(int fd, short events) {
    while (!stop_) {
      pollfd p{fd, events, 0};
      const int r = ::poll(&p, 1, 50);
      if (r > 0) return (p.revents & (POLLERR | POLLNVAL)) == 0 || (p.revents & events) != 0;
    }
    return false;
  }

  bool send_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
      if (!wait(fd, POLLOUT)) return false;
      const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  // The request head and as much of the body as Content-Length says (bounded).
  bool read_request(int fd, std::string& head) {
    std::string buf;
    char chunk[4096];
    while (buf.find("\r\n\r\n") == std::string::npos) {
      if (buf.size() > 64 * 1024 || !wait(fd, POLLIN)) return false;
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) return false;
      buf.append(chunk, static_cast<std::size_t>(n));
    }
    const std::size_t end = buf.find("\r\n\r\n") + 4;
    head = buf.substr(0, end);
    std::string lower = head;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::size_t body = 0;
    if (const auto at = lower.find("content-length:"); at != std::string::npos) body = std::stoul(lower.substr(at + 15));
    std::size_t have = buf.size() - end;
    while (have < body && body < (1u << 20)) {
      if (!wait(fd, POLLIN)) return false;
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) break;
      have += static_cast<std::size_t>(n);
    }
    return true;
  }

  static std::string header(const std::string& head, const std::string& name) {
    std::string lower = head;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto at = lower.find("\r\n" + name + ":");
    if (at == std::string::npos) return "";
    std::size_t from = at + 3 + name.size();
    while (from < head.size() && head[from] == ' ') ++from;
    return head.substr(from, head.find("\r\n", from) - from);
  }

  static std::string accept_key(const std::string& key) {
    const std::string input = key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(input.data(), input.size(), digest, &len, EVP_sha1(), nullptr);
    std::string out(4 * ((len + 2) / 3), '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), digest, static_cast<int>(len));
    out.resize(static_cast<std::size_t>(n));
    return out;
  }

  // An unmasked server frame; `declared` overrides the length field.
  static std::string frame(std::uint8_t opcode, std::string_view payload, std::uint64_t declared = UINT64_MAX) {
    const std::uint64_t len = declared == UINT64_MAX ? payload.size() : declared;
    std::string out;
    out += static_cast<char>(0x80 | opcode);
    if (len < 126) {
      out += static_cast<char>(len);
    } else if (len < 65536) {
      out += static_cast<char>(126);
      out += static_cast<char>(len >> 8);
      out += static_cast<char>(len & 0xff);
    } else {
      out += static_cast<char>(127);
      for (int i = 7; i >= 0; --i) out += static_cast<char>((len >> (8 * i)) & 0xff);
    }
    out.append(payload);
    return out;
  }

  void hold(int fd) {
    char sink[4096];
    while (wait(fd, POLLIN)) {
      const ssize_t n = ::recv(fd, sink, sizeof sink, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return;
    }
  }

  void serve(int fd) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (mode_ == Hostility::silence) return hold(fd);
    std::string head;
    if (!read_request(fd, head)) return;
    const std::string target = head.substr(head.find(' ') + 1, head.find(' ', head.find(' ') + 1) - head.find(' ') - 1);
    const bool upgrade = !header(head, "sec-websocket-key").empty();
    const bool post = head.rfind("POST", 0) == 0;
    switch (mode_) {
      case Hostility::silence: return;
      case Hostility::byte_at_a_time: {
        const std::string answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
        for (char c : answer) {
          if (!send_all(fd, std::string_view(&c, 1))) return;
          for (int i = 0; i < 4 && !stop_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return hold(fd);
      }
      case Hostility::garbage_http:
      {
        static const char garbage[] = "\x16\x03\x01garbage \x00\xff\xfe not HTTP at all\r\n\r\n";
        send_all(fd, std::string_view(garbage, sizeof garbage - 1));
      }
        return;
      case Hostility::reset: {
        linger l{1, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
        return;
      }
      case Hostility::redirect_loop:
        send_all(fd, "HTTP/1.1 302 Found\r\nLocation: " + target + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return hold(fd);
      default: break;
    }
    if (!upgrade) {
      const std::string body = post ? R"({"auth_token":"hostile-token","agent_id":"hostile-agent","lobby_id":"hostile","expires_at":"2099-01-01T00:00:00Z"})"
                                    : "{}";
      send_all(fd, std::string("HTTP/1.1 ") + (post ? "201 Created" : "200 OK") +
                       "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) +
                       "\r\n\r\n" + body);
      return hold(fd);
    }
    const std::string key = header(head, "sec-websocket-key");
    const std::string accept = mode_ == Hostility::bad_101 ? std::string("d3JvbmcgYWNjZXB0IGtleQ==") : accept_key(key);
    std::string answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n";
    if (const auto proto = header(head, "sec-websocket-protocol"); !proto.empty()) {
      answer += "Sec-WebSocket-Protocol: " + proto.substr(0, proto.find(',')) + "\r\n";
    }
    if (!send_all(fd, answer + "\r\n")) return;
    switch (mode_) {
      case Hostility::bad_101: return hold(fd);
      case Hostility::ping_flood: {
        // Each burst ends with one message, so a fuzzer's liveness probe passes and its
        // sessions run into the flood.
        std::string burst;
        for (int i = 0; i < 4096; ++i) burst += frame(0x9, "");
        burst += frame(0x1, R"({"type":"message","from":"hostile","payload":{"text":"ping flood"}})");
        while (send_all(fd, burst)) {
        }
        return;
      }
      case Hostility::data_flood: {
        // Messages a fuzzer's probe accepts (see ping_flood), 64 KiB each.
        const std::string burst =
            frame(0x1, R"({"type":"message","from":"hostile","payload":{"text":")" + std::string(64 * 1024 - 70, 'd') + "\"}}");
        while (send_all(fd, burst)) {
        }
        return;
      }
      case Hostility::huge_frame: {
        if (!send_all(fd, frame(0x2, "", std::uint64_t{1} << 62))) return;
        const std::string trickle(64 * 1024, 'x');
        while (send_all(fd, trickle)) {
        }
        return;
      }
      case Hostility::half_frame:
        send_all(fd, frame(0x1, "0123456789", 1000));
        return hold(fd);
      case Hostility::invalid_utf8:
        for (int i = 0; i < 20; ++i) {
          if (!send_all(fd, frame(0x1, "{\"type\":\"\xC3\x28\xFF\xFE\"}"))) return;
        }
        return hold(fd);
      case Hostility::deep_json:
        for (int i = 0; i < 5; ++i) {
          if (!send_all(fd, frame(0x1, std::string(100000, '[') + std::string(100000, ']')))) return;
        }
        return hold(fd);
      case Hostility::bad_close:
        send_all(fd, frame(0x8, std::string("\x03\xE7\xC3\x28 bad reason", 14)));
        ::shutdown(fd, SHUT_WR);
        return hold(fd);
      default: return;
    }
  }

  Hostility mode_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> connections_{0};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> workers_;
};

}  // namespace ac::testing
