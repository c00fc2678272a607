// agentconform lint [DIR] [--json]
// Checks a suite directory (default: the built-in suites/) for authoring errors before any case
// runs: unknown keys and matchers, requirement ids, `checks`, placeholders, duplicate ids,
// undeclared features, broken JSON. Prints each problem with its file and JSON Pointer and
// exits 1 when there is any, 0 with a one-line summary otherwise, 2 on a usage error.
#include <iostream>
#include <memory>
#include <string>

#include "harness/cli/commands.hpp"
#include "harness/engine/lint.hpp"

namespace ac::cli {
namespace {

struct LintCli {
  std::string dir;
  bool json = false;
};

int run_lint(const LintCli& o) {
  engine::LintOptions options;
  options.dir = o.dir;
  auto result = engine::lint_suites(options);
  if (!result) {
    std::cerr << "lint: " << result.error() << "\n";
    return 2;
  }
  if (o.json) {
    nlohmann::json out = {{"ok", result->problems.empty()},
                          {"summary", result->summary()},
                          {"suite_files", result->suite_files},
                          {"cases", result->cases},
                          {"catalogues", result->catalogues},
                          {"requirements", result->requirements},
                          {"problems", nlohmann::json::array()}};
    for (const auto& p : result->problems) out["problems"].push_back(p.to_json());
    std::cout << out.dump(1) << "\n";
  } else {
    for (const auto& p : result->problems) std::cout << p.describe() << "\n";
    std::cout << "lint: " << result->summary() << "\n";
  }
  return result->problems.empty() ? 0 : 1;
}

void add_lint(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<LintCli>();
  auto* cmd = app.add_subcommand("lint", "Check suites and requirement catalogues for authoring errors (exit 1 on any)");
  cmd->add_option("dir", o->dir,
                  "suite directory: <dir>/<protocol>/<name>.json (+ requirements.json); default: the built-in suites/");
  cmd->add_flag("--json", o->json, "JSON output: {ok, summary, counts, problems: [{file, pointer, message, line?, column?}]}");
  cmd->callback([o, &ctx] { ctx.exit_code = run_lint(*o); });
}

}  // namespace

AC_REGISTER_COMMAND(205, add_lint);

}  // namespace ac::cli
