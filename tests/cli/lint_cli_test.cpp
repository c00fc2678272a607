// `agentconform lint` as a user runs it (the built binary, AC_CLI): exit 0 and a one-line
// summary for the built-in suites, exit 1 with file + pointer lines for a broken directory, the
// same in --json, exit 2 for a usage error; and `run` refuses a typo'd case with exit 2 and the
// same problem instead of running it (a data directory copied with one broken suite file).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class Scratch {
 public:
  Scratch() {
    std::string tmpl = (fs::temp_directory_path() / "ac-lint-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs AC_CLI with `args`; `data_dir` (if any) becomes AGENTCONFORM_DATA_DIR.
CliRun run_cli(const std::vector<std::string>& args, const std::string& data_dir = "") {
  Scratch dir;
  const std::string out = (dir.path() / "out").string(), err = (dir.path() / "err").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> argv_s = {AC_CLI};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!data_dir.empty() && std::string(*e).starts_with("AGENTCONFORM_DATA_DIR=")) continue;
    env_s.emplace_back(*e);
  }
  if (!data_dir.empty()) env_s.push_back("AGENTCONFORM_DATA_DIR=" + data_dir);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  CliRun r;
  const int rc = posix_spawn(&pid, AC_CLI, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return r;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

const fs::path kBroken = fs::path(AC_SOURCE_DIR) / "tests/engine/lint_fixtures/broken";

TEST(CliLint, BuiltinSuitesPassWithASummaryLine) {
  const CliRun r = run_cli({"lint"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(r.out.starts_with("lint: ")) << r.out;
  EXPECT_NE(r.out.find(": no problems\n"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

TEST(CliLint, BrokenDirectoryExitsOneWithFileAndPointer) {
  const CliRun r = run_cli({"lint", kBroken.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find(kBroken.string() + "/alp/keys.json /cases/0/steps/1: unknown key 'expct' (did you mean 'expect'?)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(kBroken.string() + "/alp/syntax.json /cases/0 (line 5, column 66): invalid JSON"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nlint: 10 cases in 5 suite files, 6 requirement catalogues"), std::string::npos) << r.out;
}

TEST(CliLint, JsonOutput) {
  const CliRun r = run_cli({"lint", "--json", kBroken.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["cases"], 10);
  ASSERT_TRUE(j["problems"].is_array());
  bool found = false;
  for (const auto& p : j["problems"]) {
    if (p["pointer"] == "/cases/0/steps/1/message/message_id") {
      found = true;
      EXPECT_EQ(p["file"], kBroken.string() + "/alp/matchers.json");
      EXPECT_TRUE(p["message"].get<std::string>().starts_with("unknown matcher \"$uuuid\" (did you mean \"$uuid\"?)"));
    }
  }
  EXPECT_TRUE(found) << r.out;

  const CliRun ok = run_cli({"lint", "--json"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  const auto k = nlohmann::json::parse(ok.out);
  EXPECT_EQ(k["ok"], true);
  EXPECT_TRUE(k["problems"].empty());
}

TEST(CliLint, UsageErrorsExitTwo) {
  CliRun r = run_cli({"lint", (kBroken / "no-such-dir").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such directory"), std::string::npos) << r.err;
  r = run_cli({"lint", "--frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
}

// The loader of `run` applies the same checks: a typo'd case stops the run (exit 2) with the
// file and pointer, before any case runs. (Before lint, the schema admitted the misspelled key
// and the step expected a null message: a FAIL of the target.)
TEST(CliLint, RunRefusesATypodCase) {
  Scratch data;
  fs::copy(fs::path(AC_SOURCE_DIR) / "schemas", data.path() / "schemas", fs::copy_options::recursive);
  fs::copy(fs::path(AC_SOURCE_DIR) / "suites", data.path() / "suites", fs::copy_options::recursive);
  std::ofstream(data.path() / "suites/alp/zz-typo.json") << R"({"protocol": "alp", "suite": "lifecycle", "cases": [
    {"id": "ALP-ZZ-001", "title": "a typo'd step", "requirements": ["ALP-6-token-reusable"], "role": "lobby",
     "agents": {"a": {}}, "steps": [{"connect": "a"}, {"expect": "a", "mesage": {"message_type": "PONG"}}]}]})";
  const CliRun r = run_cli({"run", "--protocol", "alp", "--case", "ALP-ZZ-001", "--report-dir", (data.path() / "report").string()},
                        data.path().string());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("suites/alp/zz-typo.json /cases/0/steps/1: unknown key 'mesage' (did you mean 'message'?)"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
}

// `run --suites DIR`: DIR's cases are loaded beside the built-in ones, with DIR's requirements
// extending the catalogue (the level of ACME-ALP-LC-002 comes from the custom catalogue's SHOULD).
TEST(CliLint, RunSuitesLoadsACustomDirectory) {
  const fs::path custom = fs::path(AC_SOURCE_DIR) / "tests/engine/lint_fixtures/custom";
  const CliRun r = run_cli({"run", "--suites", custom.string(), "--protocol", "alp", "--case", "ACME-*", "--list"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ACME-ALP-LC-001\talp\tlifecycle\tMUST\t"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ACME-ALP-LC-002\talp\tlifecycle\tSHOULD\t"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 cases"), std::string::npos) << r.out;
  // The built-in cases are still there.
  const CliRun b = run_cli({"run", "--suites", custom.string(), "--protocol", "alp", "--case", "ALP-*", "--list"});
  EXPECT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(b.out.find("ACME-"), std::string::npos) << b.out;
}

// A custom directory with a typo stops `run --suites DIR` before any case (exit 2), with lint's
// file and pointer; so does a directory that does not exist.
TEST(CliLint, RunSuitesRefusesABrokenDirectory) {
  Scratch dir;
  fs::create_directories(dir.path() / "alp");
  std::ofstream(dir.path() / "alp/mine.json") << R"({"protocol": "alp", "suite": "lifecycle", "cases": [
    {"id": "ACME-ZZ-001", "title": "a typo'd matcher", "requirements": ["ALP-6-token-reusable"], "role": "lobby",
     "agents": {"a": {}}, "steps": [{"connect": "a"}, {"expect": "a", "message": {"message_type": "$strng"}}]}]})";
  CliRun r = run_cli({"run", "--suites", dir.path().string(), "--protocol", "alp", "--case", "ACME-*",
                      "--report-dir", (dir.path() / "report").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(dir.path().string() + "/alp/mine.json /cases/0/steps/1/message/message_type"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(did you mean \"$string\"?)"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir.path() / "report"));
  r = run_cli({"run", "--suites", (dir.path() / "nope").string(), "--protocol", "alp", "--list"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
}

}  // namespace
