// agentconform replay RESULTS.json --case ID [--json]
// Re-runs one case of a results file with the recorded seed and options (target, target.json,
// embedded lobby faults, timeout scale) and prints its verdict and wire transcript, to debug a
// failure seen in CI. Exit codes as `run` for that one case: 0 pass, 1 fail, 2 usage,
// 3 error or unreachable. Says whether the recorded verdict was reproduced.
#include <iomanip>
#include <iostream>

#include "harness/cli/commands.hpp"
#include "harness/embedded/targets.hpp"
#include "harness/engine/run.hpp"
#include "reports/baseline.hpp"
#include "reports/model.hpp"
#include "reports/report.hpp"
#include "reports/text.hpp"

namespace ac::cli {
namespace {

struct ReplayCli {
  std::string results_file, case_id;
  bool json = false;
};

// fnmatch pattern matching exactly `s` (ids may contain glob characters).
std::string literal_glob(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::vector<std::string> string_list(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

void print_transcript(const engine::CaseResult& c) {
  reports::Limits unlimited;
  unlimited.entry_bytes = unlimited.case_transcript_bytes = std::size_t(64) << 20;
  unlimited.case_entries = std::size_t(1) << 20;
  const auto t = reports::bound_transcript(&c.transcript, unlimited);
  for (const auto& e : t.entries) {
    const char* arrow = e.direction == "out" ? "->" : e.direction == "in" ? "<-" : "--";
    std::cout << "[" << std::fixed << std::setprecision(1) << std::setw(8) << e.t_ms << " ms] " << arrow << " "
              << reports::terminal_safe(e.channel) << " " << reports::terminal_safe(e.kind);
    if (e.code) std::cout << " " << *e.code;
    if (!e.data.empty()) std::cout << ": " << reports::terminal_safe(e.data, /*keep_newlines=*/true);
    std::cout << "\n";
  }
}

int run_replay(const ReplayCli& o) {
  auto doc = reports::load_results(o.results_file);
  if (!doc) {
    std::cerr << "replay: " << doc.error() << "\n";
    return 2;
  }
  const nlohmann::json* recorded = nullptr;
  for (const auto& c : (*doc)["cases"]) {
    if (reports::str(c, "id") == o.case_id) recorded = &c;
  }
  if (!recorded) {
    std::cerr << "replay: no case " << reports::terminal_safe(o.case_id) << " in " << o.results_file << "\n";
    return 2;
  }
  const nlohmann::json target = doc->value("target", nlohmann::json::object()).is_object() ? (*doc)["target"] : nlohmann::json::object();
  const nlohmann::json options = doc->value("options", nlohmann::json::object()).is_object() ? (*doc)["options"] : nlohmann::json::object();

  engine::RunOptions run;
  run.protocols = {reports::str(*recorded, "protocol")};
  run.case_globs = {literal_glob(o.case_id)};
  run.jobs = 1;
  if (auto s = doc->find("seed"); s != doc->end() && s->is_number_unsigned()) run.seed = s->get<std::uint64_t>();
  if (run.seed == 0) {
    std::cerr << "replay: the results file records no seed\n";
    return 2;
  }
  if (auto t = options.find("timeout_scale"); t != options.end() && t->is_number() && t->get<double>() > 0) {
    run.timeout_scale = t->get<double>();
  }
  if (reports::str(target, "kind") == "embedded") {
    run.lobby_faults = string_list(target, "faults");
  } else {
    run.target_url = reports::str(target, "url");
    run.target_config = reports::str(options, "target_config");
    if (run.target_url.empty()) {
      std::cerr << "replay: the results file records no target url\n";
      return 2;
    }
  }

  auto loaded = engine::load_all();
  if (!loaded) {
    std::cerr << "replay: " << loaded.error() << "\n";
    return 2;
  }
  auto plan = engine::make_plan(*loaded, run);
  if (!plan) {
    std::cerr << "replay: " << plan.error() << "\n";
    return 2;
  }
  if (plan->cases.size() != 1) {
    std::cerr << "replay: case " << reports::terminal_safe(o.case_id) << " is not in the current suites\n";
    return 2;
  }
  std::cout << "replay " << reports::terminal_safe(o.case_id) << " with seed " << run.seed << " against "
            << (run.target_url.empty() ? std::string("the embedded reference lobby") : reports::terminal_safe(run.target_url));
  if (!run.lobby_faults.empty()) {
    std::cout << " (faults:";
    for (const auto& f : run.lobby_faults) std::cout << " " << reports::terminal_safe(f);
    std::cout << ")";
  }
  std::cout << "\n";
  std::cout.flush();
  bool harness_error = false;
  auto targets = embedded::prepare_targets(*loaded, *plan, run, &harness_error);
  if (!targets) {
    std::cerr << "replay: " << reports::terminal_safe(targets.error(), true) << "\n";
    return harness_error ? 3 : 2;
  }
  auto outcome = engine::execute(*loaded, *plan, targets->targets, run);
  if (!outcome) {
    std::cerr << "replay: " << outcome.error() << "\n";
    return 2;
  }
  if (outcome->setup_error) {
    std::cerr << "replay: setup error: " << reports::terminal_safe(outcome->result.setup_error, true) << "\n";
    return 3;
  }
  const engine::CaseResult& c = outcome->result.cases.front();
  const std::string verdict = engine::verdict_name(c.verdict);
  const std::string before = reports::str(*recorded, "verdict");
  if (o.json) {
    std::cout << engine::to_json(c).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    print_transcript(c);
    std::cout << verdict << "  " << reports::terminal_safe(c.id) << "  " << reports::terminal_safe(c.title) << "\n";
    if (!c.reason.empty()) std::cout << "  " << reports::terminal_safe(c.reason) << "\n";
    if (c.failed_step) {
      std::cout << "  failing step " << c.failed_step->path << ": " << reports::terminal_safe(c.failed_step->message, true) << "\n";
    }
  }
  std::cout << (verdict == before ? "reproduced the recorded verdict " : "recorded verdict was ") << reports::terminal_safe(before)
            << "\n";
  const auto policy = reports::parse_policy(reports::str(options, "fail_on")).value_or(reports::Policy::must);
  if (outcome->target_unreachable || c.verdict == engine::Verdict::error) return 3;
  return reports::failing(verdict, policy) ? 1 : 0;
}

void add_replay(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ReplayCli>();
  auto* cmd = app.add_subcommand("replay", "Re-run one case of a results file with its recorded seed and options; print its transcript");
  cmd->add_option("results", o->results_file, "results.json of the earlier run")->required();
  cmd->add_option("--case", o->case_id, "the case id")->required();
  cmd->add_flag("--json", o->json, "print the case result as JSON instead of the transcript");
  cmd->callback([o, &ctx] { ctx.exit_code = run_replay(*o); });
}

}  // namespace

AC_REGISTER_COMMAND(232, add_replay);

}  // namespace ac::cli
