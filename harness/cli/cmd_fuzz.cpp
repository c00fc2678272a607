// agentconform fuzz --protocol P [--target URL] [--iterations N | --duration S] [--seed N]
//                   [--out DIR] [--lobby-fault NAME]...
// agentconform fuzz --replay FILE [--target URL] [--lobby-fault NAME]...
// The live protocol fuzzer (harness/fuzz/, docs/fuzzing.md). Without --target the reference lobby
// is started in this process (a crash of the target is a crash of the fuzzer for now).
// Exit codes: 0 no finding (replay: no longer trips), 1 findings (replay: still trips),
// 2 usage error, 3 target unreachable or harness error.
#include <iostream>
#include <random>

#include "harness/cli/commands.hpp"
#include "harness/fuzz/fuzz.hpp"
#include "harness/net/client.hpp"
#include "reference/lobby/lobby.hpp"

namespace ac::cli {
namespace {

struct FuzzCli {
  std::string protocol;
  std::string target;
  std::uint64_t iterations = 0;
  double duration_s = 0;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::string out_dir = "agentconform-fuzz";
  std::vector<std::string> lobby_faults;
  std::string replay;
  bool no_minimize = false;
};

// http(s)://host:port or ws(s)://host:port -> both bases.
std::optional<fuzz::Target> parse_target(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  fuzz::Target t;
  if (url.starts_with("http://") || url.starts_with("https://")) {
    t.http_base = url;
    t.ws_base = "ws" + url.substr(4);
  } else if (url.starts_with("ws://") || url.starts_with("wss://")) {
    t.ws_base = url;
    t.http_base = "http" + url.substr(2);
  } else {
    return std::nullopt;
  }
  return t;
}

struct StartedTarget {
  fuzz::Target target;
  fuzz::Json description;
  std::unique_ptr<ref::Lobby> lobby;
};

// --target, or the embedded lobby with the given faults.
int start_target(const std::string& url, const std::vector<std::string>& faults, StartedTarget& out) {
  if (!url.empty()) {
    auto t = parse_target(url);
    if (!t) {
      std::cerr << "fuzz: --target must be an http(s):// or ws(s):// URL\n";
      return 2;
    }
    out.target = *t;
    out.description = {{"kind", "url"}, {"url", url}};
    return 0;
  }
  ref::LobbyConfig config;
  for (const auto& f : faults) config.faults.insert(f);
  auto lobby = ref::Lobby::start(config);
  if (!lobby) {
    std::cerr << "fuzz: cannot start the embedded reference lobby: " << lobby.error() << "\n";
    return lobby.error().find("unknown fault") != std::string::npos ? 2 : 3;
  }
  out.lobby = std::move(*lobby);
  out.target = {out.lobby->http_url(), out.lobby->ws_url()};
  out.description = {{"kind", "embedded"}, {"url", out.lobby->http_url()}, {"faults", faults}};
  return 0;
}

int replay(const FuzzCli& o) {
  auto r = fuzz::load_reproducer(o.replay);
  if (!r) {
    std::cerr << "fuzz: " << r.error() << "\n";
    return 2;
  }
  std::vector<std::string> faults = o.lobby_faults;
  if (faults.empty() && o.target.empty() && r->target.value("kind", "") == "embedded") {
    const auto recorded = r->target.value("faults", fuzz::Json::array());
    if (recorded.is_array()) {
      for (const auto& f : recorded) {
        if (f.is_string()) faults.push_back(f.get<std::string>());
      }
    }
  }
  StartedTarget started;
  if (int rc = start_target(o.target, faults, started); rc != 0) return rc;
  net::Runtime runtime(1);
  fuzz::Executor executor(runtime, started.target, r->protocol);
  auto trip = executor.run(r->steps);
  if (started.lobby) started.lobby->stop();
  std::cout << "replay of " << o.replay << " (" << r->steps.size() << " steps, " << fuzz::protocol_name(r->protocol)
            << ", target " << started.description.dump() << ")\n";
  if (!trip) {
    std::cout << "does not trip any more (recorded: [" << r->oracle << "] " << r->signature << ")\n";
    return 0;
  }
  const bool same = trip->oracle == r->oracle && trip->signature == r->signature;
  std::cout << (same ? "still trips: [" : "trips differently: [") << trip->oracle << "] " << trip->signature << "\n  "
            << trip->detail << "\n";
  return 1;
}

int run_fuzz_command(const FuzzCli& o) {
  if (!o.replay.empty()) return replay(o);
  if (o.protocol.empty()) {
    std::cerr << "fuzz: --protocol is required (chopsticks or agora)\n";
    return 2;
  }
  auto protocol = fuzz::parse_protocol(o.protocol);
  if (!protocol) {
    std::cerr << "fuzz: " << protocol.error() << "\n";
    return 2;
  }
  StartedTarget started;
  if (int rc = start_target(o.target, o.lobby_faults, started); rc != 0) return rc;
  fuzz::FuzzOptions options;
  options.protocol = *protocol;
  options.target = started.target;
  options.target_description = started.description;
  options.seed = o.seed_given ? o.seed : std::random_device{}() * 4294967296ull + std::random_device{}();
  options.iterations = o.iterations;
  options.duration_s = o.duration_s;
  if (options.iterations == 0 && options.duration_s <= 0) options.iterations = 500;
  options.out_dir = o.out_dir;
  options.minimize = !o.no_minimize;
  options.progress = [](const std::string& line) { std::cout << "fuzz: " << line << std::endl; };
  std::cout << "fuzz: protocol " << o.protocol << ", target " << started.description.dump() << ", seed " << options.seed
            << " (replay the sequence with --seed " << options.seed << ")" << std::endl;
  net::Runtime runtime(1);
  const auto report = fuzz::run_fuzz(runtime, options);
  if (started.lobby) started.lobby->stop();
  std::cout << "fuzz: " << report.sessions << " sessions, " << report.frames << " frames in " << report.seconds << " s ("
            << static_cast<std::uint64_t>(static_cast<double>(report.frames) / std::max(report.seconds, 1e-9)) << " frames/s, "
            << static_cast<std::uint64_t>(static_cast<double>(report.sessions) / std::max(report.seconds, 1e-9))
            << " sessions/s), " << report.findings.size() << " finding(s)\n";
  for (const auto& f : report.findings) {
    std::cout << "  [" << f.trip.oracle << "] " << f.trip.signature << "\n    " << f.trip.detail << "\n    session "
              << f.iteration << ", " << f.original.size() << " -> " << f.minimized.size() << " steps";
    if (!f.file.empty()) std::cout << ", reproducer " << f.file.string();
    std::cout << "\n";
  }
  return report.findings.empty() ? 0 : 1;
}

void add_fuzz(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<FuzzCli>();
  auto* cmd = app.add_subcommand("fuzz", "Fuzz a live target with mutated protocol sessions (chopsticks, agora)");
  cmd->add_option("--protocol", o->protocol, "chopsticks | agora");
  cmd->add_option("--target", o->target, "base URL of the target (default: the embedded reference lobby)");
  cmd->add_option("--iterations", o->iterations, "sessions to run (default 500 when no --duration)");
  cmd->add_option("--duration", o->duration_s, "seconds to run");
  auto* seed = cmd->add_option("--seed", o->seed, "seed of the generator (default: random, printed)");
  cmd->add_option("--out", o->out_dir, "directory for reproducers")->capture_default_str();
  cmd->add_option("--lobby-fault", o->lobby_faults, "start the embedded lobby with this fault (repeatable)");
  cmd->add_option("--replay", o->replay, "replay one reproducer; exit 1 if it still trips, 0 if not");
  cmd->add_flag("--no-minimize", o->no_minimize, "keep findings as generated");
  cmd->callback([o, seed, &ctx] {
    o->seed_given = seed->count() > 0;
    ctx.exit_code = run_fuzz_command(*o);
  });
}

}  // namespace

AC_REGISTER_COMMAND(95, add_fuzz);

}  // namespace ac::cli
