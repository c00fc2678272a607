// `agentconform canon` run as a user runs it (AC_CLI): exact canonical bytes on stdout for the
// RFC 8785 examples (file, "-" and implicit stdin), and for invalid input the exit code and an
// error naming the rule, byte offset and pointer on stderr with nothing on stdout.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

class CanonCli : public testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ac-canon-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const char* f : {"/stdin", "/stdout", "/stderr", "/input.json"}) std::remove((dir_ + f).c_str());
    ::rmdir(dir_.c_str());
  }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  // Runs AC_CLI with `args`, standard input from `stdin_bytes`; output captured through files.
  CliResult run(const std::vector<std::string>& args, const std::string& stdin_bytes = "") {
    spit(path("stdin"), stdin_bytes);
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int in = ::open(path("stdin").c_str(), O_RDONLY);
      const int out = ::open(path("stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      const int err = ::open(path("stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (in < 0 || out < 0 || err < 0) ::_exit(126);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(err, 2);
      std::vector<char*> argv;
      std::string program = AC_CLI;
      argv.push_back(program.data());
      std::vector<std::string> copies(args);
      for (auto& a : copies) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(program.c_str(), argv.data());
      ::_exit(127);
    }
    CliResult r;
    int status = 0;
    if (pid > 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    r.out = slurp(path("stdout"));
    r.err = slurp(path("stderr"));
    return r;
  }

  std::string dir_;
};

std::string fixture(const std::string& name) { return std::string(AC_SOURCE_DIR) + "/fixtures/rfc8785/" + name; }

TEST_F(CanonCli, Rfc8785SampleFromAFile) {
  CliResult r = run({"canon", fixture("sample_3.2.2.input.json")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(fixture("sample_3.2.2.expected.json")));
  EXPECT_TRUE(r.err.empty()) << r.err;
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.back(), '}');  // no trailing newline
}

TEST_F(CanonCli, Rfc8785SortingExampleFromStdin) {
  const std::string expected = slurp(fixture("sorting_3.2.3.expected.json"));
  CliResult dash = run({"canon", "-"}, slurp(fixture("sorting_3.2.3.input.json")));
  EXPECT_EQ(dash.exit_code, 0) << dash.err;
  EXPECT_EQ(dash.out, expected);
  CliResult implicit = run({"canon"}, slurp(fixture("sorting_3.2.3.input.json")));
  EXPECT_EQ(implicit.exit_code, 0) << implicit.err;
  EXPECT_EQ(implicit.out, expected);
}

TEST_F(CanonCli, AppendixBNumbersThroughTheCommand) {
  std::istringstream rows(slurp(fixture("appendix_b_numbers.tsv")));
  std::string input = "[", expected = "[";
  for (std::string line; std::getline(rows, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::string expected_text = line.substr(17, line.find('\t', 17) - 17);
    if (expected_text.empty()) continue;  // NaN/Infinity have no JSON text to feed in
    // Feed the expected text back with a different spelling: %.17g of the same double.
    std::uint64_t bits = std::stoull(line.substr(0, 16), nullptr, 16);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    char spelled[40];
    std::snprintf(spelled, sizeof spelled, "%.17g", d);
    if (input.size() > 1) {
      input += ", ";
      expected += ",";
    }
    input += spelled;
    expected += expected_text;
  }
  input += "]\n";
  expected += "]";
  CliResult r = run({"canon"}, input);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expected) << "input: " << input;
}

TEST_F(CanonCli, DuplicateKeyIsRejectedWithRuleOffsetAndPointer) {
  spit(path("input.json"), R"({"a":1,"a":2})");
  CliResult r = run({"canon", path("input.json")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("json.duplicate-key"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at byte 10"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"/a\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(path("input.json")), std::string::npos) << r.err;
}

TEST_F(CanonCli, InvalidInputsExitOneWithTheirRule) {
  using namespace std::literals;
  const struct {
    std::string input;
    const char* rule;
    const char* where;
  } cases[] = {
      {std::string("{\"a\":1}\0garbage"sv), "json.nul-byte", "at byte 7"},
      {"{\"a\":1} {}", "json.trailing-data", "at byte 8"},
      {"\"\xed\xa0\x80\"", "json.invalid-utf8", "at byte 1"},
      {"[\"\\ud800\"]", "json.lone-surrogate", "at byte 8"},
      {"{\"x\":[1e400]}", "json.number-out-of-range", "at byte 10"},
      {"", "json.empty-input", "at byte 0"},
      {"[1,]", "json.syntax", "at byte 3"},
  };
  for (const auto& c : cases) {
    CliResult r = run({"canon", "-"}, c.input);
    EXPECT_EQ(r.exit_code, 1) << c.rule;
    EXPECT_TRUE(r.out.empty()) << c.rule;
    EXPECT_NE(r.err.find(c.rule), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.where), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("standard input"), std::string::npos) << r.err;
  }
}

TEST_F(CanonCli, MissingFileExitsTwo) {
  CliResult r = run({"canon", path("does-not-exist.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("does-not-exist.json"), std::string::npos) << r.err;
}

TEST_F(CanonCli, UsageErrorExitsTwoAndHelpExitsZero) {
  EXPECT_EQ(run({"canon", "a.json", "b.json"}).exit_code, 2);
  CliResult help = run({"canon", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("RFC 8785"), std::string::npos) << help.out;
}

}  // namespace
