// agentconform compare OLD.json NEW.json [--fail-on must|should] [--json]
//   New failures, fixes and changed verdicts between two results files; exit 1 on a regression
//   (a case failing in NEW that did not fail, or did not exist, in OLD), 0 otherwise, 2 when a
//   file cannot be read.
// agentconform report RESULTS.json [MORE.json ...] [--report html,md,junit,json] [--report-dir DIR]
//   Renders reports from results files already written; with several files the HTML report
//   puts them side by side (comparing implementations). Both commands live here because both
//   work on results files only, never on a target.
#include <iostream>

#include "harness/cli/commands.hpp"
#include "reports/compare.hpp"
#include "reports/report.hpp"

namespace ac::cli {
namespace {

struct CompareCli {
  std::string old_file, new_file, fail_on = "must";
  bool json = false;
};

int run_compare(const CompareCli& o) {
  const auto policy = reports::parse_policy(o.fail_on);
  if (!policy) {
    std::cerr << "compare: --fail-on must be 'must' or 'should'\n";
    return 2;
  }
  auto old_doc = reports::load_results(o.old_file);
  if (!old_doc) {
    std::cerr << "compare: " << old_doc.error() << "\n";
    return 2;
  }
  auto new_doc = reports::load_results(o.new_file);
  if (!new_doc) {
    std::cerr << "compare: " << new_doc.error() << "\n";
    return 2;
  }
  const reports::Comparison c = reports::compare(*old_doc, *new_doc, *policy);
  if (o.json) {
    std::cout << reports::to_json(c).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << reports::to_text(c);
  }
  return c.exit_code();
}

struct ReportCli {
  std::vector<std::string> files;
  std::string report = "html,md";
  std::string report_dir = "agentconform-report";
};

int run_report(const ReportCli& o) {
  auto formats = reports::parse_formats(o.report);
  if (!formats) {
    std::cerr << "report: --report: " << formats.error() << "\n";
    return 2;
  }
  std::vector<reports::Source> sources;
  for (const auto& f : o.files) {
    auto doc = reports::load_results(f);
    if (!doc) {
      std::cerr << "report: " << doc.error() << "\n";
      return 2;
    }
    sources.push_back({f, std::move(*doc)});
  }
  auto written = reports::write_reports(o.report_dir, *formats, std::move(sources), nullptr);
  if (!written) {
    std::cerr << "report: " << written.error() << "\n";
    return 3;
  }
  for (const auto& f : *written) std::cout << "report: " << f.string() << "\n";
  return 0;
}

void add_compare(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CompareCli>();
  auto* cmd = app.add_subcommand("compare", "Compare two results files: new failures, fixes, changed verdicts (exit 1 on regressions)");
  cmd->add_option("old", o->old_file, "the earlier results.json")->required();
  cmd->add_option("new", o->new_file, "the later results.json")->required();
  cmd->add_option("--fail-on", o->fail_on, "must (default): FAIL and ERROR are failures; should: WARN too");
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([o, &ctx] { ctx.exit_code = run_compare(*o); });
}

void add_report(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ReportCli>();
  auto* cmd = app.add_subcommand("report", "Render reports from results files (several: side by side in the HTML report)");
  cmd->add_option("files", o->files, "results.json files")->required();
  cmd->add_option("--report", o->report, "formats: junit,json,html,md (json, junit and md use the first file)")->capture_default_str();
  cmd->add_option("--report-dir", o->report_dir, "output directory")->capture_default_str();
  cmd->callback([o, &ctx] { ctx.exit_code = run_report(*o); });
}

}  // namespace

AC_REGISTER_COMMAND(230, add_compare);
AC_REGISTER_COMMAND(231, add_report);

}  // namespace ac::cli
