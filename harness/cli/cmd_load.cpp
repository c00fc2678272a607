// agentconform load --protocol P [--target URL] [--config F] [--agents N] (--rate R | --max)
//                   [--duration S] [--message-size B] [--streams K] [--slo LIST] [...]
// Load on a protocol's relay path (harness/load/, docs/performance.md): lost, duplicated,
// reordered and misdelivered messages per agent pair, latency from each message's intended send
// time, throughput over time, errors by code, connection failures; the four report formats.
// Without --target the embedded reference lobby is started in this process, as `run` does, with
// its rate limits lifted (load measures relaying, not the limiter) and, with --lobby-fault, one
// of its faults (the load-only ones are what `load` exists to catch).
// Exit codes as `run`: 0 passed, 1 a delivery anomaly or a missed objective, 2 usage or
// configuration, 3 target unreachable or harness error.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "harness/cli/commands.hpp"
#include "harness/embedded/embedded.hpp"
#include "harness/engine/driver.hpp"
#include "harness/engine/target.hpp"
#include "harness/engine/target_decl.hpp"
#include "harness/load/runner.hpp"
#include "reference/lobby/lobby.hpp"
#include "reports/load_report.hpp"
#include "reports/text.hpp"
#include "harness/util/data_dir.hpp"

namespace ac::cli {
namespace {

struct LoadCli {
  std::string protocol, target, config;
  std::size_t agents = 2, streams = 1, window = 64, threads = 1;
  std::string rate, duration = "10s", message_size, slo, drain = "10s", snapshot = "1s", scrape = "5s", metrics;
  bool max = false, quiet = false;
  std::vector<std::string> lobby_faults;
  std::string report = "junit,json,html,md", report_dir = "agentconform-load-report";
  double timeout_scale = 1.0;
};

int fail(const std::string& message, int code) {
  std::cerr << "load: " << reports::terminal_safe(message) << "\n";
  return code;
}

std::string thousands(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

// The progress line: on a terminal rewritten in place every snapshot; otherwise a line every
// five seconds (CI logs stay short).
class ProgressLine {
 public:
  explicit ProgressLine(bool quiet) : quiet_(quiet), tty_(::isatty(STDOUT_FILENO) != 0) {}
  void operator()(const load::Progress& p) {
    if (quiet_) return;
    char line[512];
    std::snprintf(line, sizeof line, "[%6.1fs/%.0fs %-5s] sent %s delivered %s | %s msg/s | p99 %.3f ms | dup %s reord %s misdel %s | errors %s conn-fail %s",
                  p.elapsed_s, p.duration_s, p.phase.c_str(), thousands(p.sent).c_str(), thousands(p.delivered).c_str(),
                  thousands(static_cast<std::uint64_t>(p.throughput)).c_str(), p.p99_ms, thousands(p.duplicated).c_str(),
                  thousands(p.reordered).c_str(), thousands(p.misdelivered).c_str(), thousands(p.errors).c_str(),
                  thousands(p.connection_failures).c_str());
    if (tty_) {
      std::cout << "\r\033[K" << line << std::flush;
      dirty_ = true;
    } else if (p.phase != last_phase_ || p.elapsed_s - last_s_ >= 5.0) {
      std::cout << line << "\n" << std::flush;
      last_s_ = p.elapsed_s;
    }
    last_phase_ = p.phase;
  }
  void done() {
    if (dirty_) std::cout << "\r\033[K" << std::flush;
  }

 private:
  bool quiet_, tty_, dirty_ = false;
  double last_s_ = -10;
  std::string last_phase_;
};

int run(LoadCli& o, CLI::App& cmd) {
  // Options: values and ranges (exit 2 naming the option).
  for (const char* name : {"--protocol", "--target", "--config", "--rate", "--duration", "--message-size", "--slo", "--drain",
                           "--snapshot", "--scrape", "--metrics", "--report-dir"}) {
    auto* opt = cmd.get_option_no_throw(name);
    if (opt != nullptr && opt->count() > 0 && opt->as<std::string>().empty()) return fail(std::string(name) + ": empty value", 2);
  }
  if (o.protocol.empty() && !o.config.empty()) o.protocol = engine::protocol_of_config(o.config);
  if (o.protocol.empty()) return fail("--protocol is required (alp, agora, agentprotocol, a2acp, chopsticks), or a --config whose target.json names it", 2);
  const auto protocol = proto::parse_protocol(o.protocol);
  if (!protocol) return fail("--protocol: unknown protocol '" + o.protocol + "' (alp, agora, agentprotocol, a2acp, chopsticks)", 2);
  if (o.max == !o.rate.empty()) return fail("give exactly one of --rate R (open loop, messages per second) and --max (closed loop)", 2);
  load::LoadOptions lo;
  lo.protocol = *protocol;
  lo.agents = o.agents;
  lo.streams = o.streams;
  lo.window = o.window;
  lo.threads = o.threads;
  lo.closed_loop = o.max;
  if (!o.rate.empty()) {
    auto r = load::parse_rate(o.rate);
    if (!r) return fail("--rate: " + r.error(), 2);
    lo.rate = *r;
  }
  auto duration = load::parse_duration(o.duration);
  if (!duration) return fail("--duration: " + duration.error(), 2);
  lo.duration = *duration;
  if (!o.message_size.empty()) {
    auto size = load::parse_size(o.message_size);
    if (!size) return fail("--message-size: " + size.error(), 2);
    if (*size == 0) return fail("--message-size must be at least 1", 2);
    lo.message_size = *size;
  }
  if (!o.slo.empty()) {
    auto slos = load::parse_slos(o.slo);
    if (!slos) return fail("--slo: " + slos.error(), 2);
    lo.slos = *slos;
  }
  for (auto [text, out, name] : {std::tuple{&o.drain, &lo.drain, "--drain"}, std::tuple{&o.snapshot, &lo.snapshot_every, "--snapshot"},
                                 std::tuple{&o.scrape, &lo.scrape_every, "--scrape"}}) {
    auto d = load::parse_duration(*text);
    if (!d) return fail(std::string(name) + ": " + d.error(), 2);
    *out = *d;
  }
  if (o.timeout_scale <= 0 || o.timeout_scale > 100) return fail("--timeout-scale must be more than 0 and at most 100", 2);
  lo.metrics_url = o.metrics;
  auto formats = reports::parse_formats(o.report);
  if (!formats) return fail("--report: " + formats.error(), 2);
  if (!o.lobby_faults.empty() && !o.target.empty()) return fail("--lobby-fault applies to the embedded lobby only (no --target)", 2);

  // The target: a third party's, as target.json says, or the embedded reference lobby.
  auto declarations = engine::Declarations::load(data_dir() / "suites");
  if (!declarations) return fail(declarations.error(), 3);
  std::unique_ptr<ref::Lobby> lobby;
  if (o.target.empty() && o.config.empty()) {
    ref::LobbyConfig config = embedded::lobby_config({o.protocol}, {o.lobby_faults.begin(), o.lobby_faults.end()});
    config.threads = 2;
    // Lifted limits: the embedded lobby's conformance set-up wants them small, a load run wants none.
    nlohmann::json& section = config.protocols[o.protocol];
    if (!section.is_object()) section = nlohmann::json::object();
    if (*protocol == proto::ProtocolId::alp) {
      section["token_ttl_s"] = 86400;
      section["rate_limit_messages"] = 0;
    }
    if (*protocol == proto::ProtocolId::agentprotocol) section["rate_limit"] = false;
    if (*protocol == proto::ProtocolId::a2acp) {
      section["rate_limit_per_agent"] = 0;
      section["rate_limit_per_collaboration"] = 0;
      section["rate_limit_global"] = 0;
      section["max_pending_requests_per_collaboration"] = 65536;
    }
    auto started = ref::Lobby::start(config);
    if (!started) {
      const bool bad_fault = started.error().find("unknown fault") != std::string::npos;
      return fail(std::string(bad_fault ? "--lobby-fault: " : "cannot start the embedded reference lobby: ") + started.error(), bad_fault ? 2 : 3);
    }
    lobby = std::move(*started);
    auto t = embedded::target_for(*declarations, o.protocol, lobby->config(), lobby->http_url(), lobby->ws_url());
    if (!t) return fail("the embedded lobby's target: " + t.error(), 3);
    lo.target = std::move(*t);
    lo.target_info = {{"kind", "embedded"}, {"url", lobby->http_url()}, {"faults", o.lobby_faults}};
  } else {
    auto t = engine::resolve_target(*declarations, {o.protocol, o.target, o.config});
    if (!t) return fail((o.config.empty() ? "--target: " : "--target/--config: ") + t.error(), 2);
    if (t->kind != "remote") return fail("--target: load needs a network target (ws://, wss://, http:// or https://)", 2);
    lo.target = std::move(*t);
    lo.target_info = {{"kind", "remote"}, {"url", lo.target.url}};
  }
  lo.target.timeout_scale = o.timeout_scale;

  const std::string label = lobby ? "the embedded reference lobby" : o.target;
  if (!o.quiet) {
    std::cout << "agentconform load: " << o.protocol << ", " << o.agents << " agents, "
              << (o.max ? std::string("closed loop (--max)") : "open loop at " + thousands(static_cast<std::uint64_t>(lo.rate)) + " msg/s")
              << " for " << o.duration << ", "
              << (lo.message_size != 0 ? std::to_string(lo.message_size) + "-byte messages" : std::string("messages of 256 bytes or the protocol's smallest"))
              << ", against " << reports::terminal_safe(label) << "\n"
              << std::flush;
  }
  ProgressLine line(o.quiet);
  auto result = load::run_load(lo, [&](const load::Progress& p) { line(p); });
  line.done();
  if (lobby) lobby->stop();
  if (!result) return fail(result.error().message, result.error().exit_code);
  const nlohmann::json& doc = *result;
  std::cout << reports::render_load_text(doc);
  auto written = reports::write_load_reports(o.report_dir, *formats, doc);
  if (!written) return fail(written.error(), 3);
  for (const auto& f : *written) std::cout << "report: " << f.string() << "\n";
  return load::exit_code_of(doc);
}

void add_load(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<LoadCli>();
  auto* cmd = app.add_subcommand("load", "Load a protocol's relay path: delivery guarantees, latency and throughput under load");
  cmd->add_option("--protocol,-p", o->protocol, "alp | agora | agentprotocol | a2acp | chopsticks");
  cmd->add_option("--target,-t", o->target, "ws[s]://host:port/path or http[s]://host:port (default: the embedded reference lobby)");
  cmd->add_option("--config,-c", o->config, "target.json (schemas/target.schema.json): paths, credentials, settings");
  cmd->add_option("--agents,-n", o->agents, "agents; they form agents/2 sender -> receiver pairs (Chopsticks: agents answering requests)")
      ->check(CLI::Range(1, 20000))
      ->capture_default_str();
  cmd->add_option("--rate,-r", o->rate, "open loop: messages per second over the whole run, e.g. 20000 or 20k");
  cmd->add_flag("--max", o->max, "closed loop: as fast as the target delivers (--window messages in flight per lane)");
  cmd->add_option("--duration,-d", o->duration, "how long messages are sent: 30s, 500ms, 2m, 1h (a soak)")->capture_default_str();
  cmd->add_option("--message-size,-s", o->message_size, "bytes of each message on the wire (frame text or HTTP body; default 256, or the protocol's smallest message when larger)");
  cmd->add_option("--streams,-k", o->streams, "lanes per pair: Agora streams, A2ACP collaborations, Chopsticks HTTP connections; "
                                              "ALP and AgentProtocol messages of one pair in K sequences")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--slo", o->slo, "objectives, e.g. p99<=5ms,p50<=1ms,throughput>=10000,errors<=0 (a miss exits 1)");
  cmd->add_option("--window", o->window, "closed loop: messages in flight per lane")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--threads", o->threads, "I/O threads of the load generator")->check(CLI::Range(1, 64))->capture_default_str();
  cmd->add_option("--drain", o->drain, "at most this long after the last message for those in flight")->capture_default_str();
  cmd->add_option("--snapshot", o->snapshot, "interval of the throughput/latency timeline and the progress line")->capture_default_str();
  cmd->add_option("--scrape", o->scrape, "interval of the target's /metrics samples")->capture_default_str();
  cmd->add_option("--metrics", o->metrics, "the target's Prometheus endpoint (default: <target>/metrics; 'none': do not sample)");
  cmd->add_option("--lobby-fault", o->lobby_faults, "embedded lobby only: break one rule (agentconform lobby --list-faults)");
  cmd->add_option("--timeout-scale", o->timeout_scale, "multiply the set-up timeouts")->capture_default_str();
  cmd->add_option("--report", o->report, "report formats: junit,json,html,md (any subset; 'none')")->capture_default_str();
  cmd->add_option("--report-dir", o->report_dir, "directory of the reports")->capture_default_str();
  cmd->add_flag("--quiet,-q", o->quiet, "no progress line");
  cmd->callback([o, &ctx, cmd] { ctx.exit_code = run(*o, *cmd); });
}

}  // namespace

AC_REGISTER_COMMAND(205, add_load);

}  // namespace ac::cli
