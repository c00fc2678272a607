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
#include <map>
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

// Removes the whitespace between JSON tokens and keeps every other byte (member order, duplicate
// members, escapes), so that a pretty-printed fixture becomes one line of JSON Lines that reads
// as the same message.
std::string one_line(const std::string& text) {
  std::string out;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      out += c;
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '"') in_string = true;
    out += c;
  }
  return out;
}

// Fixtures of one protocol validated in one run of the CLI, as JSON Lines (`--lines`), one group
// per document kind ("" for messages). A run of the sanitized binary costs about 0.1 s of CPU,
// and the fixtures are many: one run per fixture made these tests a minute of CI.
struct Batch {
  std::vector<std::string> names, lines;
};

CliRun run_batch(const std::string& protocol, const std::string& document, const Batch& batch) {
  TempDir dir;
  std::string text;
  for (const auto& line : batch.lines) text += line + "\n";
  std::vector<std::string> args = {"validate", "--protocol", protocol, "--lines"};
  if (!document.empty()) args.insert(args.end(), {"--document", document});
  args.push_back(dir.write("batch.jsonl", text).string());
  return run_cli(args);
}

// The CLI's verdict on line i (1-based) of a batch.
std::string line_verdict(const std::string& out, std::size_t i) {
  const std::string prefix = "line " + std::to_string(i) + ": ";
  const auto at = out.find(prefix);
  if (at == std::string::npos || (at != 0 && out[at - 1] != '\n')) return "(no line " + std::to_string(i) + ")";
  return first_line(out.substr(at + prefix.size()));
}

TEST(CliValidate, ValidFixturesPrintOk) {
  std::size_t n = 0;
  for (const std::string protocol : kProtocols) {
    std::map<std::string, Batch> batches;
    for (const auto& e : examples(protocol)) {
      const std::string file = e.at("file");
      if (!file.starts_with("valid/")) continue;
      Batch& b = batches[e.value("document", "")];
      b.names.push_back(file);
      b.lines.push_back(one_line(slurp(fixtures(protocol) / file)));
    }
    for (const auto& [document, batch] : batches) {
      SCOPED_TRACE(protocol + (document.empty() ? " messages" : " documents " + document));
      const CliRun r = run_batch(protocol, document, batch);
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      for (std::size_t i = 0; i < batch.lines.size(); ++i) EXPECT_EQ(line_verdict(r.out, i + 1), "ok") << batch.names[i];
      n += batch.lines.size();
    }
  }
  EXPECT_GE(n, 80u);
}

// Fixtures that break JSON itself (rule json.*) run one per process, as they are: white space,
// line ends and trailing data are part of what they test. The others run in batches.
TEST(CliValidate, InvalidFixturesExitOneWithPointerRuleAndSection) {
  std::size_t n = 0;
  for (const std::string protocol : kProtocols) {
    const auto& profile = ac::proto::Catalog::builtin().profile(*ac::proto::parse_protocol(protocol));
    auto expectations = ac::json::parse_strict(slurp(fixtures(protocol) / "invalid" / "expectations.json"));
    ASSERT_TRUE(expectations);
    // What the library says about the same bytes; the CLI must print it.
    auto library_verdict = [&](const Json& x, const std::string& bytes) -> std::string {
      if (!x.contains("document")) return profile.decode(bytes).error().describe();
      auto doc = ac::json::parse_strict(bytes);
      if (!doc) return "(the fixture is not JSON: " + doc.error().describe() + ")";
      return profile.check_document(x["document"].get<std::string>(), *doc)->describe();
    };
    auto check_line = [&](const std::string& name, const Json& x, const std::string& line, const std::string& bytes) {
      SCOPED_TRACE(protocol + "/invalid/" + name);
      const std::string code = x["code"], pointer = x["pointer"], rule = x["rule"];
      EXPECT_TRUE(line.starts_with(code + " at " + (pointer.empty() ? "(message)" : pointer) + " [" + rule + "]")) << line;
      EXPECT_EQ(line, library_verdict(x, bytes));
      EXPECT_NE(line.find(rule.starts_with("json.") ? "(RFC 8259" : "(" + profile.spec_file()), std::string::npos) << line;
      ++n;
    };
    std::map<std::string, Batch> batches;
    for (const auto& [name, x] : expectations->items()) {
      const fs::path path = fixtures(protocol) / "invalid" / name;
      const std::string rule = x["rule"];
      if (!rule.starts_with("json.")) {
        const std::string document = x.value("document", "");
        batches[document].names.push_back(name);
        batches[document].lines.push_back(one_line(slurp(path)));
        continue;
      }
      SCOPED_TRACE(protocol + "/invalid/" + name);
      std::vector<std::string> args = {"validate", "--protocol", protocol};
      if (x.contains("document")) args.insert(args.end(), {"--document", x["document"].get<std::string>()});
      args.push_back(path.string());
      const CliRun r = run_cli(args);
      EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
      if (rule == "json.trailing-data") {
        // Several values on several lines are read as JSON Lines: each line gets its own verdict.
        EXPECT_NE(r.out.find("line 1: "), std::string::npos) << r.out;
        EXPECT_NE(r.out.find(x["code"].get<std::string>()), std::string::npos) << r.out;
        continue;
      }
      check_line(name, x, first_line(r.out), slurp(path));
    }
    for (const auto& [document, batch] : batches) {
      SCOPED_TRACE(protocol + (document.empty() ? " messages" : " documents " + document));
      const CliRun r = run_batch(protocol, document, batch);
      EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
      for (std::size_t i = 0; i < batch.lines.size(); ++i) {
        check_line(batch.names[i], (*expectations)[batch.names[i]], line_verdict(r.out, i + 1), batch.lines[i]);
      }
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
