// agentconform run [--protocol P] [--target URL] [--config target.json] [filters] [--jobs N] ...
//                  [--report junit,json,html,md] [--report-dir DIR] [--baseline FILE [--update-baseline]]
// Runs the conformance suites. Without --target, every suite of every protocol runs against the
// embedded reference lobby (the README's main job). Writes the reports (reports/) and exits with
// the gate's code (reports/baseline.hpp; docs/ci.md): 0 conformant under the policy, 1 a gated
// failure or regression, 2 usage or configuration error, 3 target unreachable or harness error.
#include <iostream>
#include <map>

#include "harness/cli/commands.hpp"
#include "harness/cli/io.hpp"
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
        std::cerr << "run: --baseline: " << text.error() << "\n";
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
  o.run.deadline = std::chrono::seconds(o.deadline_s);
  auto loaded = engine::load_all();
  if (!loaded) {
    std::cerr << "run: " << loaded.error() << "\n";
    return 2;
  }
  auto plan = engine::make_plan(*loaded, o.run);
  if (!plan) {
    std::cerr << "run: " << plan.error() << "\n";
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
  std::cout << "agentconform: " << plan->cases.size() << " cases against "
            << (o.run.target_url.empty() ? std::string("the embedded reference lobby") : o.run.target_url) << "\n";
  std::cout.flush();
  auto outcome = engine::execute(*loaded, *plan, o.run, std::cout);
  if (!outcome) {
    std::cerr << "run: " << outcome.error() << "\n";
    return 2;
  }
  engine::print_summary(outcome->result, std::cout);
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
  if (o.update_baseline && outcome->target_unreachable) {
    std::cerr << "run: the target was unreachable; the baseline is left unchanged\n";
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

  std::vector<reports::Format> selected = *formats;
  std::string label = o.run.target_url.empty() ? std::string("embedded reference lobby") : o.run.target_url;
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
  cmd->add_option("--target,-t", o->run.target_url, "ws[s]://host:port/path, http[s]://host:port, exec:'COMMAND' or dir:PATH");
  cmd->add_option("--config,-c", o->run.target_config, "target.json (schemas/target.schema.json)");
  cmd->add_option("--suite,-s", o->run.suites, "lifecycle | handshake | contract-negotiation | streaming | version-rejection | error-codes");
  cmd->add_option("--case", o->run.case_globs, "case id glob, e.g. 'CHOP-VER-*' (repeatable)");
  cmd->add_option("--tag", o->run.tags, "only cases with this tag (repeatable)");
  cmd->add_option("--level", o->run.levels, "only cases of this level: MUST | SHOULD | MAY (repeatable)");
  cmd->add_option("--jobs,-j", o->run.jobs, "cases run in parallel (default: the number of cores)");
  cmd->add_option("--timeout-scale", o->run.timeout_scale, "multiply every step and case timeout")->capture_default_str();
  cmd->add_option("--seed", o->run.seed, "seed of the run (printed; repeat a run with it)");
  cmd->add_option("--deadline", o->deadline_s, "overall deadline in seconds (0: none)");
  cmd->add_option("--lobby-fault", o->run.lobby_faults, "embedded lobby only: break one rule (see agentconform lobby --list-faults)");
  cmd->add_option("--results", o->results_file, "write the JSON results here instead of REPORT_DIR/results.json");
  cmd->add_option("--report", o->report, "report formats: junit,json,html,md (any subset; 'none')")->capture_default_str();
  cmd->add_option("--report-dir", o->report_dir, "directory of the reports")->capture_default_str();
  cmd->add_option("--baseline", o->baseline_file, "known failures (schemas/baseline.schema.json): tolerated; fixed ones fail the run");
  cmd->add_flag("--update-baseline", o->update_baseline, "write the current failures to --baseline FILE (keeps reasons and expiry)");
  cmd->add_option("--fail-on", o->fail_on, "must (default): FAIL gates; should: WARN gates too");
  cmd->add_flag("--list", o->run.list_only, "list the cases that would run, and exit");
  cmd->add_flag("--quiet,-q", o->run.quiet, "no per-case progress lines");
  cmd->callback([o, &ctx] { ctx.exit_code = run(*o); });
}

}  // namespace

AC_REGISTER_COMMAND(200, add_run);

}  // namespace ac::cli
