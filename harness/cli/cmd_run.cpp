// agentconform run [--protocol P] [--target URL] [--config target.json] [filters] [--jobs N] ...
// Runs the conformance suites. Without --target, every suite of every protocol runs against the
// embedded reference lobby (the README's main job).
#include <iostream>

#include "harness/cli/commands.hpp"
#include "harness/cli/io.hpp"
#include "harness/engine/run.hpp"

namespace ac::cli {
namespace {

struct RunCli {
  engine::RunOptions run;
  std::string results_file = "agentconform-report/results.json";
  std::string fail_on = "must";
  int deadline_s = 0;
};

int exit_code_for(const engine::RunOutcome& outcome, const std::string& fail_on) {
  bool gated = false, error = false;
  for (const auto& c : outcome.result.cases) {
    gated |= c.verdict == engine::Verdict::fail;
    gated |= fail_on == "should" && c.verdict == engine::Verdict::warn;
    error |= c.verdict == engine::Verdict::error;
  }
  if (gated) return 1;
  if (error) return 3;
  return 0;
}

int run(RunCli& o) {
  if (o.fail_on != "must" && o.fail_on != "should") {
    std::cerr << "run: --fail-on must be 'must' or 'should'\n";
    return 2;
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
  if (!o.results_file.empty()) {
    std::error_code ec;
    const auto parent = std::filesystem::path(o.results_file).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    auto written = write_file(o.results_file, engine::to_json(outcome->result, loaded->requirements).dump(1) + "\n");
    if (!written) {
      std::cerr << "run: " << written.error() << "\n";
      return 3;
    }
    std::cout << "results: " << o.results_file << "\n";
  }
  return exit_code_for(*outcome, o.fail_on);
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
  cmd->add_option("--results", o->results_file, "where to write the JSON results (empty: not written)")->capture_default_str();
  cmd->add_option("--fail-on", o->fail_on, "must (default): FAIL gates; should: WARN gates too");
  cmd->add_flag("--list", o->run.list_only, "list the cases that would run, and exit");
  cmd->add_flag("--quiet,-q", o->run.quiet, "no per-case progress lines");
  cmd->callback([o, &ctx] { ctx.exit_code = run(*o); });
}

}  // namespace

AC_REGISTER_COMMAND(200, add_run);

}  // namespace ac::cli
