// Issue 13, points 2, 5 and 6, through the built CLI:
//   - options out of range exit 2 with a message naming the option (no silent wrap-around, no
//     run that blames the target);
//   - every file and stdin read is bounded: /dev/zero as input is refused at once with the limit
//     named, exit 1 for the checked input of the codec commands, 2 for configuration and for
//     compare/report/replay (whose 1 means something else);
//   - text from a token or a message reaches the terminal escaped; parser errors are our own
//     words with the JSON pointer of the value being read.
#include <gtest/gtest.h>

#include "tests/hostile/cli.hpp"

namespace ac::testing {
namespace {

// The command with standard input from `stdin_file` (through /bin/sh's redirection only).
Process cli_with_stdin(const std::vector<std::string>& args, const std::string& stdin_file, const TempDir& dir) {
  std::string command = std::string("exec '") + AC_CLI + "'";
  for (const auto& a : args) command += " '" + a + "'";
  command += " < '" + stdin_file + "'";
  return run_process({"/bin/sh", "-c", command}, dir.path());
}

struct BadOption {
  std::vector<std::string> args;
  std::string option;  // the name the message must contain
};

TEST(Options, OutOfRangeValuesExit2NamingTheOption) {
  TempDir dir;
  const std::vector<BadOption> cases = {
      {{"run", "--timeout-scale", "0"}, "--timeout-scale"},
      {{"run", "--timeout-scale", "-1"}, "--timeout-scale"},
      {{"run", "--jobs", "-1"}, "--jobs"},
      {{"run", "--jobs", "0"}, "--jobs"},
      {{"run", "--deadline", "-5"}, "--deadline"},
      {{"run", "--target", ""}, "--target"},
      {{"run", "--config", ""}, "--config"},
      {{"run", "--report-dir", ""}, "--report-dir"},
      {{"doctor", "--protocol", "alp", "--target", "", "--timeout-scale", "1"}, "--target"},
      {{"fuzz", "--protocol", "alp", "--duration", "-5"}, "--duration"},
      {{"fuzz", "--protocol", "alp", "--iterations", "-3"}, "--iterations"},
      {{"fuzz", "--protocol", "alp", "--jobs", "-1"}, "--jobs"},
      {{"fuzz", "--protocol", "alp", "--probe-timeout", "0"}, "--probe-timeout"},
      {{"fuzz", "--protocol", "alp", "--target", ""}, "--target"},
      {{"fuzz", "--serve", "--protocol", "alp", "--listen", "127.0.0.1:99999"}, "--listen"},
      {{"serve", "--protocol", "alp", "--listen", ":99999"}, "--listen"},
      {{"serve", "--protocol", "alp", "--listen", "127.0.0.1:99999"}, "--listen"},
      {{"serve", "--protocol", "alp", "--timeout-scale", "0"}, "--timeout-scale"},
      {{"lobby", "--listen", "127.0.0.1:65536"}, "--listen"},
      {{"lobby", "--threads", "0"}, "--threads"},
      {{"agent", "--protocol", "chopsticks", "--heartbeat-ms", "-1"}, "--heartbeat-ms"},
  };
  for (const auto& c : cases) {
    const Process p = cli(c.args, dir);
    std::string shown;
    for (const auto& a : c.args) shown += " '" + a + "'";
    EXPECT_EQ(p.exit_code, 2) << shown << "\n" << p.out << p.err;
    EXPECT_NE(p.err.find(c.option), std::string::npos) << shown << ": the message names " << c.option << "\n" << p.err;
  }
}

TEST(Options, ConfigWithoutTargetIsStillValidated) {
  TempDir dir;
  spit(dir / "bad.json", "{\"protocol\": \"alp\", \"settings\": {\"api_key\": 5}");  // not even JSON
  for (const std::vector<std::string>& args : {std::vector<std::string>{"run", "--config", (dir / "bad.json").string()},
                                               std::vector<std::string>{"run", "--protocol", "alp", "--config", (dir / "bad.json").string()},
                                               std::vector<std::string>{"fuzz", "--protocol", "alp", "--iterations", "1", "--config",
                                                                        (dir / "bad.json").string(), "--out", (dir / "f").string()}}) {
    const Process p = cli(args, dir);
    EXPECT_EQ(p.exit_code, 2) << args[0] << "\n" << p.out << p.err;
    EXPECT_NE(p.err.find("bad.json"), std::string::npos) << args[0] << ": the message names the file\n" << p.err;
  }
}

TEST(Reads, DevZeroIsRefusedWithTheLimitNamed) {
  TempDir dir;
  struct Read {
    std::vector<std::string> args;
    int exit_code;
    std::string limit;  // the limit in bytes, as the message names it
  };
  const std::vector<Read> reads = {
      {{"run", "--protocol", "alp", "--config", "/dev/zero"}, 2, "1048576"},
      {{"doctor", "--protocol", "alp", "--config", "/dev/zero"}, 2, "1048576"},
      {{"fuzz", "--replay", "/dev/zero"}, 2, "67108864"},
      {{"compare", "/dev/zero", "/dev/zero"}, 2, "67108864"},
      {{"report", "/dev/zero"}, 2, "67108864"},
      {{"replay", "/dev/zero", "--case", "X"}, 2, "67108864"},
      {{"validate", "--protocol", "alp", "/dev/zero"}, 1, "67108864"},
      {{"canon", "/dev/zero"}, 1, "67108864"},
      {{"verify", "/dev/zero"}, 1, "67108864"},
  };
  for (const auto& r : reads) {
    const Process p = cli(r.args, dir);
    EXPECT_EQ(p.exit_code, r.exit_code) << r.args[0] << "\n" << p.out << p.err;
    EXPECT_NE(p.err.find("larger than " + r.limit + " bytes"), std::string::npos) << r.args[0] << "\n" << p.err;
  }
}

TEST(Reads, OversizeStandardInputIsInvalidInputExit1) {
  TempDir dir;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"validate", "--protocol", "alp", "-"}, std::vector<std::string>{"canon", "-"},
                                               std::vector<std::string>{"verify", "-"},
                                               std::vector<std::string>{"jwt", "verify", "--secret", std::string(32, 's'), "--audience", "a", "-"}}) {
    const Process p = cli_with_stdin(args, "/dev/zero", dir);
    EXPECT_EQ(p.exit_code, 1) << args[0] << "\n" << p.out << p.err;
    EXPECT_NE(p.err.find("standard input is larger than"), std::string::npos) << args[0] << "\n" << p.err;
  }
}

TEST(Terminal, ClaimsAndPeerTextArePrintedEscaped) {
  TempDir dir;
  const std::string secret(32, 'k');
  // A subject with a C1 CSI (U+009B, which JSON leaves unescaped), which would clear a screen.
  const std::string sub = "agent\xc2\x9b" "2Jvalid";
  const Process issued = cli({"jwt", "issue", "--alg", "HS256", "--secret", secret, "--sub", sub, "--aud", "b", "--ttl", "60"}, dir);
  ASSERT_EQ(issued.exit_code, 0) << issued.err;
  std::string token = issued.out;
  while (!token.empty() && token.back() == '\n') token.pop_back();
  const Process verified = cli({"jwt", "verify", "--secret", secret, "--audience", "b", token}, dir);
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  EXPECT_EQ(verified.out.find("\xc2\x9b"), std::string::npos) << verified.out;
  EXPECT_NE(verified.out.find("\\u009b"), std::string::npos) << verified.out;

  // A message whose text holds ESC sequences: the verdict lines show them as \x1b.
  spit(dir / "msg.json", "{\"type\": \"\\u001b[2K\\u001b[1Gvalid\\r\", \"protocolVersion\": 5}\n");
  const Process v = cli({"validate", "--protocol", "chopsticks", (dir / "msg.json").string()}, dir);
  EXPECT_EQ(v.exit_code, 1) << v.out << v.err;
  EXPECT_EQ(v.out.find('\x1b'), std::string::npos) << v.out;
  EXPECT_EQ(v.out.find('\r'), std::string::npos) << v.out;
}

TEST(Json, SyntaxErrorsAreOurWordsWithThePointer) {
  TempDir dir;
  struct Bad {
    std::string text, pointer;
  };
  for (const auto& b : {Bad{"{\"a\": [1, x]}", "\"/a/1\""}, Bad{"{\"a\": {\"b\": tru}}", "\"/a/b\""}, Bad{"[0, 1, 2, -]", "\"/3\""},
                        Bad{"{\"a\": \"unterminated", "\"/a\""}}) {
    spit(dir / "bad.json", b.text);
    const Process p = cli({"canon", (dir / "bad.json").string()}, dir);
    EXPECT_EQ(p.exit_code, 1) << b.text << "\n" << p.err;
    EXPECT_NE(p.err.find(b.pointer), std::string::npos) << b.text << "\n" << p.err;
    for (const char* internal : {"json.exception", "parse_error", "syntax error while parsing", "line 1, column"}) {
      EXPECT_EQ(p.err.find(internal), std::string::npos) << b.text << ": library wording '" << internal << "'\n" << p.err;
    }
  }
}

}  // namespace
}  // namespace ac::testing
