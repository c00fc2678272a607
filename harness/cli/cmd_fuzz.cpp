// agentconform fuzz --protocol P [--target URL [--config target.json] [--target-command CMD]]
//                   [--duration S | --iterations N] [--seed N] [--jobs N] [--out DIR] [--families LIST]
//                   [--max-findings N] [--no-minimize] [--lobby-fault NAME]... [--probe-timeout MS]
//                   [--restart-timeout S] [--memory-limit MIB] [--report LIST]
// agentconform fuzz --replay FILE [--times N] [--target URL [--config target.json] [--target-command CMD]] [--lobby-fault NAME]...
// agentconform fuzz --serve --protocol P --listen ADDR [--command CMD] [--duration S] [--seed N]
// The live protocol fuzzer (harness/fuzz/, docs/fuzzing.md). Without --target the reference
// lobby runs as a child process (a crash or hang of it is a finding, and it is restarted); with
// --target-command the command is started, watched and restarted the same way.
// Exit codes: 0 no finding (replay: no longer trips), 1 findings (replay: trips the same way),
// 2 usage or configuration error, 3 target unreachable or harness error, 4 (replay only): trips,
// but differently (another oracle or signature).
#include <unistd.h>

#include <csignal>
#include <ctime>
#include <mutex>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

#include "harness/cli/commands.hpp"
#include "harness/cli/validators.hpp"
#include "harness/engine/preflight.hpp"
#include "harness/engine/results.hpp"
#include "harness/fuzz/fuzz.hpp"
#include "harness/fuzz/hostile_hub.hpp"
#include "harness/fuzz/target.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "reports/report.hpp"
#include "harness/util/redact.hpp"
#include "reports/text.hpp"

namespace ac::cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_interrupt(int) { g_stop = true; }

struct FuzzCli {
  std::string protocol;
  std::string target;
  std::string config;
  std::uint64_t iterations = 0;
  double duration_s = 0;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::size_t jobs = 1;
  std::string out_dir = "agentconform-fuzz";
  std::vector<std::string> lobby_faults;
  std::string replay;
  int times = 3;
  bool no_minimize = false;
  std::size_t max_findings = 0;
  std::string families = "all";
  int probe_timeout_ms = 5000;
  std::string report = "json,junit,html,md";
  bool serve = false;
  std::string listen = "127.0.0.1:0";
  std::string command;
  std::string target_command;
  double restart_timeout_s = 30;
  double memory_limit_mib = 64;
};

constexpr int kReplayTripsDifferently = 4;

// "[14:02:07 +12.3 s]": wall clock and time into the campaign, on every progress and finding line.
std::string stamp(double seconds) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%02d:%02d:%02d +%.1f s]", tm.tm_hour, tm.tm_min, tm.tm_sec, seconds);
  return buf;
}

// What a target sent, fit for a terminal: credentials redacted, control bytes (escape sequences)
// as \xNN; newlines and tabs stay.
std::string printable(const std::string& s) { return reports::terminal_safe(s, /*keep_newlines=*/true); }

std::filesystem::path self_executable() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("agentconform") : exe;
}

Expected<fuzz::FuzzTarget, fuzz::TargetError> open(const FuzzCli& o, fuzz::Protocol protocol, const std::vector<std::string>& faults) {
  fuzz::TargetRequest r;
  r.protocol = protocol;
  r.url = o.target;
  r.config_file = o.config;
  r.faults = faults;
  r.executable = self_executable();
  r.work_dir = std::filesystem::path(o.out_dir) / (o.target_command.empty() ? "lobby" : "target");
  r.probe_timeout = std::chrono::milliseconds(std::max(100, o.probe_timeout_ms));
  r.command = o.target_command;
  r.start_timeout = std::chrono::milliseconds(static_cast<long long>(std::max(1.0, o.restart_timeout_s) * 1000));
  return fuzz::open_target(r);
}

// Before any finding can mean something: a third-party target passes the same preflight as
// `run` (reachable, TLS as the scheme says, entry points, credentials accepted; a setup mistake
// is exit 3 naming the setting to fix, not a campaign of false findings), and every target
// answers the known-good probe (a target started by --target-command was already awaited until
// it did).
// A setup mistake is exit 3; a target whose entry point answers but breaks the protocol (the
// preflight's conformance failure, a known-good session the target does not carry) is exit 1:
// that is a finding about the target, and no session can get past it.
struct SetupProblem {
  std::string what;
  int exit_code = 3;
};

std::optional<SetupProblem> setup_problem(fuzz::FuzzTarget& target, fuzz::Protocol protocol) {
  const std::string doctor = "\n  (agentconform doctor --protocol " + std::string(fuzz::protocol_name(protocol)) + " --target " +
                             target.view.config.url + " prints every check)";
  if (target.view.config.kind == "remote") {
    engine::PreflightOptions po;
    po.timeout = std::max(std::chrono::milliseconds(5000), target.view.probe_timeout);
    const auto checked = engine::preflight(target.view.config, *target.view.runtime, po);
    if (!checked.setup_ok()) return SetupProblem{"setup error, nothing was fuzzed: " + checked.summary() + doctor, 3};
    if (!checked.ok()) {
      return SetupProblem{"the target breaks the protocol at its entry point, so no session gets past it: " + checked.summary() +
                              "\n  (agentconform run reports it as a FAIL, with the cases it blocks)",
                          1};
    }
  }
  if (target.command) return std::nullopt;
  fuzz::Executor first(target.view, protocol);
  if (auto trip = first.probe()) {
    return SetupProblem{"the target does not carry the known-good session (the liveness probe): [" + trip->oracle + "] " + trip->signature + ": " +
                            trip->detail + "\n  it answers, so this is the target's failure, not a setting's (agentconform run names the requirement)",
                        1};
  }
  return std::nullopt;
}

// A target that dies a moment after a session's last message is still that session's death
// (run's death watch gives it the same grace): the process, then the liveness probe, once more.
std::optional<fuzz::Trip> after_grace(fuzz::Guard& guard, process::Monitor* monitor) {
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  if (monitor != nullptr && !monitor->alive()) {
    return guard.classify(fuzz::Trip{"crash", "the target went down", "it ended just after the session's last step", "exited"});
  }
  if (auto trip = guard.check()) return guard.classify(std::move(*trip));
  return std::nullopt;
}

int replay(const FuzzCli& o) {
  auto r = fuzz::load_reproducer(o.replay);
  if (!r) {
    std::cerr << "fuzz: --replay: " << printable(r.error()) << "\n";
    return 2;
  }
  std::vector<std::string> faults = o.lobby_faults;
  if (faults.empty() && o.target.empty() && fuzz::string_at(r->target, {"kind"}) == "embedded") {
    const auto recorded = fuzz::at_path(r->target, {"faults"});
    for (const auto& f : recorded.is_array() ? recorded : fuzz::Json::array()) {
      if (f.is_string()) faults.push_back(f.get<std::string>());
    }
  }
  auto target = open(o, r->protocol, faults);
  if (!target) {
    std::cerr << "fuzz: " << printable(target.error().message) << "\n";
    return target.error().exit_code;
  }
  if (auto problem = setup_problem(*target, r->protocol)) {
    std::cerr << "fuzz: " << printable(problem->what) << "\n";
    target->stop();
    return 3;
  }
  fuzz::ExecOptions exec;
  exec.record_transcript = true;
  // After every run, the liveness probe and the health endpoint: a target that dies or hangs
  // just after the last step has tripped (a campaign probes every few sessions; a replay that
  // did so passed on the very target that crashed).
  exec.probe_every = 1;
  exec.health_every = 1;
  fuzz::Executor executor(target->view, r->protocol, exec);
  fuzz::GuardOptions go;
  go.restart_timeout = std::chrono::milliseconds(static_cast<long long>(std::max(1.0, o.restart_timeout_s) * 1000));
  fuzz::Guard guard(target->view, r->protocol, target->monitor, go);
  fuzz::Judge judge(executor, &guard);
  std::cout << "replay of " << o.replay << " (" << r->steps.size() << " steps, " << fuzz::protocol_name(r->protocol) << ", target "
            << printable(target->description.dump()) << ")\n";
  // Every run from a fresh target (restarted, with a monitor), all N of them: a bug that depends
  // on how the target interleaves connections does not trip every time, and "trips k of N" is
  // what a maintainer needs to know whether a fix holds.
  std::optional<fuzz::Trip> same, other;
  int tripped_same = 0, tripped_other = 0, runs = 0;
  if (r->oracle == "memory") {
    executor.options().probe = false;
    if (!guard.measures_memory()) {
      std::cerr << "fuzz: a memory finding replays only where the target's memory can be read (--target-command, or settings.metrics_path)\n";
      target->stop();
      return 3;
    }
    if (fuzz::leaks(executor, guard, r->steps, 4, 256.0 * 1024)) same = fuzz::Trip{r->oracle, r->signature, "the memory grew with every run", ""};
    runs = 1;
    tripped_same = same ? 1 : 0;
  } else {
    for (; runs < o.times; ++runs) {
      if (!guard.fresh()) {
        std::cerr << "fuzz: the target did not answer the liveness probe before run " << runs + 1 << " of " << o.times << "\n";
        target->stop();
        return 3;
      }
      auto trip = judge.run(r->steps);
      if (!trip && (r->oracle == "crash" || r->oracle == "hang" || r->oracle == "liveness")) trip = after_grace(guard, target->monitor);
      if (trip && trip->oracle == r->oracle && trip->signature == r->signature) {
        ++tripped_same;
        if (!same) same = trip;
      } else if (trip) {
        ++tripped_other;
        if (!other) other = trip;
      }
      if (o.times > 1) {
        std::cout << "  run " << runs + 1 << " of " << o.times << ": "
                  << (!trip ? std::string("no trip") : "[" + trip->oracle + "] " + printable(trip->signature)) << "\n";
      }
    }
  }
  for (const auto& e : executor.transcript()) {
    std::cout << "  " << std::fixed << std::setprecision(1) << std::setw(8) << e.value("t_ms", 0.0) << " ms  " << std::setw(2)
              << e.value("channel", "") << " " << (e.value("direction", "") == "out" ? ">>" : e.value("direction", "") == "in" ? "<<" : "..")
              << " " << printable(e.value("kind", "")) << (e.contains("code") ? " " + std::to_string(e["code"].get<long long>()) : "") << "  "
              << printable(fuzz::shorten(redact(e.value("data", "")), 300)) << "\n";
  }
  target->stop();
  const std::string of = std::to_string(runs);
  if (same) {
    std::cout << "trips " << tripped_same << " of " << of << " the same way: [" << same->oracle << "] " << printable(same->signature) << "\n  "
              << printable(same->detail) << "\n";
    if (tripped_other > 0) std::cout << "  (and " << tripped_other << " of " << of << " otherwise: [" << other->oracle << "] " << printable(other->signature) << ")\n";
    return 1;
  }
  if (other) {
    std::cout << "trips " << tripped_other << " of " << of << ", differently: [" << other->oracle << "] " << printable(other->signature) << "\n  "
              << printable(other->detail) << "\n  (recorded: [" << r->oracle << "] " << printable(r->signature) << ")\n";
    return kReplayTripsDifferently;
  }
  std::cout << "trips 0 of " << of << ": does not trip any more (recorded: [" << r->oracle << "] " << printable(r->signature) << ")\n";
  return 0;
}

// The results document (agentconform-results/1) of a fuzzing run, for the report writers.
fuzz::Json results_document(const fuzz::FuzzOptions& options, const fuzz::FuzzReport& report, const std::string& started,
                            const std::string& setup_error = "") {
  engine::RunResult r;
  r.setup_error = setup_error;
  r.started_at = started;
  r.finished_at = proto::typed::utc_now();
  r.duration_ms = report.seconds * 1000;
  r.seed = options.seed;
  r.target = options.target_description;
  r.options = {{"command", "fuzz"}, {"protocol", fuzz::protocol_name(options.protocol)}, {"jobs", options.jobs},
               {"families", fuzz::families_text(options.families)}, {"iterations", options.iterations},
               {"duration_s", options.duration_s}};
  for (std::size_t i = 0; i < report.findings.size(); ++i) r.findings.push_back(fuzz::finding_json(options, report.findings[i], i + 1));
  r.fuzz = {{"protocol", fuzz::protocol_name(options.protocol)},
                 {"seed", options.seed},
                 {"sessions", report.sessions},
                 {"frames", report.frames},
                 {"seconds", report.seconds},
                 {"frames_per_second", static_cast<double>(report.frames) / std::max(report.seconds, 1e-9)},
                 {"harness_errors", report.harness_errors},
                 {"generating_seconds", report.generating_seconds},
                 {"generating_frames_per_second", static_cast<double>(report.frames) / std::max(report.generating_seconds, 1e-9)},
                 {"incidents", report.incidents},
                 {"restarts", report.restarts},
                 {"target_lost", report.target_lost},
                 {"families", fuzz::Json::array()},
                 {"target", options.target_description}};
  const std::string families = fuzz::families_text(options.families);
  for (std::size_t at = 0; at < families.size();) {
    const auto comma = std::min(families.find(',', at), families.size());
    r.fuzz["families"].push_back(families.substr(at, comma - at));
    at = comma + 1;
  }
  return engine::to_json(r, engine::RequirementCatalog{});
}

int run_fuzz_command(const FuzzCli& given) {
  if (!given.replay.empty()) return replay(given);
  FuzzCli o = given;
  // target.json may name the protocol, as for run: --config alone then selects it.
  if (o.protocol.empty() && !o.config.empty()) o.protocol = engine::protocol_of_config(o.config);
  if (o.protocol.empty()) {
    std::cerr << "fuzz: --protocol is required (alp, agora, agentprotocol, a2acp, chopsticks), or a --config whose target.json names it\n";
    return 2;
  }
  auto protocol = fuzz::parse_protocol(o.protocol);
  if (!protocol) {
    std::cerr << "fuzz: " << protocol.error() << "\n";
    return 2;
  }
  auto families = fuzz::parse_families(o.families);
  if (!families) {
    std::cerr << "fuzz: --families: " << families.error() << "\n";
    return 2;
  }
  auto formats = reports::parse_formats(o.report);
  if (!formats) {
    std::cerr << "fuzz: --report: " << formats.error() << "\n";
    return 2;
  }
  const std::uint64_t seed = o.seed_given ? o.seed : (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  if (o.serve) {
    fuzz::HostileHubOptions h;
    h.protocol = *protocol;
    h.listen = o.listen;
    h.command = o.command;
    h.seed = seed;
    h.duration_s = o.duration_s > 0 ? o.duration_s : 30;
    h.log = [](const std::string& line) { std::cout << "fuzz --serve: " << printable(line) << std::endl; };
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    h.stop = &g_stop;
    return fuzz::run_hostile_hub(h);
  }
  auto target = open(o, *protocol, o.lobby_faults);
  if (!target) {
    std::cerr << "fuzz: " << printable(target.error().message) << "\n";
    return target.error().exit_code;
  }
  fuzz::FuzzOptions options;
  options.protocol = *protocol;
  options.target = target->view;
  options.monitor = target->monitor;
  options.scope = fuzz::Scope::of(target->view.config);
  options.restart_timeout = std::chrono::milliseconds(static_cast<long long>(std::max(1.0, o.restart_timeout_s) * 1000));
  options.memory_limit_bytes = std::max(1.0, o.memory_limit_mib) * 1024 * 1024;
  options.target_description = target->description;
  options.seed = seed;
  options.iterations = o.iterations;
  options.duration_s = o.duration_s;
  if (options.iterations == 0 && options.duration_s <= 0) options.iterations = 500;
  options.jobs = std::max<std::size_t>(1, o.jobs);
  options.out_dir = o.out_dir;
  options.minimize = !o.no_minimize;
  options.max_findings = o.max_findings;
  options.families = *families;
  // The setup must be right before any finding can mean something; when it is not, the reports
  // still say so (setup_error), as run's do after a failed preflight.
  if (auto problem = setup_problem(*target, *protocol)) {
    {
      const std::string what = problem->what;
      std::cerr << "fuzz: " << printable(what) << "\n";
      target->stop();
      if (!formats->empty()) {
        const fuzz::Json doc = results_document(options, fuzz::FuzzReport{}, proto::typed::utc_now(), redact(what));
        if (auto written = reports::write_reports(o.out_dir, *formats, {{o.protocol + " fuzzing", doc}}, nullptr)) {
          for (const auto& f : *written) std::cout << "fuzz: wrote " << f.string() << "\n";
        }
      }
      return problem->exit_code;
    }
  }
  const bool tty = ::isatty(STDOUT_FILENO) != 0;
  auto last_line = std::chrono::steady_clock::now();
  // One line per call in a terminal (rewritten in place); otherwise a line at least every 5 s,
  // whatever the phase, so a log never goes quiet while a finding is being minimized.
  std::mutex out_mu;
  auto campaign_start = std::chrono::steady_clock::now();
  options.progress = [tty, &last_line, &out_mu](const fuzz::Progress& p) {
    std::ostringstream line;
    line << stamp(p.seconds) << " " << p.phase << (p.detail.empty() ? "" : " (" + printable(p.detail) + ")") << ": sessions " << p.sessions
         << ", frames " << p.frames << " ("
         << static_cast<std::uint64_t>(static_cast<double>(p.frames) / std::max(p.generating_seconds, 1e-9)) << "/s generating), findings "
         << p.findings;
    std::lock_guard lock(out_mu);
    if (tty) {
      std::cout << "\r\033[Kfuzz: " << line.str() << std::flush;  // a live counter line
    } else if (std::chrono::steady_clock::now() - last_line >= std::chrono::milliseconds(4900)) {
      last_line = std::chrono::steady_clock::now();
      std::cout << "fuzz: " << line.str() << std::endl;  // plain periodic lines in CI logs
    }
  };
  options.log = [tty, &out_mu, &campaign_start](const std::string& line) {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - campaign_start).count();
    std::lock_guard lock(out_mu);
    std::cout << (tty ? "\r\033[K" : "") << "fuzz: " << stamp(t) << " " << printable(line) << std::endl;
  };
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  options.stop = &g_stop;
  std::cout << "fuzz: protocol " << o.protocol << ", target " << printable(target->description.dump()) << ", families "
            << fuzz::families_text(options.families) << ", jobs " << options.jobs << ", seed " << seed << " (repeat with --seed " << seed
            << ")" << std::endl;
  const std::string started = proto::typed::utc_now();
  campaign_start = std::chrono::steady_clock::now();
  const auto report = fuzz::run_fuzz(options);
  if (tty) std::cout << "\r\033[K";
  target->stop();
  // The closing line: the throughput of the generation itself (the rest of the time went to
  // incidents: attribution, minimization, verification).
  std::cout << "fuzz: " << report.sessions << " sessions, " << report.frames << " frames in " << std::fixed << std::setprecision(1)
            << report.seconds << " s, of which " << report.generating_seconds << " s generating: "
            << static_cast<std::uint64_t>(static_cast<double>(report.frames) / std::max(report.generating_seconds, 1e-9))
            << " frames/s, " << static_cast<std::uint64_t>(static_cast<double>(report.sessions) / std::max(report.generating_seconds, 1e-9))
            << " sessions/s spent generating; " << report.incidents << " incident(s), " << report.restarts << " restart(s); "
            << report.findings.size() << " finding(s)\n";
  if (report.target_lost) std::cout << "fuzz: the target did not come back after an incident; the campaign ended early\n";
  // The findings as the report writers escape them (a target's bytes never reach the terminal raw).
  const fuzz::Json doc = results_document(options, report, started);
  if (!report.findings.empty()) std::cout << reports::render_fuzz_text(doc);
  if (!formats->empty()) {
    auto written = reports::write_reports(o.out_dir, *formats, {{o.protocol + " fuzzing", doc}}, nullptr);
    if (!written) {
      std::cerr << "fuzz: cannot write the reports: " << written.error() << "\n";
      return 3;
    }
    for (const auto& f : *written) std::cout << "fuzz: wrote " << f.string() << "\n";
  }
  if (report.harness_errors > 0) {
    std::cout << "fuzz: " << report.harness_errors << " session(s) failed inside the fuzzer itself (see the log above)\n";
    if (report.findings.empty()) return 3;
  }
  return report.findings.empty() ? 0 : 1;
}

void add_fuzz(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<FuzzCli>();
  auto* cmd = app.add_subcommand("fuzz", "Fuzz a live target (or, with --serve, a client) with mutated protocol sessions");
  cmd->add_option("--protocol", o->protocol, "alp | agora | agentprotocol | a2acp | chopsticks");
  cmd->add_option("--target", o->target, "base URL of the target (default: the embedded reference lobby)")->check(NonEmpty());
  cmd->add_option("--config", o->config, "target.json: paths, credentials, settings of a third-party target")->check(NonEmpty());
  cmd->add_option("--iterations", o->iterations, "sessions to run (default 500 when no --duration)")->check(CLI::Range(1, 100000000));
  cmd->add_option("--duration", o->duration_s, "seconds to run")->check(CLI::Range(0.001, 31536000.0));
  auto* seed = cmd->add_option("--seed", o->seed, "seed of the generator (default: random, printed)");
  cmd->add_option("--jobs", o->jobs, "sessions run in parallel")->capture_default_str()->check(Jobs());
  cmd->add_option("--out", o->out_dir, "directory for reproducers and reports")->capture_default_str()->check(NonEmpty());
  cmd->add_option("--lobby-fault", o->lobby_faults, "start the embedded lobby with this fault (repeatable)");
  cmd->add_option("--replay", o->replay, "replay one reproducer; exit 1 if it trips the same way, 4 if differently, 0 if not")->check(NonEmpty());
  auto* times = cmd->add_option("--times", o->times, "--replay: runs, each from a fresh target; prints \"trips k of N\"")->capture_default_str()->check(CLI::Range(1, 1000));
  cmd->add_option("--target-command", o->target_command,
                  "start the target with this shell command (it must serve --target), restart it after a crash or hang, "
                  "and record its exit and output as evidence")->check(NonEmpty());
  cmd->add_option("--restart-timeout", o->restart_timeout_s, "seconds a (re)started target may take to answer the liveness probe")
      ->capture_default_str()->check(CLI::Range(1.0, 3600.0));
  cmd->add_option("--memory-limit", o->memory_limit_mib, "MiB of memory growth over the run that counts as unbounded (memory oracle)")
      ->capture_default_str()->check(CLI::Range(1.0, 1048576.0));
  cmd->add_option("--max-findings", o->max_findings, "stop after this many distinct reproduced findings (default: run the budget)")->check(CLI::Range(1, 100000));
  cmd->add_option("--families", o->families, "mutation families: field,structure,framing,timing,auth or all")->capture_default_str();
  cmd->add_option("--probe-timeout", o->probe_timeout_ms, "ms a live target has to answer a probe or ping")->capture_default_str()->check(CLI::Range(100, 600000));
  cmd->add_option("--report", o->report, "report formats written into --out (json,junit,html,md; none)")->capture_default_str();
  cmd->add_flag("--no-minimize", o->no_minimize, "keep findings as generated");
  cmd->add_flag("--serve", o->serve, "play a hostile hub toward a client under test instead");
  cmd->add_option("--listen", o->listen, "--serve: HOST:PORT to listen on")->capture_default_str()->check(ListenAddress());
  cmd->add_option("--command", o->command, "--serve: start the client under test (AGENTCONFORM_URL and AGENTCONFORM_HTTP in its environment; agentprotocol: AGENTCONFORM_PEER_ID, the hub's agentId)");
  cmd->callback([o, seed, times, &ctx] {
    o->seed_given = seed->count() > 0;
    if (times->count() > 0 && o->replay.empty()) {
      std::cerr << "fuzz: --times counts the runs of a --replay; give --replay FILE too\n";
      ctx.exit_code = 2;
      return;
    }
    ctx.exit_code = run_fuzz_command(*o);
  });
}

}  // namespace

AC_REGISTER_COMMAND(95, add_fuzz);

}  // namespace ac::cli
