// The JUnit report loads in CI viewers: it validates (xmllint --schema) against the Ant/Jenkins
// JUnit structure in reports/junit/junit.xsd, including with hostile strings and huge transcripts.
// The XSD itself is checked to reject what viewers would not read, so the validation means something.
#include <gtest/gtest.h>

#include "reports/report.hpp"
#include "tests/reports/report_fixture.hpp"

namespace ac::reports::testing {
namespace {

const std::string kXsd = std::string(AC_SOURCE_DIR) + "/reports/junit/junit.xsd";

Process xmllint(const std::filesystem::path& file, const TempDir& dir) {
  return run_process({"xmllint", "--noout", "--schema", kXsd, file.string()}, dir.path());
}

class JunitXsd : public ::testing::Test {
 protected:
  void SetUp() override {
    // libxml2-utils is in scripts/setup.sh; its absence is a broken environment, not a skip.
    ASSERT_TRUE(on_path("xmllint")) << "xmllint not installed (Debian package libxml2-utils; run scripts/setup.sh)";
  }
  TempDir dir;
};

TEST_F(JunitXsd, EveryVerdictAndHostileStringsValidate) {
  spit(dir / "junit.xml", render_junit(every_verdict_doc()));
  const Process p = xmllint(dir / "junit.xml", dir);
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NE(p.err.find("validates"), std::string::npos) << p.err;
}

TEST_F(JunitXsd, HugeTranscriptValidates) {
  spit(dir / "junit.xml", render_junit(huge_transcript_doc(2000, 3000)));
  const Process p = xmllint(dir / "junit.xml", dir);
  EXPECT_EQ(p.exit_code, 0) << p.err;
}

TEST_F(JunitXsd, EmptyRunValidates) {
  RunResult r = every_verdict();
  r.cases.clear();
  spit(dir / "junit.xml", render_junit(engine::to_json(r, catalog())));
  const Process p = xmllint(dir / "junit.xml", dir);
  EXPECT_EQ(p.exit_code, 0) << p.err;
}

// Fuzz findings: PROTOCOL.fuzz suites with hostile details, steps and transcripts; a fuzzing run
// without findings (only the budget testcase); findings appended to a conformance run; and
// findings whose members have the wrong types (the writer must still produce a valid file).
TEST_F(JunitXsd, FuzzFindingsValidate) {
  Json mixed = every_verdict_doc();
  mixed["findings"] = fuzz_doc()["findings"];
  Json broken = fuzz_doc();
  broken["fuzz"] = {{"protocol", 5}, {"seconds", -3}, {"frames_per_second", "x"}, {"families", "f"}};
  broken["findings"].push_back(Json{{"id", 7}, {"oracle", Json::array()}, {"steps", Json::array({1, Json{{"data_b64", "!"}}})},
                                    {"transcript", Json::array({Json{{"data", 5}}})}});
  broken["findings"].push_back("not an object");
  int n = 0;
  for (const Json& doc : {fuzz_doc(), fuzz_clean_doc(), mixed, broken}) {
    const auto file = dir / ("fuzz" + std::to_string(n++) + ".xml");
    const std::string xml = render_junit(doc);
    ASSERT_NE(xml.find(".fuzz\""), std::string::npos) << n;  // the fuzz suites are there to validate
    spit(file, xml);
    const Process p = xmllint(file, dir);
    EXPECT_EQ(p.exit_code, 0) << n << ": " << p.err;
  }
}

TEST_F(JunitXsd, SchemaRejectsMalformedReports) {
  const char* bad[] = {
      // testcase without a name
      R"(<testsuites><testsuite name="s" tests="1"><testcase classname="c"/></testsuite></testsuites>)",
      // failure after system-out
      R"(<testsuites><testsuite name="s" tests="1"><testcase name="t"><system-out/><failure/></testcase></testsuite></testsuites>)",
      // a time with a unit
      R"(<testsuites><testsuite name="s" tests="1" time="3s"><testcase name="t"/></testsuite></testsuites>)",
      // properties inside a testcase (not in the Jenkins structure)
      R"(<testsuites><testsuite name="s" tests="1"><testcase name="t"><properties/></testcase></testsuite></testsuites>)",
      // a testsuite without its test count
      R"(<testsuites><testsuite name="s"><testcase name="t"/></testsuite></testsuites>)",
  };
  for (const char* xml : bad) {
    spit(dir / "bad.xml", xml);
    EXPECT_NE(xmllint(dir / "bad.xml", dir).exit_code, 0) << xml;
  }
  spit(dir / "good.xml", R"(<testsuite name="s" tests="1" time="0.5"><testcase name="t"><skipped message="m"/></testcase></testsuite>)");
  EXPECT_EQ(xmllint(dir / "good.xml", dir).exit_code, 0);
}

}  // namespace
}  // namespace ac::reports::testing
