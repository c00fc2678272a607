// The process monitor (monitor.hpp).
#include "harness/process/monitor.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace ac::process {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

ExitStatus status_of(int status) {
  ExitStatus e;
  if (WIFSIGNALED(status)) {
    e.signaled = true;
    e.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    e.code = WEXITSTATUS(status);
  }
  return e;
}

std::string read_tail(const std::filesystem::path& file, std::size_t bytes) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(std::max<std::streamoff>(0, in.tellg()));
  const std::size_t from = size > bytes ? size - bytes : 0;
  in.seekg(static_cast<std::streamoff>(from));
  std::string out(size - from, '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  return from > 0 ? "..." + out : out;
}

}  // namespace

std::string ExitStatus::describe() const {
  std::string out;
  if (signaled) {
    const char* name = ::strsignal(signal);
    out = "killed by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : std::string());
  } else {
    out = "exited with status " + std::to_string(code);
  }
  if (killed_by_monitor) out += ", stopped by agentconform";
  return out;
}

Expected<std::unique_ptr<Monitor>, std::string> Monitor::start(Options options) {
  if (options.argv.empty() && options.shell_command.empty()) return unexpected(std::string("no command to start"));
  std::error_code ec;
  std::filesystem::create_directories(options.work_dir, ec);
  if (ec) return unexpected("cannot create " + options.work_dir.string() + ": " + ec.message());
  std::unique_ptr<Monitor> m(new Monitor(std::move(options)));
  if (auto r = m->spawn(); !r) return unexpected(r.error());
  return m;
}

Monitor::Monitor(Options options) : options_(std::move(options)) {
  log_file_ = options_.work_dir / (options_.name + ".log");
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

Monitor::~Monitor() {
  stop();
  {
    std::lock_guard lock(spawn_mutex_);
    spawner_stop_ = true;
  }
  spawn_cv_.notify_all();
  if (spawner_.joinable()) spawner_.join();
}

pid_t Monitor::fork_child(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  pid_t pid = -1;
  std::unique_lock lock(spawn_mutex_);
  spawn_cv_.wait(lock, [&] { return !spawn_task_; });
  bool done = false;
  spawn_task_ = [&] {
    // Everything the child needs is made before fork: after it, only async-signal-safe calls.
    std::vector<std::string> a = args, e = env;
    std::vector<char*> argv, envp;
    for (auto& x : a) argv.push_back(x.data());
    argv.push_back(nullptr);
    for (auto& x : e) envp.push_back(x.data());
    envp.push_back(nullptr);
    const int log_fd = ::open(log_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const pid_t parent = ::getpid();
    pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);  // its own group: a restart stops the command and everything it started
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);  // the harness is already gone
      if (null_fd >= 0) ::dup2(null_fd, 0);
      if (log_fd >= 0) {
        ::dup2(log_fd, 1);
        ::dup2(log_fd, 2);
      }
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    if (pid > 0) ::setpgid(pid, pid);  // (both sides, so the group exists whichever runs first)
    if (log_fd >= 0) ::close(log_fd);
    if (null_fd >= 0) ::close(null_fd);
    done = true;
  };
  spawn_cv_.notify_all();
  spawn_cv_.wait(lock, [&] { return done; });
  return pid;
}

Expected<bool, std::string> Monitor::spawn() {
  std::vector<std::string> args = options_.argv;
  if (args.empty()) args = {"/bin/sh", "-c", options_.shell_command};
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string key = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [k, v] : options_.env) replaced = replaced || k == key;
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [k, v] : options_.env) env.push_back(k + "=" + v);
  // One file per instance: the current one is NAME.log, the earlier ones NAME.1.log, NAME.2.log,
  // ... in start order (the first 100; later instances overwrite the hundredth), so a crash's log
  // survives the restart that follows it.
  if (const std::uint64_t earlier = starts(); earlier > 0) {
    std::error_code ec;
    const auto kept = options_.work_dir / (options_.name + "." + std::to_string(std::min<std::uint64_t>(earlier, 100)) + ".log");
    std::filesystem::rename(log_file_, kept, ec);
  }
  const pid_t pid = fork_child(args, env);
  if (pid < 0) return unexpected("cannot start " + args[0] + ": " + std::strerror(errno));
  std::lock_guard lock(mu_);
  pid_ = pid;
  pgid_ = pid;
  exit_.reset();
  ++starts_;
  return true;
}

pid_t Monitor::pid() const {
  std::lock_guard lock(mu_);
  return pid_;
}

std::uint64_t Monitor::starts() const {
  std::lock_guard lock(mu_);
  return starts_;
}

bool Monitor::alive() {
  std::lock_guard lock(mu_);
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return true;
  if (r == pid_) {
    exit_ = status_of(status);
  } else if (!exit_) {
    exit_ = ExitStatus{};  // reaped elsewhere: ended, how is unknown
  }
  pid_ = -1;
  return false;
}

std::optional<ExitStatus> Monitor::exit_status() const {
  std::lock_guard lock(mu_);
  return exit_;
}

std::string Monitor::exit_description() const {
  std::lock_guard lock(mu_);
  return exit_ ? exit_->describe() : std::string();
}

std::string Monitor::output() const { return read_tail(log_file_, 64u << 20); }

std::string Monitor::output_tail(std::size_t bytes) const { return read_tail(log_file_, bytes); }

std::optional<std::uint64_t> Monitor::rss_bytes() const {
  pid_t group = -1;
  {
    std::lock_guard lock(mu_);
    if (pid_ <= 0) return std::nullopt;
    group = pgid_;
  }
  const long page = ::sysconf(_SC_PAGESIZE);
  std::uint64_t total = 0;
  bool any = false;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return std::nullopt;
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    std::string state;
    long ppid = 0, pgrp = 0;
    rest >> state >> ppid >> pgrp;
    if (pgrp != group) continue;
    std::ifstream statm(std::string("/proc/") + e->d_name + "/statm");
    long size = 0, resident = 0;
    if (statm >> size >> resident) {
      total += static_cast<std::uint64_t>(resident) * static_cast<std::uint64_t>(page);
      any = true;
    }
  }
  ::closedir(dir);
  if (!any) return std::nullopt;
  return total;
}

void Monitor::kill_group(int signal) {
  pid_t group = -1;
  {
    std::lock_guard lock(mu_);
    group = pgid_;
  }
  if (group > 0) ::kill(-group, signal);
}

void Monitor::reap_blocking() {
  std::lock_guard lock(mu_);
  if (pid_ <= 0) return;
  int status = 0;
  if (::waitpid(pid_, &status, 0) == pid_) {
    exit_ = status_of(status);
    exit_->killed_by_monitor = true;
  }
  pid_ = -1;
}

void Monitor::kill() {
  if (!alive()) {
    kill_group(SIGKILL);  // children it left behind
    return;
  }
  kill_group(SIGKILL);
  reap_blocking();
}

Expected<bool, std::string> Monitor::restart() {
  kill();
  return spawn();
}

void Monitor::stop(std::chrono::milliseconds grace) {
  if (!alive()) {
    kill_group(SIGKILL);
    return;
  }
  kill_group(SIGTERM);
  const auto until = Clock::now() + grace;
  while (Clock::now() < until) {
    if (!alive()) {
      kill_group(SIGKILL);  // whatever of the group outlived the command
      return;
    }
    std::this_thread::sleep_for(10ms);
  }
  kill();
}

void Monitor::set_argv(std::vector<std::string> argv) { options_.argv = std::move(argv); }

Monitor::Ready Monitor::wait_ready(const std::function<bool()>& ready, std::chrono::milliseconds timeout,
                                   std::chrono::milliseconds every) {
  const auto until = Clock::now() + timeout;
  for (;;) {
    if (!alive()) return Ready::exited;
    if (ready()) return Ready::ready;
    if (Clock::now() >= until) return Ready::timeout;
    std::this_thread::sleep_for(every);
  }
}

}  // namespace ac::process
