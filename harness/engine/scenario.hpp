// Suites and cases as loaded from suites/<protocol>/<suite>.json (validated against
// schemas/scenario.schema.json). Steps stay JSON: the case runner interprets them (see
// docs/scenarios.md for the vocabulary), so a case reads exactly as written.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

// Loads every suite file under suites_dir (suites/<protocol>/<suite>.json, not
// requirements.json), validating each against the scenario schema and checking that every
// requirement a case names exists in the catalogue and that case IDs are unique.
Expected<std::vector<Suite>, std::string> load_suites(const std::filesystem::path& suites_dir,
                                                      const RequirementCatalog& requirements);

}  // namespace ac::engine
