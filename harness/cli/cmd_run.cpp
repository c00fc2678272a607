// agentconform run [--protocol P] [--target URL] [--config target.json] [--target-command CMD] [filters] [--jobs N] ...
//                  [--report junit,json,html,md] [--report-dir DIR] [--baseline FILE [--update-baseline]]
// Runs the conformance suites. Without --target, every suite of every protocol runs against the
// embedded reference lobby (the README's main job). A preflight checks the target first. Writes
// the reports (reports/) and exits with the gate's code (reports/baseline.hpp; docs/ci.md):
// 0 conformant under the policy, 1 a gated failure, a regression or too little MUST coverage,
// 2 usage or configuration error (also: no case was executed), 3 setup error (the preflight
// failed), target unreachable or harness error, 130/143 interrupted (SIGINT/SIGTERM).
#include <iostream>
#include <map>
#include <sstream>

#include "harness/cli/commands.hpp"
#include "harness/cli/validators.hpp"
#include "harness/cli/interrupt.hpp"
#include "harness/cli/io.hpp"
#include "harness/cli/run_output.hpp"
#include "harness/cli/target_watch.hpp"
#include "harness/embedded/targets.hpp"
#include "harness/engine/run.hpp"
#include "reports/baseline.hpp"
#include "reports/report.hpp"
#include "reports/text.hpp"

namespace ac::cli {
namespace {

struct RunCli {
  engine::RunOptions run;
  std::string results_file;  // "" = <report-dir>/results.json when the json report is selected
  std::string fail_on = "must";
  int deadline_s = 0;
  std::string report = "junit,json,html,md";
  std::string report_dir = "agentconform-report";
  std::string baseline_file;
  bool update_baseline = false;
  double min_must_coverage = -1;  // percent; < 0: no gate
  bool target_given = false;      // --target was on the command line (even empty)
  std::string color = "auto";
  bool quiet = false;
  std::string target_command;     // --target-command: started, watched and restarted by agentconform
  int target_start_timeout_s = 30;
};

int run(RunCli& o) {
  const auto policy = reports::parse_policy(o.fail_on);
  if (!policy) {
    std::cerr << "run: --fail-on must be 'must' or 'should'\n";
    return 2;
  }
  auto formats = reports::parse_formats(o.report);
  if (!formats) {
    std::cerr << "run: --report: " << formats.error() << "\n";
    return 2;
  }
  // The baseline is read before the run, so a broken baseline fails fast (exit 2).
  std::optional<reports::Baseline> baseline;
  if (o.update_baseline && o.baseline_file.empty()) {
    std::cerr << "run: --update-baseline needs --baseline FILE (the file to write)\n";
    return 2;
  }
  if (!o.baseline_file.empty()) {
    std::error_code ec;
    if (o.update_baseline && !std::filesystem::exists(o.baseline_file, ec)) {
      baseline = reports::Baseline{};
    } else {
      auto text = read_input(o.baseline_file, 64u << 20);
      if (!text) {
        std::cerr << "run: --baseline: " << text.error().message << "\n";
        return 2;
      }
      auto doc = nlohmann::json::parse(*text, nullptr, false);
      if (doc.is_discarded()) {
        std::cerr << "run: --baseline: " << o.baseline_file << " is not valid JSON\n";
        return 2;
      }
      auto parsed = reports::baseline_from_json(doc);
      if (!parsed) {
        std::cerr << "run: --baseline " << o.baseline_file << ": " << parsed.error() << "\n";
        return 2;
      }
      baseline = std::move(*parsed);
    }
  }
  if (o.target_given && o.run.target_url.empty()) {
    std::cerr << "run: --target is empty: give ws[s]://host:port/path, http[s]://host:port, exec:'COMMAND' or dir:PATH, or leave --target out "
                 "to test the embedded reference lobby\n";
    return 2;
  }
  Style style;
  if (std::string error; !parse_color(o.color, style, error)) {
    std::cerr << "run: " << error << "\n";
    return 2;
  }
  if (o.min_must_coverage > 100) {
    std::cerr << "run: --min-must-coverage is a percentage from 0 to 100\n";
    return 2;
  }
  o.run.deadline = std::chrono::seconds(o.deadline_s);
  auto loaded = engine::load_all(o.run.suites_dir);
  if (!loaded) {
    std::cerr << "run: " << reports::terminal_safe(loaded.error(), true) << "\n";
    return 2;
  }
  // target.json may name the protocol; --config alone then selects it.
  if (o.run.protocols.empty() && !o.run.target_config.empty()) {
    if (const std::string p = engine::protocol_of_config(o.run.target_config); !p.empty()) {
      o.run.protocols = {p};
    } else if (auto t = engine::resolve_target(loaded->declarations, {"", "", o.run.target_config}); !t) {
      // Unreadable, too large or malformed: say so rather than ask for --protocol.
      std::cerr << "run: " << reports::terminal_safe(t.error(), true) << "\n";
      return 2;
    }
  }
  if (embedded::third_party(o.run) && o.run.protocols.size() != 1) {
    std::cerr << "run: a third-party target needs exactly one --protocol (alp, agora, agentprotocol, a2acp, chopsticks)\n";
    return 2;
  }
  auto plan = engine::make_plan(*loaded, o.run);
  if (!plan) {
    std::cerr << "run: " << reports::terminal_safe(plan.error()) << "\n";
    return 2;
  }
  if (o.run.list_only) {
    for (const auto* c : plan->cases) {
      std::cout << c->id << "\t" << c->protocol << "\t" << c->suite << "\t" << c->level << "\t" << c->title << "\n";
    }
    std::cout << plan->cases.size() << " cases\n";
    return 0;
  }
  if (plan->cases.empty()) {
    std::cerr << "run: no case matches the filters\n";
    return 2;
  }
  bool harness_error = false;
  auto targets = embedded::prepare_targets(*loaded, *plan, o.run, &harness_error);
  if (!targets) {
    std::cerr << "run: " << reports::terminal_safe(targets.error(), true) << "\n";
    if (!harness_error) std::cerr << "run: the target settings are documented in docs/targets.md (and `agentconform doctor` checks them)\n";
    return harness_error ? 3 : 2;
  }
  std::cout << "agentconform: " << plan->cases.size() << " cases against " << reports::terminal_safe(targets->label()) << "\n";
  for (const auto& [p, t] : targets->targets) {
    for (const auto& w : t.warnings) std::cout << style.paint("warning:", "33") << " " << reports::terminal_safe(w) << "\n";
    if (!targets->embedded()) {
      const nlohmann::json endpoints = t.describe()["endpoints"];  // items() of a temporary would dangle
      for (const auto& [name, url] : endpoints.items()) {
        std::cout << "  " << name << ": " << reports::terminal_safe(url.get<std::string>()) << "\n";
      }
    }
  }
  std::unique_ptr<engine::TargetWatch> watch;
  if (!o.target_command.empty()) {
    if (targets->embedded()) {
      std::cerr << "run: --target-command starts a target of your own: give its address with --target (or target.json)\n";
      return 2;
    }
    TargetWatchOptions w;
    w.protocol = plan->cases.front()->protocol;
    w.url = o.run.target_url;
    w.config_file = o.run.target_config;
    w.command = o.target_command;
    w.work_dir = std::filesystem::path(o.report_dir) / "target";
    w.start_timeout = std::chrono::seconds(o.target_start_timeout_s);
    std::cout << "target: starting " << reports::terminal_safe(o.target_command) << " (its output: " << (w.work_dir / "target.log").string() << ")\n";
    std::cout.flush();
    auto started = start_target_watch(w);
    if (!started) {
      std::cerr << "run: " << reports::terminal_safe(started.error(), true) << "\n";
      return 3;
    }
    watch = std::move(*started);
    o.run.watch = watch.get();
  }
  std::cout.flush();
  o.run.interrupt = &catch_interrupts();
  RunPrinter printer(std::cout, style, loaded->requirements, o.quiet);
  const bool embedded_target = targets->embedded();
  auto outcome = engine::execute(
      *loaded, *plan, targets->targets, o.run,
      [&](const engine::CaseResult& r, std::size_t done, std::size_t total) { printer.on_case(r, done, total); },
      [&](const engine::TargetConfig& t, const nlohmann::json& preflight) {
        // A passing preflight of the embedded lobby is not news; anything else is shown whole.
        if (!embedded_target || !preflight.value("ok", false)) print_preflight(std::cout, style, t.protocol, preflight);
      });
  printer.finish_progress();
  if (!outcome) {
    std::cerr << "run: " << outcome.error() << "\n";
    return 2;
  }
  if (outcome->setup_error) {
    std::cout << "\n" << style.paint("setup error", "1;31") << ": the target is not set up as the protocol needs, so no case ran (exit 3).\n  "
              << reports::terminal_safe(outcome->result.setup_error, true) << "\n";
  } else {
    printer.summary(outcome->result);
  }
  // What replay needs to repeat a case besides the seed and the filters.
  outcome->result.options["fail_on"] = o.fail_on;
  outcome->result.options["target_config"] = o.run.target_config;
  outcome->result.options["lobby_faults"] = o.run.lobby_faults;
  nlohmann::json doc = engine::to_json(outcome->result, loaded->requirements);
  // The reports show each case's steps next to its transcript: add them from the suites.
  std::map<std::string, const engine::Case*> by_id;
  for (const auto* c : plan->cases) by_id.emplace(c->id, c);
  for (auto& c : doc["cases"]) {
    if (auto it = by_id.find(c.value("id", std::string())); it != by_id.end()) {
      c["description"] = it->second->description;
      c["steps"] = it->second->steps;
    }
  }

  const std::string today = reports::utc_today();
  if (o.update_baseline && (outcome->target_unreachable || outcome->setup_error || o.run.interrupt->load() != 0)) {
    std::cerr << "run: the run is incomplete (setup error, unreachable target or interrupt); the baseline is left unchanged\n";
  } else if (o.update_baseline) {
    baseline = reports::update_baseline(&*baseline, doc, *policy, today);
    const std::string text = reports::to_json(*baseline, reports::utc_now()).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (auto w = write_file(o.baseline_file, text); !w) {
      std::cerr << "run: " << w.error() << "\n";
      return 3;
    }
    std::cout << "baseline: " << o.baseline_file << " updated (" << baseline->entries.size() << " entries)\n";
  }
  reports::Gate gate = reports::evaluate(doc, baseline ? &*baseline : nullptr, *policy, today, outcome->target_unreachable);
  gate.baseline_file = o.baseline_file;
  // What the gate of verdicts does not see: a setup error, a run that executed nothing, too
  // little MUST coverage, an interrupt. Each overrides the exit code, with its reason.
  const double coverage = outcome->result.coverage.value("must", nlohmann::json::object()).value("percent", 100.0);
  const bool none_applicable = outcome->result.coverage.value("must", nlohmann::json::object()).value("none_applicable", false);
  if (outcome->setup_error) {
    gate.exit_code = 3;
    gate.summary = "setup error: " + outcome->result.setup_error.substr(0, outcome->result.setup_error.find('\n'));
  } else if (outcome->executed == 0) {
    gate.exit_code = 2;
    gate.summary = "no case was executed: every selected case is NOT_APPLICABLE or ERROR (see the reasons above)";
  } else if (o.min_must_coverage >= 0 && none_applicable && gate.exit_code == 0) {
    gate.exit_code = 1;
    gate.summary = "MUST coverage: none applicable (no MUST applies to the roles declared), so --min-must-coverage cannot be met";
  } else if (o.min_must_coverage >= 0 && coverage < o.min_must_coverage && gate.exit_code == 0) {
    gate.exit_code = 1;
    std::ostringstream why;
    why << "MUST coverage " << coverage << "% is below --min-must-coverage " << o.min_must_coverage << "%";
    gate.summary = why.str();
  }
  if (outcome->target_deaths > 0 && !outcome->setup_error && gate.exit_code < 2) {
    // A message must never kill the target, whatever the cases' verdicts say.
    const bool verdicts_clean = gate.exit_code == 0;
    gate.exit_code = 1;
    gate.summary = "not conformant: " + std::to_string(outcome->target_deaths) + " target death" + (outcome->target_deaths == 1 ? "" : "s") +
                   " (crash or hang) during the run: see the target deaths above" + (verdicts_clean ? std::string() : "; " + gate.summary);
  }
  if (const int sig = o.run.interrupt->load(); sig != 0) {
    gate.exit_code = interrupted_exit_code(sig);
    gate.summary = "interrupted by " + outcome->result.interrupted + ": the reports cover the cases that ran";
  }

  std::vector<reports::Format> selected = *formats;
  std::string label = targets->embedded() ? std::string("embedded reference lobby") : targets->label();
  // --results FILE puts the JSON results elsewhere than the report directory.
  if (!o.results_file.empty()) {
    std::erase(selected, reports::Format::json);
    const auto parent = std::filesystem::path(o.results_file).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (auto w = write_file(o.results_file, reports::render_json(doc, &gate)); !w) {
      std::cerr << "run: " << w.error() << "\n";
      return 3;
    }
    std::cout << "results: " << o.results_file << "\n";
  }
  auto written = reports::write_reports(o.report_dir, selected, {{label, std::move(doc)}}, &gate);
  if (!written) {
    std::cerr << "run: " << written.error() << "\n";
    return 3;
  }
  for (const auto& f : *written) std::cout << "report: " << f.string() << "\n";
  std::cout << "gate: " << reports::terminal_safe(gate.summary) << " (exit " << gate.exit_code << ")\n";
  return gate.exit_code;
}

void add_run(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<RunCli>();
  auto* cmd = app.add_subcommand("run", "Run the conformance suites against a target (default: the embedded reference lobby)");
  cmd->add_option("--protocol,-p", o->run.protocols, "alp | agora | agentprotocol | a2acp | chopsticks (repeatable)");
  auto* target = cmd->add_option("--target,-t", o->run.target_url, "ws[s]://host:port/path, http[s]://host:port, exec:'COMMAND' or dir:PATH");
  cmd->add_option("--config,-c", o->run.target_config, "target.json (schemas/target.schema.json)")->check(NonEmpty());
  cmd->add_option("--suite,-s", o->run.suites, "lifecycle | handshake | contract-negotiation | streaming | version-rejection | error-codes");
  cmd->add_option("--case", o->run.case_globs, "case id glob, e.g. 'CHOP-VER-*' (repeatable)");
  cmd->add_option("--tag", o->run.tags, "only cases with this tag (repeatable)");
  cmd->add_option("--level", o->run.levels, "only cases of this level: MUST | SHOULD | MAY (repeatable)");
  cmd->add_option("--suites", o->run.suites_dir, "a directory of custom suites (DIR/<protocol>/<suite>.json; docs/scenarios.md) run beside the built-in ones");
  cmd->add_option("--jobs,-j", o->run.jobs,
                  "cases run in parallel (default: 32 against the embedded lobby, 4 against a third-party target; target.json limits caps connections)")
      ->check(Jobs());
  cmd->add_option("--preflight", o->run.preflight,
                  "default: a setup mistake stops the run (exit 3), an entry point that breaks the spec is a FAIL and its cases BLOCKED; "
                  "strict: any failed check stops it; warn: nothing stops it; off: no preflight")
      ->check(CLI::IsMember({"default", "strict", "warn", "off"}));
  cmd->add_flag("--strict-order", o->run.strict_order,
                "a FAIL that does not recur when its case runs again alone (order-dependent) gates as a FAIL (default: as a WARN)");
  cmd->add_option("--timeout-scale", o->run.timeout_scale, "multiply every step and case timeout (a slow target: 2, 5)")
      ->capture_default_str()
      ->check(TimeoutScale());
  cmd->add_option("--seed", o->run.seed, "seed of the run (printed; repeat a run with it)");
  cmd->add_option("--deadline", o->deadline_s, "overall deadline in seconds (0: none)")->check(CLI::Range(0, 31536000));
  cmd->add_option("--lobby-fault", o->run.lobby_faults, "embedded lobby only: break one rule (see agentconform lobby --list-faults)");
  cmd->add_option("--results", o->results_file, "write the JSON results here instead of REPORT_DIR/results.json")->check(NonEmpty());
  cmd->add_option("--report", o->report, "report formats: junit,json,html,md (any subset; 'none')")->capture_default_str();
  cmd->add_option("--report-dir", o->report_dir, "directory of the reports")->capture_default_str()->check(NonEmpty());
  cmd->add_option("--baseline", o->baseline_file, "known failures (schemas/baseline.schema.json): tolerated; fixed ones fail the run");
  cmd->add_flag("--update-baseline", o->update_baseline, "write the current failures to --baseline FILE (keeps reasons and expiry)");
  cmd->add_option("--fail-on", o->fail_on, "must (default): FAIL gates; should: WARN gates too");
  cmd->add_flag("--list", o->run.list_only, "list the cases that would run, and exit");
  cmd->add_flag("--quiet,-q", o->quiet, "no per-case progress lines");
  cmd->add_flag("--strict-readings", o->run.strict_readings,
                "a failed requirement that rests on agentconform's reading of a silent spec gates like a MUST (default: like a SHOULD)");
  cmd->add_option("--min-must-coverage", o->min_must_coverage, "exit 1 when fewer than PCT % of the spec's MUSTs that apply were tested")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--target-command", o->target_command,
                  "start the target with this shell command, watch it, and restart it after a crash or hang (needs --target)")
      ->check(NonEmpty());
  cmd->add_option("--target-start-timeout", o->target_start_timeout_s, "seconds the --target-command target has to answer its liveness probe")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  cmd->add_option("--color", o->color, "auto (default: on a terminal, unless NO_COLOR is set), always or never")->capture_default_str();
  cmd->callback([o, target, &ctx] {
    o->target_given = target->count() > 0;
    ctx.exit_code = run(*o);
  });
}

}  // namespace

AC_REGISTER_COMMAND(200, add_run);

}  // namespace ac::cli
