// The requirement catalogues (suites/<protocol>/requirements.json): every normative statement
// of a spec with a stable ID, its level and the quoted sentence. Verdicts cite them.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/util/expected.hpp"

namespace ac::engine {

struct Requirement {
  std::string id;        // "ALP-7.1.2-session-id"
  std::string protocol;  // "alp"
  std::string level;     // MUST | SHOULD | MAY
  std::string kind;      // explicit | implicit | reading
  std::string spec;      // "alp-0.2.0.md"
  std::string section;   // "7.1.2 REGISTER_CLIENT_ACK"
  std::string text;      // the quoted sentence
  std::string summary;   // what an implementation must do
  std::string feature;   // "" when always applicable
  // Why no case covers it (a MUST without a case must give one; docs in the schema):
  std::string untestable;  // no black-box test can check it
  std::string pending;     // a black-box case can, and is still to be written
  // The reason `requirements --uncovered` prints: the untestable one, else "pending: ...".
  // Why no case covers it: the catalogue's reason; a MAY needs none of its own (a permission
  // requires nothing, so no case could fail a target for it).
  std::string uncovered_reason() const {
    if (!untestable.empty()) return untestable;
    if (!pending.empty()) return "pending: " + pending;
    return level == "MAY" ? "a MAY: the spec permits this and requires nothing, so no case can fail a target for it" : "";
  }
  std::vector<std::string> roles;
  std::vector<std::string> suites;
};

class RequirementCatalog {
 public:
  // Loads suites/<protocol>/requirements.json for every protocol directory under suites_dir.
  static Expected<RequirementCatalog, std::string> load(const std::filesystem::path& suites_dir);
  // The same for several directories, in order (the built-in suites, then a custom suite
  // directory whose catalogues extend them); an id given twice is an error.
  static Expected<RequirementCatalog, std::string> load(const std::vector<std::filesystem::path>& suites_dirs);

  const Requirement* find(std::string_view id) const;
  std::vector<const Requirement*> of_protocol(std::string_view protocol) const;
  const std::map<std::string, std::string>& features(std::string_view protocol) const;
  std::string spec_version(std::string_view protocol) const;
  std::vector<std::string> protocols() const;

  // MUST > SHOULD > MAY (the strongest level among ids; "MAY" when none is known).
  std::string strongest_level(const std::vector<std::string>& ids) const;

 private:
  std::map<std::string, Requirement, std::less<>> by_id_;
  std::map<std::string, std::vector<std::string>, std::less<>> ids_by_protocol_;
  std::map<std::string, std::map<std::string, std::string>, std::less<>> features_;
  std::map<std::string, std::string, std::less<>> spec_versions_;
};

int level_rank(std::string_view level);  // MUST 3, SHOULD 2, MAY 1, other 0

// No silent uncovered MUST: every MUST that no case covers (its id is not in `covered`) carries
// a reason in the catalogue (`untestable` or `pending`), and a requirement a case covers carries
// neither (a stale reason would hide the case). One message per breach, naming the id and the fix.
std::vector<std::string> uncovered_reason_problems(const RequirementCatalog& catalog, const std::set<std::string, std::less<>>& covered);

}  // namespace ac::engine
