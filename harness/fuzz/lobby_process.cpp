// The reference lobby as a child process (see lobby_process.hpp).
#include "harness/fuzz/lobby_process.hpp"

#include <signal.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace ac::fuzz {
namespace {

using namespace std::chrono_literals;

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = ::strsignal(sig);
    return "killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : std::string());
  }
  return "ended (status " + std::to_string(status) + ")";
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

nlohmann::json config_document(const ref::LobbyConfig& c) {
  nlohmann::json doc{{"lobby_id", c.lobby_id},
                     {"api_keys", c.api_keys},
                     {"admin_token", c.admin_token},
                     {"timeout_scale", c.timeout_scale},
                     {"threads", c.threads},
                     {"max_connections", c.max_connections},
                     {"max_message_bytes", c.max_message_bytes},
                     {"max_send_queue_bytes", c.max_send_queue_bytes},
                     {"handshake_timeout_ms", c.handshake_timeout.count()},
                     {"ws_idle_timeout_ms", c.ws_idle_timeout.count()},
                     {"http_idle_timeout_ms", c.http_idle_timeout.count()},
                     {"faults", c.faults},
                     {"protocols", c.protocols}};
  return doc;
}

Expected<std::unique_ptr<LobbyProcess>, std::string> LobbyProcess::start(Options options) {
  std::error_code ec;
  std::filesystem::create_directories(options.work_dir, ec);
  if (ec) return unexpected("cannot create " + options.work_dir.string() + ": " + ec.message());
  std::unique_ptr<LobbyProcess> p(new LobbyProcess(std::move(options)));
  p->config_file_ = p->options_.work_dir / "lobby-config.json";
  p->stderr_file_ = p->options_.work_dir / "lobby.log";
  {
    std::ofstream out(p->config_file_, std::ios::binary | std::ios::trunc);
    out << config_document(p->options_.config).dump(2);
    if (!out) return unexpected("cannot write " + p->config_file_.string());
  }
  if (auto r = p->spawn(0); !r) return unexpected(r.error());
  return p;
}

LobbyProcess::LobbyProcess(Options options) : options_(std::move(options)) {
  spawner_ = std::thread([this] {
    std::unique_lock lock(spawn_mutex_);
    for (;;) {
      spawn_cv_.wait(lock, [&] { return spawner_stop_ || spawn_task_; });
      if (spawner_stop_) return;
      spawn_task_();
      spawn_task_ = nullptr;
      spawn_cv_.notify_all();
    }
  });
}

pid_t LobbyProcess::fork_child(const std::vector<std::string>& args) {
  pid_t pid = -1;
  std::unique_lock lock(spawn_mutex_);
  spawn_cv_.wait(lock, [&] { return !spawn_task_; });
  bool done = false;
  spawn_task_ = [&] {
    // Everything the child needs is made before fork: after it, only async-signal-safe calls.
    std::vector<std::string> a = args;
    std::vector<char*> argv;
    for (auto& x : a) argv.push_back(x.data());
    argv.push_back(nullptr);
    // stdout and stderr into the log: the port is read from it, and a crash report ends up there.
    const int log_fd = ::open(stderr_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const pid_t parent = ::getpid();
    pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);  // the fuzzer is already gone
      if (null_fd >= 0) ::dup2(null_fd, 0);
      if (log_fd >= 0) {
        ::dup2(log_fd, 1);
        ::dup2(log_fd, 2);
      }
      ::execve(argv[0], argv.data(), environ);
      ::_exit(127);
    }
    if (log_fd >= 0) ::close(log_fd);
    if (null_fd >= 0) ::close(null_fd);
    done = true;
  };
  spawn_cv_.notify_all();
  spawn_cv_.wait(lock, [&] { return done; });
  return pid;
}

Expected<bool, std::string> LobbyProcess::spawn(std::uint16_t port) {
  std::filesystem::remove(stderr_file_);
  const std::string exe = options_.executable.string();
  const pid_t pid = fork_child({exe, "lobby", "--listen", "127.0.0.1:" + std::to_string(port), "--config", config_file_.string()});
  if (pid < 0) return unexpected("cannot start " + exe + ": " + std::strerror(errno));
  pid_ = pid;
  exit_.clear();
  // Wait for "... listening on http://127.0.0.1:PORT" (an ASan build starts in a second or two).
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < until) {
    const std::string log = read_file(stderr_file_);
    const auto at = log.find("listening on http://127.0.0.1:");
    const auto eol = at == std::string::npos ? std::string::npos : log.find('\n', at);
    if (eol != std::string::npos) {
      try {
        port_ = static_cast<std::uint16_t>(std::stoi(log.substr(at + 30, eol - at - 30)));
      } catch (const std::exception&) {
        return unexpected("cannot read the lobby's port from: " + log.substr(at, eol - at));
      }
      return true;
    }
    if (!alive()) return unexpected("the lobby " + exit_ + ": " + stderr_tail(2000));
    std::this_thread::sleep_for(20ms);
  }
  stop();
  return unexpected("the lobby did not start within 30 s: " + stderr_tail(2000));
}

LobbyProcess::~LobbyProcess() {
  stop();
  {
    std::lock_guard lock(spawn_mutex_);
    spawner_stop_ = true;
  }
  spawn_cv_.notify_all();
  if (spawner_.joinable()) spawner_.join();
}

bool LobbyProcess::alive() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return true;
  exit_ = r == pid_ ? describe_status(status) : "is gone";
  pid_ = -1;
  return false;
}

std::string LobbyProcess::stderr_tail(std::size_t bytes) const {
  const std::string log = read_file(stderr_file_);
  return log.size() <= bytes ? log : "..." + log.substr(log.size() - bytes);
}

Expected<bool, std::string> LobbyProcess::restart() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  // The same port, so URLs held by executors stay right.
  Expected<bool, std::string> r = unexpected(std::string("not started"));
  for (int attempt = 0; attempt < 20; ++attempt) {
    r = spawn(port_);
    if (r) return r;
    std::this_thread::sleep_for(100ms);
  }
  return r;
}

void LobbyProcess::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    if (!alive()) return;
    std::this_thread::sleep_for(20ms);
  }
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace ac::fuzz
