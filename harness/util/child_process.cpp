// See child_process.hpp: why a client under test runs in its own session, with a private
// $TMPDIR and its output in a bounded buffer.
#include "harness/util/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

extern char** environ;

namespace ac {

void HeadTailBuffer::append(std::string_view bytes) {
  total_ += bytes.size();
  if (head_.size() < keep_) {
    const std::size_t n = std::min(keep_ - head_.size(), bytes.size());
    head_.append(bytes.substr(0, n));
    bytes.remove_prefix(n);
  }
  if (keep_ == 0) return;
  if (bytes.size() > keep_) bytes.remove_prefix(bytes.size() - keep_);
  for (char c : bytes) {
    if (tail_.size() < keep_) {
      tail_.push_back(c);
    } else {
      tail_[tail_pos_] = c;
      tail_pos_ = (tail_pos_ + 1) % keep_;
    }
  }
}

std::string HeadTailBuffer::text() const {
  const std::string tail = tail_.size() < keep_ ? tail_ : tail_.substr(tail_pos_) + tail_.substr(0, tail_pos_);
  const std::uint64_t omitted = total_ - head_.size() - tail.size();
  if (omitted == 0) return head_ + tail;
  return head_ + "\n... " + std::to_string(omitted) + " bytes omitted ...\n" + tail;
}

namespace {

// The process groups of running children, for kill_all_children() (a signal handler).
constexpr int kSlots = 64;
std::atomic<pid_t> g_groups[kSlots];
static_assert(std::atomic<pid_t>::is_always_lock_free, "a signal handler reads these");

int register_group(pid_t pgid) {
  for (int i = 0; i < kSlots; ++i) {
    pid_t empty = 0;
    if (g_groups[i].compare_exchange_strong(empty, pgid)) return i;
  }
  return -1;
}

std::filesystem::path make_temp_dir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/agentconform-client-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

}  // namespace

void ChildProcess::kill_all_children() {
  for (auto& g : g_groups) {
    const pid_t pgid = g.load();
    if (pgid > 0) ::kill(-pgid, SIGKILL);
  }
}

Expected<std::unique_ptr<ChildProcess>, std::string> ChildProcess::start(const ChildOptions& options) {
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->options_ = options;
  child->buffer_ = HeadTailBuffer(options.keep_bytes);
  child->temp_dir_ = make_temp_dir();
  if (child->temp_dir_.empty()) return unexpected("cannot create a temporary directory for the client: " + std::string(std::strerror(errno)));

  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv(*e);
    const auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const char* name : {"TMPDIR", "TMP", "TEMP"}) env[name] = child->temp_dir_.string();
  for (const auto& [k, v] : options.env) env[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    std::error_code ignored;
    std::filesystem::remove_all(child->temp_dir_, ignored);
    return unexpected("cannot create a pipe for the client's output: " + std::string(std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A session of its own: one process group for the client and all it starts, no terminal.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  std::string sh = "/bin/sh", dash_c = "-c", line = options.command;
  char* argv[] = {sh.data(), dash_c.data(), line.data(), nullptr};
  const int rc = ::posix_spawn(&child->pid_, sh.c_str(), &actions, &attr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    child->pid_ = -1;
    std::error_code ignored;
    std::filesystem::remove_all(child->temp_dir_, ignored);
    return unexpected("cannot start the client command (" + std::string(std::strerror(rc)) + "): " + options.command);
  }
  child->slot_ = register_group(child->pid_);
  child->out_fd_ = fds[0];
  child->reader_ = std::thread([c = child.get()] { c->read_output(); });
  return child;
}

void ChildProcess::read_output() {
  char buf[16384];
  for (;;) {
    pollfd p{out_fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, 100);
    if (r < 0 && errno != EINTR) return;
    if (r <= 0) {
      if (stop_reading_.load()) return;  // a straggler outside the group still holds the pipe
      continue;
    }
    const ssize_t n = ::read(out_fd_, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return;  // every writer is gone
    std::lock_guard lock(mutex_);
    buffer_.append(std::string_view(buf, static_cast<std::size_t>(n)));
  }
}

std::optional<std::string> ChildProcess::ended() {
  if (status_) return status_;
  if (pid_ <= 0) return std::string("not running");
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) != pid_) return std::nullopt;
  status_ = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                : "exited with status " + std::to_string(WEXITSTATUS(status));
  return status_;
}

void ChildProcess::stop() {
  if (pid_ > 0) {
    // The whole group, even when the shell itself has already exited (its children may not).
    ::kill(-pid_, SIGTERM);
    const auto until = std::chrono::steady_clock::now() + options_.grace;
    while (!ended() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ::kill(-pid_, SIGKILL);
    if (!ended()) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
      status_ = "killed by signal " + std::to_string(SIGKILL);
    }
    if (slot_ >= 0) g_groups[slot_].store(0);
    slot_ = -1;
    pid_ = -1;
  }
  if (reader_.joinable()) {
    stop_reading_ = true;
    reader_.join();
  }
  if (out_fd_ >= 0) {
    ::close(out_fd_);
    out_fd_ = -1;
  }
  if (!temp_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(temp_dir_, ignored);
    temp_dir_.clear();
  }
}

ChildProcess::~ChildProcess() { stop(); }

std::string ChildProcess::output() const {
  std::lock_guard lock(mutex_);
  return buffer_.text();
}

std::uint64_t ChildProcess::output_bytes() const {
  std::lock_guard lock(mutex_);
  return buffer_.total();
}

}  // namespace ac
