#include "harness/engine/channels.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "harness/json/strict_reader.hpp"

extern char** environ;

namespace ac::engine {
namespace {

std::string hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes.substr(0, 4096)) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  if (bytes.size() > 4096) out += "...";
  return out;
}

class WsChannel final : public Channel {
 public:
  WsChannel(std::shared_ptr<net::WsClient> c, Transcript& t, std::string name) : client_(std::move(c)), t_(t), name_(std::move(name)) {}
  ~WsChannel() override { client_->abort(); }
  std::string transport() const override { return "ws"; }
  void send_text(std::string_view text) override {
    t_.add(name_, "out", "text", std::string(text));
    client_->send_text(text);
  }
  bool send_binary(std::string_view bytes) override {
    t_.add(name_, "out", "binary", "hex:" + hex(bytes));
    client_->send_binary(bytes);
    return true;
  }
  bool send_frame(const ws::FrameSpec& f) override {
    t_.add(name_, "out", "frame",
           "opcode=" + std::to_string(f.opcode) + " fin=" + (f.fin ? "1" : "0") + " rsv=" + std::to_string(f.rsv) +
               " masked=" + (f.masked ? "1" : "0") + " payload=" + f.payload);
    client_->send_frame(f);
    return true;
  }
  std::optional<Incoming> next(std::chrono::milliseconds timeout) override {
    // Pongs answer our own pings and pings are answered by the client: neither is a message.
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      auto e = client_->next(left.count() > 0 ? left : std::chrono::milliseconds(0));
      if (!e) return std::nullopt;
      if (e->kind == ws::Event::Kind::close && e->transport_closed && reported_close_) return to_incoming(*e);
      if (e->kind == ws::Event::Kind::ping || e->kind == ws::Event::Kind::pong) {
        t_.add_control(name_, "in", ws::kind_name(e->kind), e->data, e->repeats);
        continue;
      }
      if (e->kind == ws::Event::Kind::close) {
        if (reported_close_) continue;  // the TCP end after a close frame
        reported_close_ = true;
        t_.add(name_, "in", "close", e->transport_closed ? "connection dropped without a close frame" : e->close_reason,
               e->close_code);
      } else if (e->kind == ws::Event::Kind::binary) {
        t_.add(name_, "in", "binary", "hex:" + hex(e->data));
      } else {
        t_.add(name_, "in", ws::kind_name(e->kind), e->data);
        if (e->invalid_utf8) t_.add(name_, "note", "violation", "text frame is not valid UTF-8 (RFC 6455 §5.6)");
      }
      return to_incoming(*e);
    }
  }
  void close(std::uint16_t code, std::string_view reason) override {
    t_.add(name_, "out", "close", std::string(reason), code);
    client_->close(code, reason);
  }
  void abort() override {
    t_.add(name_, "out", "abort", "TCP connection dropped by the harness");
    client_->abort();
  }
  bool is_open() const override { return client_->transport_open(); }

 private:
  static Incoming to_incoming(const net::WsEvent& e) {
    return Incoming{e.kind, e.data, e.close_code, e.close_reason, e.invalid_utf8, e.transport_closed};
  }
  std::shared_ptr<net::WsClient> client_;
  Transcript& t_;
  std::string name_;
  bool reported_close_ = false;
};

// An exec: target: one JSON message per line on the process's stdin/stdout. What it writes to
// stderr goes into the transcript (bounded), never to our console. The process runs in its own
// process group, which is killed whole when the channel ends.
class ExecChannel final : public Channel {
 public:
  ExecChannel(pid_t pid, int in_fd, int out_fd, int err_fd, Transcript& t, std::string name, std::size_t max_line)
      : pid_(pid), in_fd_(in_fd), out_fd_(out_fd), err_fd_(err_fd), t_(t), name_(std::move(name)), max_line_(max_line) {}
  ~ExecChannel() override { terminate(); }
  std::string transport() const override { return "exec"; }

  void send_text(std::string_view text) override {
    t_.add(name_, "out", "text", std::string(text));
    std::string line(text);
    line += '\n';
    std::size_t done = 0;
    while (done < line.size() && in_fd_ >= 0) {
      const ssize_t n = ::write(in_fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // the process is gone; the next read reports it
      done += static_cast<std::size_t>(n);
    }
  }

  std::optional<Incoming> next(std::chrono::milliseconds timeout) override {
    if (closed_) return closed_;  // an adapter's close stays reported
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        if (auto close = close_line(line)) {
          t_.add(name_, "in", "close", close->close_reason, close->close_code);
          closed_ = std::move(close);
          return closed_;
        }
        t_.add(name_, "in", "text", line);
        return Incoming{ws::Event::Kind::text, std::move(line)};
      }
      if (eof_) {
        if (reported_eof_) return Incoming{ws::Event::Kind::close, "", 1006, "", false, true};
        reported_eof_ = true;
        int status = 0;
        ::waitpid(pid_, &status, WNOHANG);
        t_.add(name_, "in", "close", "process ended (stdout closed)", 1000);
        return Incoming{ws::Event::Kind::close, "", 1000, "process ended", false, true};
      }
      if (buffer_.size() > max_line_) {
        t_.add(name_, "in", "violation", "line longer than " + std::to_string(max_line_) + " bytes");
        buffer_.clear();
        eof_ = true;
        terminate();
        continue;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
      const int r = ::poll(p, err_fd_ >= 0 ? 2 : 1, static_cast<int>(left.count()));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return std::nullopt;
      if (err_fd_ >= 0 && (p[1].revents & (POLLIN | POLLHUP)) != 0) read_stderr();
      if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buf[65536];
      const ssize_t n = ::read(out_fd_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        eof_ = true;
        continue;
      }
      buffer_.append(buf, static_cast<std::size_t>(n));
    }
  }

  void close(std::uint16_t code, std::string_view) override {
    t_.add(name_, "out", "close", "stdin closed", code);
    if (in_fd_ >= 0) ::close(in_fd_);
    in_fd_ = -1;
  }
  void abort() override {
    t_.add(name_, "out", "abort", "process killed");
    terminate();
  }
  bool is_open() const override { return !eof_; }

 private:
  // An adapter bridging a WebSocket reports how the target closed it with one line
  // {"agentconform": {"close": 1008, "reason": "..."}} (docs/targets.md, exec: targets).
  static std::optional<Incoming> close_line(const std::string& line) {
    if (line.rfind("{\"agentconform\"", 0) != 0) return std::nullopt;
    auto j = json::parse_strict(line);
    if (!j || !j->is_object() || j->size() != 1) return std::nullopt;
    const nlohmann::json& c = (*j)["agentconform"];
    if (!c.is_object() || !c.contains("close") || !c["close"].is_number_integer()) return std::nullopt;
    const auto code = c["close"].get<std::int64_t>();
    if (code < 1000 || code > 4999) return std::nullopt;
    return Incoming{ws::Event::Kind::close, "", static_cast<std::uint16_t>(code),
                    c.value("reason", nlohmann::json("")).is_string() ? c.value("reason", std::string()) : std::string(), false, true};
  }

  // Stderr in lines, into the transcript; past kMaxStderr bytes only a note that more came.
  void read_stderr() {
    char buf[8192];
    const ssize_t n = ::read(err_fd_, buf, sizeof buf);
    if (n <= 0) {
      if (n == 0 || errno != EINTR) {
        ::close(err_fd_);
        err_fd_ = -1;
        flush_stderr();
      }
      return;
    }
    stderr_seen_ += static_cast<std::size_t>(n);
    if (stderr_seen_ > kMaxStderr) {
      if (!stderr_cut_) t_.add(name_, "in", "stderr", "(more than " + std::to_string(kMaxStderr) + " bytes on stderr; the rest is not kept)");
      stderr_cut_ = true;
      return;
    }
    err_buffer_.append(buf, static_cast<std::size_t>(n));
    for (auto nl = err_buffer_.find('\n'); nl != std::string::npos; nl = err_buffer_.find('\n')) {
      if (nl > 0) t_.add(name_, "in", "stderr", err_buffer_.substr(0, nl));
      err_buffer_.erase(0, nl + 1);
    }
  }
  void flush_stderr() {
    if (!err_buffer_.empty() && !stderr_cut_) t_.add(name_, "in", "stderr", err_buffer_);
    err_buffer_.clear();
  }

  void terminate() {
    if (in_fd_ >= 0) ::close(in_fd_);
    in_fd_ = -1;
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);  // the whole group: an adapter's own children die with it
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (err_fd_ >= 0) {
      // What the process said on its way out.
      pollfd p{err_fd_, POLLIN, 0};
      while (err_fd_ >= 0 && ::poll(&p, 1, 0) > 0) read_stderr();
      if (err_fd_ >= 0) ::close(err_fd_);
      err_fd_ = -1;
    }
    flush_stderr();
    if (out_fd_ >= 0) ::close(out_fd_);
    out_fd_ = -1;
    eof_ = true;
  }

  static constexpr std::size_t kMaxStderr = 64 * 1024;

  pid_t pid_;
  int in_fd_, out_fd_, err_fd_;
  Transcript& t_;
  std::string name_;
  std::size_t max_line_;
  std::string buffer_, err_buffer_;
  std::optional<Incoming> closed_;
  std::size_t stderr_seen_ = 0;
  bool stderr_cut_ = false;
  bool eof_ = false, reported_eof_ = false;
};

}  // namespace

std::shared_ptr<Channel> make_ws_channel(std::shared_ptr<net::WsClient> client, Transcript& transcript, std::string name) {
  return std::make_shared<WsChannel>(std::move(client), transcript, std::move(name));
}

Expected<std::shared_ptr<Channel>, std::string> make_exec_channel(const std::string& command, Transcript& transcript,
                                                                  std::string name, std::size_t max_line_bytes) {
  int to_child[2], from_child[2], err_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0) return unexpected(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(from_child, O_CLOEXEC) != 0 || ::pipe2(err_child, O_CLOEXEC) != 0) {
    const std::string why = std::strerror(errno);
    ::close(to_child[0]);
    ::close(to_child[1]);
    return unexpected("pipe: " + why);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_child[1], STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, const_cast<char* const*>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(to_child[0]);
  ::close(from_child[1]);
  ::close(err_child[1]);
  if (rc != 0) {
    ::close(to_child[1]);
    ::close(from_child[0]);
    ::close(err_child[0]);
    return unexpected("cannot start " + command + ": " + std::strerror(rc));
  }
  ::signal(SIGPIPE, SIG_IGN);  // a dead child must not kill the harness on write
  transcript.add(name, "note", "connect", "started: " + command);
  return std::shared_ptr<Channel>(
      std::make_shared<ExecChannel>(pid, to_child[1], from_child[0], err_child[0], transcript, std::move(name), max_line_bytes));
}

}  // namespace ac::engine
