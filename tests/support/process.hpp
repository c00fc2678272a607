// Test support: running a program as a user would (argv, no shell; output captured through
// files), temporary directories, and whole-file reads and writes.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ac::testing {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void spit(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A fresh directory under /tmp, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/ac-test-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

struct Process {
  int exit_code = -1;
  std::string out, err;
};

// A program started in the background (see spawn()); finish() waits for it.
struct Running {
  pid_t pid = -1;
  std::filesystem::path out_path, err_path;
};

// Starts argv[0] with arguments, output captured through files in `dir`; nothing through a shell.
// `asan_options` is appended to the child's ASAN_OPTIONS.
inline Running spawn(const std::vector<std::string>& argv, const std::filesystem::path& dir, const std::string& asan_options = "",
                     const std::string& tag = "") {
  Running r;
  r.out_path = dir / (".stdout" + tag);
  r.err_path = dir / (".stderr" + tag);
  r.pid = ::fork();
  if (r.pid == 0) {
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(r.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open(r.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (!asan_options.empty()) {
      const char* current = std::getenv("ASAN_OPTIONS");
      const std::string merged = (current && *current ? std::string(current) + ":" : std::string()) + asan_options;
      ::setenv("ASAN_OPTIONS", merged.c_str(), 1);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  return r;
}

inline Process finish(const Running& r) {
  int status = 0;
  ::waitpid(r.pid, &status, 0);
  Process p;
  p.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  p.out = slurp(r.out_path);
  p.err = slurp(r.err_path);
  return p;
}

// Runs argv[0] with arguments and waits for it.
inline Process run_process(const std::vector<std::string>& argv, const std::filesystem::path& dir,
                           const std::string& asan_options = "") {
  return finish(spawn(argv, dir, asan_options));
}

inline bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream s(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(s, dir, ':')) {
    if (!dir.empty() && ::access((std::filesystem::path(dir) / program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

}  // namespace ac::testing
