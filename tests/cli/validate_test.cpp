// `agentconform validate` as a user runs it: the built binary (AC_CLI) over the fixtures, single
// messages, JSON Lines and standard input, with its exit codes (0 valid, 1 invalid, 2 usage).
// The binary is started with posix_spawn (no shell), its streams redirected to temporary files.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/profile.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ac-validate-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path write(const std::string& name, const std::string& bytes) const {
    std::ofstream out(path_ / name, std::ios::binary);
    out << bytes;
    return path_ / name;
  }

 private:
  fs::path path_;
};

// Runs AC_CLI with `args` (argv[1..]); stdin from `stdin_file` (or /dev/null).
CliRun run_cli(const std::vector<std::string>& args, const std::string& stdin_file = "/dev/null") {
  TempDir dir;
  const std::string out_path = (dir.path() / "stdout").string(), err_path = (dir.path() / "stderr").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, stdin_file.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> argv_storage = {AC_CLI};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  CliRun r;
  const int rc = posix_spawn(&pid, AC_CLI, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    r.err = "posix_spawn failed";
    return r;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

fs::path fixtures(const std::string& protocol) { return fs::path(AC_SOURCE_DIR) / "fixtures" / protocol; }

Json examples(const std::string& protocol) {
  auto j = ac::json::parse_strict(slurp(fixtures(protocol) / "examples.json"));
  return j ? *j : Json::array();
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

const char* const kProtocols[] = {"alp", "agora", "agentprotocol", "a2acp", "chopsticks"};

TEST(CliValidate, ValidFixturesPrintOk) {
  std::size_t n = 0;
  for (const std::string protocol : kProtocols) {
    for (const auto& e : examples(protocol)) {
      const std::string file = e.at("file");
      if (!file.starts_with("valid/")) continue;
      SCOPED_TRACE(protocol + "/" + file);
      std::vector<std::string> args = {"validate", "--protocol", protocol};
      if (e.contains("document")) args.insert(args.end(), {"--document", e["document"].get<std::string>()});
      args.push_back((fixtures(protocol) / file).string());
      const CliRun r = run_cli(args);
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      EXPECT_EQ(r.out, "ok\n");
      ++n;
    }
  }
  EXPECT_GE(n, 80u);
}

TEST(CliValidate, InvalidFixturesExitOneWithPointerRuleAndSection) {
  std::size_t n = 0;
  for (const std::string protocol : kProtocols) {
    const auto& profile = ac::proto::Catalog::builtin().profile(*ac::proto::parse_protocol(protocol));
    auto expectations = ac::json::parse_strict(slurp(fixtures(protocol) / "invalid" / "expectations.json"));
    ASSERT_TRUE(expectations);
    for (const auto& [name, x] : expectations->items()) {
      SCOPED_TRACE(protocol + "/invalid/" + name);
      const fs::path path = fixtures(protocol) / "invalid" / name;
      std::vector<std::string> args = {"validate", "--protocol", protocol};
      if (x.contains("document")) args.insert(args.end(), {"--document", x["document"].get<std::string>()});
      args.push_back(path.string());
      const CliRun r = run_cli(args);
      EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
      const std::string code = x["code"], pointer = x["pointer"], rule = x["rule"];
      if (rule == "json.trailing-data") {
        // Several values on several lines are read as JSON Lines: each line gets its own verdict.
        EXPECT_NE(r.out.find("line 1: "), std::string::npos) << r.out;
        EXPECT_NE(r.out.find(code), std::string::npos) << r.out;
        continue;
      }
      const std::string line = first_line(r.out);
      EXPECT_TRUE(line.starts_with(code + " at " + (pointer.empty() ? "(message)" : pointer) + " [" + rule + "]")) << line;
      // The section printed is the one the library reports for the same bytes.
      const std::string bytes = slurp(path);
      std::string expected;
      if (x.contains("document")) {
        auto doc = ac::json::parse_strict(bytes);
        ASSERT_TRUE(doc);
        expected = profile.check_document(x["document"].get<std::string>(), *doc)->describe();
      } else {
        expected = profile.decode(bytes).error().describe();
      }
      EXPECT_EQ(line, expected);
      const bool json_error = rule.starts_with("json.");
      EXPECT_NE(line.find(json_error ? "(RFC 8259" : "(" + profile.spec_file()), std::string::npos) << line;
      ++n;
    }
  }
  EXPECT_GE(n, 150u);
}

TEST(CliValidate, JsonLinesNameTheBadLine) {
  TempDir dir;
  const std::string ok = slurp(fixtures("chopsticks") / "valid" / "spec_guilds.json");
  auto compact = [](const std::string& s) { return ac::json::parse_strict(s)->dump(); };
  const std::string good = compact(ok);
  const std::string bad = R"({"type":"guilds","guildIds":"1445809891242414226"})";
  const fs::path file = dir.write("stream.jsonl", good + "\n" + bad + "\n\n" + good + "\n");
  for (const bool flag : {false, true}) {
    SCOPED_TRACE(flag ? "--lines" : "detected");
    std::vector<std::string> args = {"validate", "--protocol", "chopsticks"};
    if (flag) args.push_back("--lines");
    args.push_back(file.string());
    const CliRun r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.out.find("line 1: ok\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("line 2: INVALID_MESSAGE_FORMAT at /guildIds [type] (chopsticks-1.0.0.md"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("line 4: ok\n"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("line 3"), std::string::npos) << "blank lines are skipped: " << r.out;
  }
  // All lines valid: exit 0.
  const fs::path all_ok = dir.write("ok.jsonl", good + "\n" + good + "\n");
  const CliRun r = run_cli({"validate", "--protocol", "chopsticks", all_ok.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "line 1: ok\nline 2: ok\n");
}

TEST(CliValidate, DashReadsStandardInput) {
  const fs::path valid = fixtures("agora") / "valid" / "spec_send_one_shot.json";
  CliRun r = run_cli({"validate", "--protocol", "agora", "-"}, valid.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok\n");
  const fs::path invalid = fixtures("agora") / "invalid" / "send_missing_to.json";
  r = run_cli({"validate", "--protocol", "agora", "-"}, invalid.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.starts_with("INVALID_FRAME at /to [required] (agora-relay-streaming.md §1)")) << r.out;
  // No file argument reads standard input too.
  r = run_cli({"validate", "--protocol", "agora"}, valid.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(CliValidate, JsonOutput) {
  const fs::path invalid = fixtures("alp") / "invalid" / "missing_capability_name.json";
  const CliRun r = run_cli({"validate", "--protocol", "alp", "--json", invalid.string()});
  EXPECT_EQ(r.exit_code, 1);
  auto verdict = ac::json::parse_strict(r.out);
  ASSERT_TRUE(verdict) << r.out;
  EXPECT_EQ((*verdict)["valid"], false);
  EXPECT_EQ((*verdict)["errors"][0]["pointer"], "/payload/capability_name");
  EXPECT_EQ((*verdict)["errors"][0]["code"], "MISSING_REQUIRED_FIELD");
  EXPECT_EQ((*verdict)["errors"][0]["section"], "alp-0.2.0.md §7.3.2");
}

TEST(CliValidate, UsageErrorsExitTwo) {
  const fs::path valid = fixtures("alp") / "valid" / "ping.json";
  CliRun r = run_cli({"validate", "--protocol", "xmpp", valid.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown protocol"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  r = run_cli({"validate", "--protocol", "alp", (fixtures("alp") / "no-such-file.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no-such-file.json"), std::string::npos) << r.err;
  r = run_cli({"validate", valid.string()});  // --protocol is required
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli({"validate", "--protocol", "alp", "--document", "no_such_document", valid.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("capability"), std::string::npos) << "lists the known documents: " << r.err;
}

TEST(CliValidate, HelpExitsZero) {
  CliRun r = run_cli({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("validate"), std::string::npos) << r.out;
  r = run_cli({"validate", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--protocol"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--document"), std::string::npos) << r.out;
}

}  // namespace
