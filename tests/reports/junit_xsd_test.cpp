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
