#include "harness/engine/scenario.hpp"

#include "harness/util/data_dir.hpp"

namespace ac::engine {
namespace {

// A case as written; the linter has checked every member this reads.
Case make_case(const Json& c, const SuiteDocument& file, const std::string& suite, const RequirementCatalog& requirements) {
  Case k;
  k.id = c.at("id").get<std::string>();
  k.title = c.at("title").get<std::string>();
  k.description = c.value("description", std::string());
  k.protocol = file.protocol;
  k.suite = suite;
  k.file = file.file;
  k.requirements = c.at("requirements").get<std::vector<std::string>>();
  k.level = c.value("level", requirements.strongest_level(k.requirements));
  k.tags = c.value("tags", std::vector<std::string>{});
  k.role = c.at("role").get<std::string>();
  k.features = c.value("features", std::vector<std::string>{});
  k.agents = c.value("agents", Json::object());
  k.ignore = c.value("ignore", Json::array());
  k.timeout = std::chrono::milliseconds(c.value("timeout_ms", 0));
  k.steps = c.at("steps");
  return k;
}

Expected<std::vector<Suite>, std::string> build(const LintResult& lint, const RequirementCatalog& requirements, bool with_builtin) {
  std::vector<Suite> suites;
  try {
    for (const auto& f : lint.suites) {
      if (lint.custom && f.builtin && !with_builtin) continue;
      Suite suite;
      suite.protocol = f.protocol;
      suite.name = f.doc.at("suite").get<std::string>();
      suite.file = f.file;
      suite.description = f.doc.value("description", std::string());
      for (const auto& c : f.doc.at("cases")) suite.cases.push_back(make_case(c, f, suite.name, requirements));
      suites.push_back(std::move(suite));
    }
  } catch (const std::exception& ex) {  // not reached after a clean lint; a guard, not a path
    return unexpected(std::string("suite files changed while loading: ") + ex.what());
  }
  return suites;
}

}  // namespace

Expected<SuiteSet, std::vector<Problem>> load_suite_dir(const std::filesystem::path& dir, const LoadOptions& options) {
  LintOptions lo;
  lo.dir = dir;
  lo.check_builtin_suites = options.with_builtin_cases;
  auto lint = lint_suites(lo);
  if (!lint) return unexpected(std::vector<Problem>{{dir.empty() ? std::string("suites") : dir.generic_string(), "", lint.error()}});
  if (!lint->problems.empty()) return unexpected(std::move(lint->problems));
  auto requirements = RequirementCatalog::load(lint->catalogue_dirs);
  if (!requirements) return unexpected(std::vector<Problem>{{"requirements.json", "", requirements.error()}});
  auto suites = build(*lint, *requirements, options.with_builtin_cases);
  if (!suites) return unexpected(std::vector<Problem>{{dir.generic_string(), "", suites.error()}});
  return SuiteSet{std::move(*requirements), std::move(*suites)};
}

Expected<std::vector<Suite>, std::string> load_suites(const std::filesystem::path& suites_dir, const RequirementCatalog& requirements) {
  LintOptions lo;
  lo.dir = suites_dir;
  auto lint = lint_suites(lo);
  if (!lint) return unexpected(lint.error());
  if (!lint->problems.empty()) {
    return unexpected(std::to_string(lint->problems.size()) + " problem(s) in the suites (agentconform lint lists them):\n" +
                      describe_problems(lint->problems));
  }
  return build(*lint, requirements, false);
}

}  // namespace ac::engine
