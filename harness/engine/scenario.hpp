// Suites and cases as loaded from suites/<protocol>/<suite>.json, or from a custom suite
// directory (DIR/<protocol>/<name>.json). Loading runs every check of `agentconform lint`
// (lint.hpp) first: a broken case is refused with its file and JSON Pointer, never turned into
// a FAIL at run time. Steps stay JSON: the case runner interprets them (see docs/scenarios.md
// for the vocabulary), so a case reads exactly as written.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/engine/lint.hpp"
#include "harness/engine/requirements.hpp"
#include "harness/util/expected.hpp"

namespace ac::engine {

using Json = nlohmann::json;

inline const std::vector<std::string>& suite_names() {
  static const std::vector<std::string> names = {"lifecycle", "handshake", "contract-negotiation",
                                                 "streaming", "version-rejection", "error-codes"};
  return names;
}

struct Case {
  std::string id;
  std::string title;
  std::string description;
  std::string protocol;
  std::string suite;
  std::string file;  // repository-relative path of the suite file
  std::vector<std::string> requirements;
  std::string level;  // explicit, or the strongest level of its requirements
  std::vector<std::string> tags;
  std::string role;
  std::vector<std::string> features;
  Json agents = Json::object();  // name -> properties
  Json ignore = Json::array();   // patterns every expect skips
  std::chrono::milliseconds timeout{0};  // 0: the run's default
  Json steps = Json::array();
};

struct Suite {
  std::string protocol;
  std::string name;
  std::string file;
  std::string description;
  std::vector<Case> cases;
};

struct SuiteSet {
  RequirementCatalog requirements;  // the built-in catalogues, extended by a custom directory's
  std::vector<Suite> suites;
};

struct LoadOptions {
  bool with_builtin_cases = false;  // for a custom directory: load the built-in cases too
};

// The one entry point for loading cases: the built-in suites (dir empty, or data_dir()/suites)
// or a custom suite directory (`run --suites DIR`): DIR/<protocol>/<name>.json suite files and
// optional DIR/<protocol>/requirements.json catalogues that extend the built-in ones. Only
// DIR's cases are returned unless options.with_builtin_cases. Every problem lint finds is
// returned (a usage problem such as a missing directory is one Problem naming the directory).
Expected<SuiteSet, std::vector<Problem>> load_suite_dir(const std::filesystem::path& dir = {}, const LoadOptions& options = {});

// Compatibility: the suites of suites_dir (checked as load_suite_dir checks them), with levels
// from `requirements`; the error lists every problem, one per line.
Expected<std::vector<Suite>, std::string> load_suites(const std::filesystem::path& suites_dir,
                                                      const RequirementCatalog& requirements);

}  // namespace ac::engine
