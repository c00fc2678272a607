// No silent uncovered MUST or SHOULD (issue 14): every MUST and SHOULD of the built-in catalogues is covered by a case
// or says in the catalogue why not (`untestable`: no black-box test can check it; `pending`: a
// case is still to be written), and no covered requirement keeps a stale reason. The check is
// also run on a small catalogue written here, to show it reports each kind of breach.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "harness/engine/requirements.hpp"
#include "harness/engine/lint.hpp"
#include "harness/engine/scenario.hpp"

namespace ac::engine {
namespace {

namespace fs = std::filesystem;

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(RequirementReasons, EveryBuiltinMustHasACaseOrAReason) {
  auto loaded = load_suite_dir();
  ASSERT_TRUE(loaded) << describe_problems(loaded.error());
  std::set<std::string, std::less<>> covered;
  for (const auto& s : loaded->suites) {
    for (const auto& c : s.cases) covered.insert(c.requirements.begin(), c.requirements.end());
  }
  const auto problems = uncovered_reason_problems(loaded->requirements, covered);
  EXPECT_TRUE(problems.empty()) << joined(problems);
  // The reasons are real text, printed by `requirements --uncovered`.
  std::size_t with_reason = 0;
  for (const auto& p : loaded->requirements.protocols()) {
    for (const auto* r : loaded->requirements.of_protocol(p)) {
      if (covered.count(r->id) == 0) {  // MUST and SHOULD: the catalogue's reason; MAY: the generic one
        ++with_reason;
        EXPECT_GE(r->uncovered_reason().size(), 10u) << r->id;
      }
    }
  }
  EXPECT_GT(with_reason, 0u);  // today's catalogues do have uncovered MUSTs (TLS, agent-side)
}

TEST(RequirementReasons, ReportsEachKindOfBreach) {
  const fs::path dir = fs::temp_directory_path() / ("ac_reasons_" + std::to_string(::getpid()));
  fs::create_directories(dir / "alp");
  {
    std::ofstream out(dir / "alp/requirements.json");
    auto req = [](const std::string& id, const std::string& level, const std::string& extra) {
      return R"({"id": ")" + id + R"(", "level": ")" + level +
             R"(", "kind": "explicit", "spec": "alp-0.2.0.md", "section": "6", "text": "t", "summary": "a summary line",
                 "roles": ["lobby"], "feature": null, "suites": ["lifecycle"])" +
             extra + "}";
    };
    out << R"({"protocol": "alp", "spec": "alp-0.2.0.md", "spec_version": "0.2.0", "requirements": [)"
        << req("ALP-6-silent", "MUST", "") << ","                                              // breach
        << req("ALP-6-explained", "MUST", R"(, "untestable": "not observable")") << ","         // fine
        << req("ALP-6-waiting", "MUST", R"(, "pending": "needs a TLS target")") << ","          // fine
        << req("ALP-6-optional", "SHOULD", "") << ","                                           // breach: a SHOULD needs one too
        << req("ALP-6-allowed", "MAY", "") << ","                                               // fine: a MAY requires nothing
        << req("ALP-6-covered", "MUST", "") << ","                                              // fine
        << req("ALP-6-stale", "MUST", R"(, "untestable": "not observable")") << ","             // breach: covered
        << req("ALP-6-landed", "SHOULD", R"(, "pending": "needs a TLS target")") << "]}";       // breach: covered
  }
  auto catalog = RequirementCatalog::load(dir);
  fs::remove_all(dir);
  ASSERT_TRUE(catalog) << catalog.error();
  const auto problems = uncovered_reason_problems(*catalog, {"ALP-6-covered", "ALP-6-stale", "ALP-6-landed"});
  ASSERT_EQ(problems.size(), 4u) << joined(problems);
  EXPECT_NE(problems[0].find("ALP-6-silent"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("a MUST no case covers"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("ALP-6-optional"), std::string::npos) << problems[1];
  EXPECT_NE(problems[1].find("a SHOULD no case covers"), std::string::npos) << problems[1];
  EXPECT_NE(problems[2].find("ALP-6-stale"), std::string::npos) << problems[2];
  EXPECT_NE(problems[2].find("'untestable'"), std::string::npos) << problems[2];
  EXPECT_NE(problems[3].find("ALP-6-landed"), std::string::npos) << problems[3];
  EXPECT_NE(problems[3].find("'pending'"), std::string::npos) << problems[3];
  EXPECT_NE(catalog->find("ALP-6-allowed")->uncovered_reason().find("a MAY"), std::string::npos);
  EXPECT_EQ(catalog->find("ALP-6-waiting")->uncovered_reason(), "pending: needs a TLS target");
  EXPECT_EQ(catalog->find("ALP-6-explained")->uncovered_reason(), "not observable");
}

}  // namespace
}  // namespace ac::engine
