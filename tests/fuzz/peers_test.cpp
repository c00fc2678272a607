// The fuzzer against a server it does not own (issue 12): an independent Agora relay in Node.js
// (tests/peers/fuzz/agora_relay.js, written from the spec) with planted bugs, fuzzed as a user
// would, with `agentconform fuzz`:
//   - started by the fuzzer itself (--target-command: the process monitor restarts it and keeps
//     its exit status and crash report as evidence);
//   - started by a restarting supervisor of its own (tests/peers/fuzz/supervise.js), which the
//     fuzzer knows nothing about: it only sees connections refused, cut or unanswered.
// For every planted bug a short campaign against a relay with that bug alone (restricted to the
// mutation families that reach it, so each test takes seconds, not minutes) must report a finding
// whose reproducer trips again on that relay (replay exit 1) and not on the fixed relay (exit 0);
// and a campaign against the fixed relay reports nothing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "harness/process/monitor.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace ac::fuzz {
namespace {

using namespace std::chrono_literals;

const std::filesystem::path kPeers = std::filesystem::path(AC_SOURCE_DIR) / "tests/peers/fuzz";

using test::free_port;

int rc(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string relay_command(std::uint16_t port, const std::string& bugs) {
  return "node --expose-gc " + (kPeers / "agora_relay.js").string() + " --port " + std::to_string(port) + " --bugs " + bugs;
}

// A relay under its own supervisor, in a process group the test stops as a whole.
std::unique_ptr<process::Monitor> supervised(std::uint16_t port, const std::string& bugs, const std::filesystem::path& dir) {
  process::Monitor::Options o;
  o.shell_command = "exec node " + (kPeers / "supervise.js").string() + " --health http://127.0.0.1:" + std::to_string(port) +
                    "/healthz -- " + "node --expose-gc " + (kPeers / "agora_relay.js").string() + " --port " + std::to_string(port) + " --bugs " + bugs;
  o.work_dir = dir;
  o.name = "supervisor-" + bugs;
  auto m = process::Monitor::start(std::move(o));
  EXPECT_TRUE(m) << (m ? "" : m.error());
  if (!m) return nullptr;
  // Up when the relay answers its health endpoint.
  const std::string probe = "node -e \"require('http').get('http://127.0.0.1:" + std::to_string(port) +
                            "/healthz',r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))\"";
  for (int i = 0; i < 100 && rc(probe) != 0; ++i) std::this_thread::sleep_for(100ms);
  return std::move(*m);
}

struct Planted {
  std::string bug;
  std::string oracle;
  std::string families;  // the families that reach it (a short campaign per bug keeps the test short)
  // A finding is this bug's when its signature (monitored crash) or its culprit's mutations
  // contain one of these.
  std::vector<std::string> marks;
  // Under its own supervisor the relay's watchdog kills a hung relay before the fuzzer's ping
  // deadline: seen from outside, connections cut, a crash. (The replays on the broken and the
  // fixed relay still tell whether it is this bug.)
  std::string supervised_oracle = oracle;
};

const std::vector<Planted> kPlanted = {
    {"crash-deep", "crash", "field", {"RangeError", "deep nesting"}},
    {"crash-nul", "crash", "field", {"null bytes", "ERR_INVALID_ARG_VALUE", "NUL in a string", "NUL in every string"}},
    {"hang-double-end", "hang", "structure", {}, "crash"},
    {"cross-stream-id", "isolation", "structure", {}},
    {"leak-stream", "memory", "timing", {}},
};

// The finding of a planted bug (a reproduced one first, when there are several).
const Json* finding_for(const Json& findings, const Planted& p, const std::string& oracle) {
  const Json* found = nullptr;
  for (const auto& f : findings) {
    if (f.value("oracle", "") != p.oracle && f.value("oracle", "") != oracle) continue;
    std::string text = f.value("signature", "");
    for (const auto& c : f.value("culprit", Json::array())) text += "\n" + c.get<std::string>();
    bool mine = p.marks.empty();
    for (const auto& m : p.marks) mine = mine || text.find(m) != std::string::npos;
    if (!mine) continue;
    if (f.value("reproduced", false)) return &f;
    if (found == nullptr) found = &f;
  }
  return found;
}

std::string campaign(const std::filesystem::path& out, std::uint16_t port, const std::string& extra) {
  return std::string(AC_CLI) + " fuzz --protocol agora --target ws://127.0.0.1:" + std::to_string(port) + "/agora/ws --config " +
         (kPeers / "agora_relay.target.json").string() + " --jobs 2 --seed 7 --probe-timeout 1500 --restart-timeout 20 --memory-limit 24" +
         " --report json --out " + out.string() + " " + extra + " > " + (out.string() + ".log") + " 2>&1";
}

std::string replay(const std::filesystem::path& file, std::uint16_t port, const std::string& extra, const std::filesystem::path& log) {
  return std::string(AC_CLI) + " fuzz --replay " + file.string() + " --target ws://127.0.0.1:" + std::to_string(port) + "/agora/ws --config " +
         (kPeers / "agora_relay.target.json").string() + " --probe-timeout 1500 --restart-timeout 20 --out " + log.parent_path().string() +
         "/replay-out " + extra + " >> " + log.string() + " 2>&1";
}

struct PeerCase {
  Planted planted;
  bool monitored;
};

class PeerBug : public ::testing::TestWithParam<PeerCase> {};

// A planted bug, found by a short campaign against a relay with that bug alone, and its
// reproducer: trips again on that relay (exit 1), not on the fixed one (exit 0).
TEST_P(PeerBug, FoundAndReplayed) {
  const Planted& p = GetParam().planted;
  const bool monitored = GetParam().monitored;
  const std::string mode = monitored ? "monitored" : "supervised";
  const auto dir = test::scratch("peer-" + p.bug + "-" + mode);
  const auto out = dir / "campaign";
  const std::uint16_t port = free_port();
  std::unique_ptr<process::Monitor> supervisor;
  std::string extra = "--duration 60 --max-findings 1 --families " + p.families;
  if (monitored) {
    extra += " --target-command \"" + relay_command(port, p.bug) + "\"";
  } else {
    supervisor = supervised(port, p.bug, dir);
    ASSERT_NE(supervisor, nullptr);
  }
  const auto started = std::chrono::steady_clock::now();
  const int code = rc(campaign(out, port, extra));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (supervisor) supervisor->stop();
  const std::string log = read_text(out.string() + ".log");
  std::cout << p.bug << " (" << mode << "): campaign took " << took << " s, exit " << code << "\n" << log << "\n";
  ASSERT_EQ(code, 1) << log;
  const Json results = Json::parse(read_text(out / "results.json"));
  const Json* f = finding_for(results["findings"], p, monitored ? p.oracle : p.supervised_oracle);
  ASSERT_NE(f, nullptr) << "no " << p.oracle << " finding for " << p.bug << "\n" << results["findings"].dump(1).substr(0, 6000);
  EXPECT_TRUE(f->value("reproduced", false)) << f->dump(1).substr(0, 3000);
  const std::filesystem::path file = (*f)["reproducer"]["file"].get<std::string>();
  std::cout << p.bug << ": [" << (*f)["oracle"].get<std::string>() << "] " << (*f)["signature"].get<std::string>() << " after "
            << f->value("found_after_s", 0.0) << " s, " << (*f)["steps"].size() << " steps (of " << f->value("original_steps", 0)
            << "), culprit " << f->value("culprit", Json::array()).dump() << "\n";
  const auto replay_log = dir / "replay.log";
  for (const std::string& bugs : {p.bug, std::string("none")}) {
    const int expected = bugs == "none" ? 0 : 1;
    // One replay each, no second chance: the executor makes the target see the session's order
    // (a connection switch waits for the last frame to be handled), so an interleaving bug
    // replays like any other.
    const std::uint16_t rport = free_port();
    std::unique_ptr<process::Monitor> sup;
    std::string args;
    if (monitored) {
      args = "--target-command \"" + relay_command(rport, bugs) + "\"";
    } else {
      sup = supervised(rport, bugs, dir / ("replay-" + bugs));
      ASSERT_NE(sup, nullptr);
    }
    std::ofstream(replay_log, std::ios::app) << "\n== replay of " << file.string() << " on --bugs " << bugs << "\n";
    const int got = rc(replay(file, rport, args, replay_log));
    if (sup) sup->stop();
    std::cout << "  replay on " << (bugs == "none" ? "the fixed relay" : "the relay with " + bugs) << ": exit " << got << "\n";
    EXPECT_EQ(got, expected) << "replay of " << file << " on --bugs " << bugs << "\n" << read_text(replay_log);
  }
  if (!HasFailure()) std::filesystem::remove_all(dir);
}

std::vector<PeerCase> peer_cases() {
  std::vector<PeerCase> out;
  for (bool monitored : {true, false}) {
    for (const auto& p : kPlanted) out.push_back({p, monitored});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Agora, PeerBug, ::testing::ValuesIn(peer_cases()), [](const auto& param_info) {
  std::string name = param_info.param.planted.bug + (param_info.param.monitored ? "_monitored" : "_supervised");
  for (auto& ch : name) if (ch == '-') ch = '_';
  return name;
});

// The fixed relay: a campaign of the same kind finds nothing.
TEST(PeerCampaignFixed, FixedRelayHasNoFinding) {
  const auto dir = test::scratch("peer-fixed");
  const auto out = dir / "campaign";
  const std::uint16_t port = free_port();
  const int code = rc(campaign(out, port, "--duration 15 --target-command \"" + relay_command(port, "none") + "\""));
  const std::string log = read_text(out.string() + ".log");
  std::cout << log << "\n";
  EXPECT_EQ(code, 0) << log;
  const Json results = Json::parse(read_text(out / "results.json"));
  EXPECT_TRUE(results["findings"].empty()) << results["findings"].dump(1).substr(0, 6000);
  EXPECT_GT(results["fuzz"]["sessions"].get<int>(), 50) << "the campaign ran";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ac::fuzz
