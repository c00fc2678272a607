// Fault injection: `agentconform lobby --fault NAME` makes the reference lobby break exactly one
// rule, so that a suite can be shown to detect it. The catalogue of faults is data, one file per
// protocol next to its hub (reference/<protocol>/faults.json): name, protocol, suite theme, the
// requirement IDs it breaks, and what it does. Hubs read their faults once at construction
// (FaultSet::on).
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/util/expected.hpp"

namespace ac::ref {

struct FaultInfo {
  std::string name;         // "<protocol>.<rule>", e.g. "chopsticks.version.accept-any"
  std::string protocol;     // alp | agora | agentprotocol | a2acp | chopsticks
  std::string suite;        // lifecycle | handshake | contract-negotiation | streaming | version-rejection | error-codes
  std::string kind;         // "rule" (breaks a spec rule) or "planted-bug" (crash, hang, leak: for the fuzzer)
  std::vector<std::string> breaks;  // requirement IDs from suites/<protocol>/requirements.json
  std::string description;
  // The schema-derived cases (suites/<protocol>/generated/, tag "generated") kill it: the kill
  // matrix runs them for such faults only, to keep its run short (docs/generated-cases.md).
  bool generated_cases = false;
};

class FaultCatalog {
 public:
  // Loads every reference/<protocol>/faults.json under `reference_dir`.
  static Expected<FaultCatalog, std::string> load(const std::filesystem::path& reference_dir);
  static const FaultCatalog& builtin();  // data_dir()/reference, loaded once

  const std::vector<FaultInfo>& all() const { return faults_; }
  const FaultInfo* find(std::string_view name) const;

 private:
  std::vector<FaultInfo> faults_;
};

class FaultSet {
 public:
  FaultSet() = default;
  // Fails on a name the catalogue does not know, so a typo never silently tests nothing.
  static Expected<FaultSet, std::string> from(const std::set<std::string>& names, const FaultCatalog& catalog);
  bool on(std::string_view name) const { return enabled_.count(std::string(name)) != 0; }
  bool empty() const { return enabled_.empty(); }
  const std::set<std::string>& names() const { return enabled_; }

 private:
  std::set<std::string> enabled_;
};

}  // namespace ac::ref
