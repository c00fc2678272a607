// `agentconform load` as a user runs it, against the embedded reference lobby:
//  - every protocol's relay path under a short open-loop load: exit 0, everything sent is
//    delivered once and in order, the four reports are written, the HTML draws its SVG charts;
//  - each load-only fault of the lobby is caught (exit 1, the counter it breaks is non-zero),
//    while `run` passes with all of them on (they are what only load shows);
//  - usage errors exit 2 naming the option, an unreachable target exits 3, a missed objective 1.
// Rates are modest (the test runs under ASan on a shared two-core machine); no figure of speed
// is asserted here (bench/ measures speed).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ac-load-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

struct CliRun {
  int code = -1;
  std::string output;
  Json results;
};

CliRun load(const std::string& args, const std::string& name) {
  const fs::path dir = scratch(name);
  const fs::path log = dir / "log.txt";
  const std::string command = std::string(AC_CLI) + " load " + args + " --report-dir " + (dir / "report").string() + " > " + log.string() + " 2>&1";
  const int status = std::system(command.c_str());
  CliRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(log);
  r.output = std::string(std::istreambuf_iterator<char>(in), {});
  if (fs::exists(dir / "report/results.json")) {
    std::ifstream j(dir / "report/results.json");
    r.results = Json::parse(j, nullptr, false);
  }
  return r;
}

std::uint64_t total(const CliRun& r, const char* key) {
  return r.results.is_object() ? r.results["totals"].value(key, std::uint64_t{0}) : 0;
}

class LoadProtocols : public ::testing::TestWithParam<std::string> {};

TEST_P(LoadProtocols, EveryMessageArrivesOnceAndInOrder) {
  const std::string p = GetParam();
  // AgentProtocol signs every message (Ed25519): a lower rate keeps the ASan run short.
  const std::string rate = p == "agentprotocol" ? "150" : "400";
  const CliRun r = load("--protocol " + p + " --agents 4 --streams 2 --rate " + rate + " --duration 1500ms", "ok-" + p);
  ASSERT_EQ(r.code, 0) << r.output;
  ASSERT_TRUE(r.results.is_object()) << r.output;
  EXPECT_GT(total(r, "sent"), 100u);
  EXPECT_EQ(total(r, "delivered"), total(r, "sent"));
  for (const char* k : {"lost", "duplicated", "reordered", "misdelivered", "invalid", "connection_failures"}) EXPECT_EQ(total(r, k), 0u) << k;
  EXPECT_GT(r.results["latency"].value("count", 0), 0);
  EXPECT_GT(r.results["latency"].value("p99", 0.0), 0.0);
  EXPECT_FALSE(r.results["timeline"].empty());
  EXPECT_TRUE(r.results["target_metrics"].value("available", false)) << "the embedded lobby's /metrics are sampled";
  const fs::path report = fs::temp_directory_path() / ("ac-load-test-" + std::to_string(::getpid()) + "-ok-" + p) / "report";
  for (const char* f : {"junit.xml", "summary.md", "report.html"}) EXPECT_TRUE(fs::exists(report / f)) << f;
  std::ifstream html(report / "report.html");
  const std::string text(std::istreambuf_iterator<char>(html), {});
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("latency histogram"), std::string::npos);
  EXPECT_NE(text.find("throughput over time"), std::string::npos);
  if (p == "chopsticks" || p == "a2acp") {
    EXPECT_EQ(total(r, "replies"), total(r, "delivered")) << "every request was answered";
  }
  fs::remove_all(report.parent_path());
}

INSTANTIATE_TEST_SUITE_P(Relay, LoadProtocols, ::testing::Values("agora", "alp", "agentprotocol", "a2acp", "chopsticks"),
                         [](const auto& param_info) { return param_info.param; });

// The load-only faults: each is caught by the counter it breaks.
struct Fault {
  std::string name, counter, args;
};
class LoadFaults : public ::testing::TestWithParam<Fault> {};

TEST_P(LoadFaults, LoadCatchesIt) {
  const Fault& f = GetParam();
  const CliRun r = load("--protocol agora --lobby-fault " + f.name + " " + f.args, f.counter);
  EXPECT_EQ(r.code, 1) << r.output;
  ASSERT_TRUE(r.results.is_object()) << r.output;
  EXPECT_GT(total(r, f.counter.c_str()), 0u) << f.counter << "\n" << r.output;
  EXPECT_EQ(r.results["verdict"].value("passed", true), false);
}

INSTANTIATE_TEST_SUITE_P(
    Agora, LoadFaults,
    ::testing::Values(Fault{"agora.load.drop-one-in-n", "lost", "--agents 2 --rate 2500 --duration 1500ms"},
                      Fault{"agora.load.reorder-under-contention", "reordered", "--agents 2 --rate 2500 --duration 1500ms"},
                      Fault{"agora.load.misdeliver-under-contention", "misdelivered", "--agents 4 --rate 3000 --duration 1500ms"}),
    [](const auto& param_info) { return std::string(param_info.param.counter); });

// What the load-only faults are for: the conformance suite cannot see them.
TEST(LoadFaults, RunPassesWithThem) {
  const fs::path dir = scratch("run");
  const std::string command = std::string(AC_CLI) +
                              " run --protocol agora --jobs 2 --quiet --report none --lobby-fault agora.load.drop-one-in-n"
                              " --lobby-fault agora.load.reorder-under-contention --lobby-fault agora.load.misdeliver-under-contention > " +
                              (dir / "log.txt").string() + " 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(dir / "log.txt");
  const std::string log(std::istreambuf_iterator<char>(in), {});
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0) << log;
  fs::remove_all(dir);
}

TEST(LoadCli, UsageErrorsNameTheOption) {
  struct Case {
    std::string args, names;
  };
  for (const Case& c : std::vector<Case>{{"--agents 2 --rate 10", "--protocol"},
                                         {"--protocol nope --rate 10", "--protocol"},
                                         {"--protocol agora --agents 2", "--rate"},
                                         {"--protocol agora --rate 10 --max", "--rate"},
                                         {"--protocol agora --rate 0", "--rate"},
                                         {"--protocol agora --rate 10 --duration 5parsecs", "--duration"},
                                         {"--protocol agora --rate 10 --duration ''", "--duration"},
                                         {"--protocol agora --rate 10 --agents 3", "--agents"},
                                         {"--protocol agora --rate 10 --agents 0", "--agents"},
                                         {"--protocol agora --rate 10 --streams 1000", "--streams"},
                                         {"--protocol agora --rate 10 --slo p99", "--slo"},
                                         {"--protocol agora --rate 10 --report pdf", "--report"},
                                         {"--protocol agora --rate 10 --message-size 10", "--message-size"},
                                         {"--protocol agora --rate 10 --lobby-fault agora.nope", "--lobby-fault"},
                                         {"--protocol agora --rate 10 --target ''", "--target"},
                                         {"--protocol agora --rate 10 --target ftp://x/", "--target"}}) {
    const CliRun r = load(c.args + " --duration 200ms", "usage");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.names), std::string::npos) << c.args << "\n" << r.output;
  }
}

TEST(LoadCli, UnreachableTargetExits3) {
  const CliRun r = load("--protocol agora --rate 10 --duration 200ms --target ws://127.0.0.1:1/agora/ws", "unreachable");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("127.0.0.1:1"), std::string::npos) << r.output;
}

TEST(LoadCli, MissedObjectiveExits1) {
  const CliRun r = load("--protocol agora --max --window 8 --duration 500ms --slo 'p50<=1ns,throughput>=1000000000'", "slo");
  EXPECT_EQ(r.code, 1) << r.output;
  ASSERT_TRUE(r.results.is_object()) << r.output;
  EXPECT_EQ(total(r, "lost"), 0u);
  ASSERT_EQ(r.results["slo"].size(), 2u);
  EXPECT_FALSE(r.results["slo"][0].value("ok", true));
  EXPECT_NE(r.output.find("objective p50<=1ns missed"), std::string::npos) << r.output;
}

}  // namespace
