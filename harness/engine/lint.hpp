// Authoring checks of suite directories: `agentconform lint [DIR]` and the suite loader (so `run`
// refuses a broken case with its file and JSON Pointer instead of turning it into a FAIL).
//
// A suite directory holds DIR/<protocol>/<name>.json suite files and, per protocol, optionally
// requirements.json (a requirement catalogue). The built-in directory (data_dir()/suites) also
// holds each protocol's variables.json (what its driver offers cases) and target-settings.json
// (the declaration of target settings and features). A custom directory is checked against the
// built-in one: its catalogues extend the built-in catalogues, its cases must not reuse built-in
// case ids, and the built-in variables and features apply (docs/scenarios.md, "Custom suite
// directories").
//
// What is checked, each problem with its file and JSON Pointer: JSON syntax (line and column);
// schemas/scenario.schema.json, requirements.schema.json and variables.schema.json, with
// did-you-mean for unknown keys and values; step keys per step kind and per protocol driver;
// matchers (check_pattern); requirement ids a case names, `checks` ids among the case's
// requirements, duplicate case and requirement ids, undeclared features; agent names; trigger
// names; every ${...} placeholder defined where it is used.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/util/expected.hpp"

namespace ac::engine {

using Json = nlohmann::json;

struct Problem {
  std::string file;     // as shown to the user: "suites/alp/error-codes.json", "my-cases/alp/x.json"
  std::string pointer;  // JSON Pointer into the file ("" = the whole file)
  std::string message;  // what is wrong and what to do
  std::size_t line = 0;    // JSON syntax errors: 1-based line and column of the error; 0 otherwise
  std::size_t column = 0;

  // "suites/alp/error-codes.json /cases/3/steps/2: unknown key 'expct' (did you mean 'expect'?)"
  std::string describe() const;
  Json to_json() const;
};

// One problem per line (all of them).
std::string describe_problems(const std::vector<Problem>& problems);

struct LintOptions {
  std::filesystem::path dir;          // the directory to check; empty: the built-in suites directory
  std::filesystem::path builtin_dir;  // empty: data_dir() / "suites"
  std::filesystem::path schema_dir;   // empty: data_dir() / "schemas"
  std::string display;                // how dir's files are named in problems; empty: "suites" for
                                      // the built-in directory, otherwise dir as given
  // For a custom directory: check the built-in suite files too (otherwise only their case ids
  // are read, to refuse custom cases that reuse one; `agentconform lint` checks them itself).
  bool check_builtin_suites = false;
};

// A suite file as read (valid only when LintResult::problems is empty).
struct SuiteDocument {
  std::string protocol;  // its directory
  std::string file;      // as shown to the user (Case::file)
  bool builtin = true;   // false: a file of a custom directory
  Json doc;
};

struct LintResult {
  std::vector<Problem> problems;
  bool custom = false;  // the checked directory is not the built-in one
  // The directories whose <protocol>/requirements.json make up the catalogue: the built-in one,
  // then the custom one (RequirementCatalog::load).
  std::vector<std::filesystem::path> catalogue_dirs;
  std::vector<SuiteDocument> suites;  // built-in suite files first, then the custom directory's
  std::size_t suite_files = 0;        // of the checked directory
  std::size_t cases = 0;              // of the checked directory
  std::size_t catalogues = 0;         // every catalogue read
  std::size_t requirements = 0;

  // "447 cases in 28 suite files, 5 requirement catalogues (1123 requirements): no problems"
  std::string summary() const;
};

// Checks a suite directory. The error is a usage problem (no such directory, the schemas are
// missing); everything wrong inside the files is a Problem in the result.
Expected<LintResult, std::string> lint_suites(const LintOptions& options);

}  // namespace ac::engine
