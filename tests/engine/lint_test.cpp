// The suite linter and the loader built on it: the real suites/ have no problem; deliberately
// broken fixtures (tests/engine/lint_fixtures/broken) give exactly the expected problems, each
// with its file, JSON Pointer and message; the loader refuses what lint refuses, with the same
// problems; a valid custom directory loads its own cases against the extended catalogue.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "harness/engine/lint.hpp"
#include "harness/engine/scenario.hpp"

namespace ac::engine {
namespace {

namespace fs = std::filesystem;

fs::path fixtures() { return fs::path(AC_SOURCE_DIR) / "tests/engine/lint_fixtures"; }

LintResult lint_dir(const fs::path& dir, const std::string& display) {
  LintOptions o;
  o.dir = dir;
  o.display = display;
  auto r = lint_suites(o);
  if (!r) throw std::runtime_error(r.error());
  return std::move(*r);
}

// Each directory is checked once per test binary (a check reads every built-in suite too).
const LintResult& broken() {
  static const LintResult r = lint_dir(fixtures() / "broken", "broken");
  return r;
}
const LintResult& builtin() {
  static const LintResult r = [] {
    auto l = lint_suites({});
    if (!l) throw std::runtime_error(l.error());
    return std::move(*l);
  }();
  return r;
}

std::vector<std::string> described(const std::vector<Problem>& problems) {
  std::vector<std::string> out;
  for (const auto& p : problems) out.push_back(p.describe());
  return out;
}

TEST(Lint, BuiltinSuitesHaveNoProblems) {
  const LintResult* r = &builtin();
  EXPECT_TRUE(r->problems.empty()) << describe_problems(r->problems);
  EXPECT_FALSE(r->custom);
  EXPECT_GE(r->cases, 400u);
  EXPECT_GE(r->suite_files, 24u);
  EXPECT_EQ(r->catalogues, 5u);
  EXPECT_NE(r->summary().find("no problems"), std::string::npos) << r->summary();
}

TEST(Lint, BrokenFixturesGiveExactlyTheseProblems) {
  const LintResult& r = broken();
  const std::vector<std::string> expected = {
      // Files where no suite belongs.
      "broken/alp/variables.json: a custom suite directory holds suite files and requirements.json only; variables.json is read "
      "from the built-in suites/alp/ (remove this file)",
      "broken/alpp: not a protocol directory, its files are not read (did you mean 'alp'?): suite files go into broken/<protocol>/ "
      "with <protocol> one of alp, agora, agentprotocol, a2acp, chopsticks",
      "broken/stray.json: not read: suite files go into broken/<protocol>/<name>.json, with <protocol> one of alp, agora, "
      "agentprotocol, a2acp, chopsticks",
      // Broken JSON: where the parser stopped.
      "broken/alp/syntax.json /cases/0 (line 5, column 66): invalid JSON (syntax): ",
      // The catalogue extension.
      "broken/alp/requirements.json /requirements/0/id: duplicate requirement id 'ALP-6-token-reusable' (also at "
      "suites/alp/requirements.json /requirements/49): requirement ids are unique across all catalogues",
      "broken/alp/requirements.json /requirements/1: missing required key 'section'",
      "broken/alp/requirements.json /requirements/1: missing required key 'text'",
      // A catalogue has no features (they are declared in target-settings.json).
      "broken/alp/requirements.json: unknown key 'features': the keys here are protocol, requirements, spec, spec_version",
      // Identifiers a target may key state by, written as literals in sent messages.
      "broken/alp/identifiers.json /cases/0/steps/1/message/payload/conversation_id: literal identifier \"conv-1\" in conversation_id: "
      "parallel cases would share it (a target may key state by it); write it from the case's namespace, e.g. \"${ns}-1\" (or ${uuid}, "
      "${<agent>.id}); suites/alp/variables.json lists the members under \"identifiers\"",
      "broken/alp/identifiers.json /cases/0/steps/2/message/message_id: literal identifier \"m-1\" in message_id: parallel cases would "
      "share it (a target may key state by it); write it from the case's namespace, e.g. \"${ns}-1\" (or ${uuid}, ${<agent>.id}); "
      "suites/alp/variables.json lists the members under \"identifiers\"",
      "broken/alp/identifiers.json /cases/0/steps/2/message/payload/agent_id: literal identifier [\"${a.id}\",\"other-agent\"] in agent_id: "
      "parallel cases would share it (a target may key state by it); write it from the case's namespace, e.g. \"${ns}-1\" (or ${uuid}, "
      "${<agent>.id}); suites/alp/variables.json lists the members under \"identifiers\"",
      // Ids.
      "broken/alp/ids.json /cases/0/requirements/0: unknown requirement id 'ALP-6-token-reusabel' (did you mean "
      "'ALP-6-token-reusable'?): the alp catalogue (suites/alp/requirements.json; `agentconform requirements --protocol alp`) "
      "has no such requirement",
      "broken/alp/ids.json /cases/1/id: duplicate case id 'FX-IDS-001' (also at broken/alp/ids.json /cases/0): case ids are "
      "unique across all suites",
      "broken/alp/ids.json /cases/2/id: case id 'ALP-ERR-001' is a built-in case's (suites/alp/error-codes.json /cases/0): "
      "custom cases need ids of their own, e.g. with your own prefix ('ACME-ALP-ERR-001')",
      "broken/alp/ids.json /cases/3/steps/0/checks/0: 'ALP-7.5.1-error' is not one of the case's requirements "
      "(ALP-6-token-reusable): a step blames only requirements its case names; add it to the case's requirements or fix the id",
      "broken/alp/ids.json /cases/4/features/0: feature 'alp.rate-limits' is not declared (did you mean 'alp.rate-limit'?); "
      "the features of alp are declared in suites/alp/target-settings.json (alp.broadcast-admin, alp.connection-limit, "
      "alp.custom-message-types, alp.inactivity-timeout, alp.input-schema-validation, alp.rate-limit, alp.roles, "
      "alp.token-expiry, alp.ws-subprotocols, tls)",
      // Keys.
      "broken/alp/keys.json /cases/0/agents/a/agent_typ: the alp driver reads no agent property 'agent_typ' (did you mean "
      "'agent_type'?)",
      "broken/alp/keys.json /cases/0/steps/1: unknown key 'expct' (did you mean 'expect'?)",
      "broken/alp/keys.json /cases/0/steps/2: unknown key 'mesage' (did you mean 'message'?)",
      "broken/alp/keys.json /cases/0/steps/2: an expect step needs one of message, close, silence_ms or no_message",
      "broken/alp/keys.json /cases/0/steps/3: the alp driver reads no 'sign' in a send step (it reads no send options); see "
      "suites/alp/variables.json",
      "broken/alp/keys.json /cases/0/steps/4: one action per step, this one has send, expect: split it into one step per action",
      "broken/alp/keys.json /cases/0/steps/5/trigger: the alp driver has no trigger 'registr' (did you mean 'register'?) (it "
      "has broadcast, register, validate)",
      "broken/alp/keys.json /cases/0/steps/6/disconnect: the case declares no agent 'b' (agents: a)",
      // From the schema, deepest first.
      "broken/alp/keys.json /cases/0/steps/7/close: expected an integer or an array or one of \"any\", not a string \"anyy\" "
      "(did you mean \"any\"?)",
      "broken/alp/keys.json /cases/0: unknown key 'featurs' (did you mean 'features'?)",
      // Matchers.
      "broken/alp/matchers.json /cases/0/ignore/0/message_type: unknown matcher \"$strin\" (did you mean \"$string\"?); a "
      "literal string starting with $ is matched with {\"$regex\": \"^\\\\$strin$\"}",
      "broken/alp/matchers.json /cases/0/steps/1/message/message_id: unknown matcher \"$uuuid\" (did you mean \"$uuid\"?); a "
      "literal string starting with $ is matched with {\"$regex\": \"^\\\\$uuuid$\"}",
      "broken/alp/matchers.json /cases/0/steps/1/message/payload/alt/$one_of: $one_of takes a non-empty array of patterns, not "
      "\"x\"",
      "broken/alp/matchers.json /cases/0/steps/1/message/payload/items/$lenn: unknown matcher operator \"$lenn\" (did you mean "
      "\"$len\"?)",
      "broken/alp/matchers.json /cases/0/steps/1/message/payload/n/$len: $len takes a non-negative integer (a length), not -1",
      "broken/alp/matchers.json /cases/0/steps/1/message/payload/name/$regex: $regex \"(unclosed\" does not compile with RE2: "
      "missing ): (unclosed",
      // Placeholders.
      "broken/alp/placeholders.json /cases/0/steps/1/message/payload/c: undefined placeholder ${conv}: it is defined only by "
      "/cases/0/steps/2/capture, which does not run before this step (in step order; a capture inside a parallel branch "
      "counts after the parallel)",
      "broken/alp/placeholders.json /cases/0/steps/1/message/payload/l: undefined placeholder ${lobbyid} (did you mean "
      "${lobby_id}?)",
      "broken/alp/placeholders.json /cases/0/steps/1/message/receiver_id: undefined placeholder ${b.id}: the case declares no "
      "agent 'b'",
      "broken/alp/placeholders.json /cases/0/steps/3/raw: undefined placeholder ${i}: ${i} is defined only inside a repeat step",
      "broken/alp/placeholders.json /cases/0/steps/4/set/x: unterminated ${ in \"${y\": close it with }, or write $${ for a "
      "literal ${",
  };
  std::vector<std::string> got = described(r.problems);
  // The parser's own wording after "invalid JSON (syntax): " is nlohmann's; the position is ours.
  for (auto& line : got) {
    if (line.starts_with("broken/alp/syntax.json")) line = line.substr(0, line.find("(syntax): ") + 10);
  }
  EXPECT_EQ(got, expected);
  for (std::size_t i = 0; i < std::max(got.size(), expected.size()); ++i) {
    EXPECT_EQ(i < got.size() ? got[i] : "(none)", i < expected.size() ? expected[i] : "(none)") << "problem " << i;
  }
  EXPECT_EQ(r.suite_files, 5u);  // identifiers, ids, keys, matchers, placeholders (syntax.json did not parse)
}

TEST(Lint, SyntaxErrorsCarryLineAndColumn) {
  const LintResult& r = broken();
  auto it = std::find_if(r.problems.begin(), r.problems.end(), [](const Problem& p) { return p.file == "broken/alp/syntax.json"; });
  ASSERT_NE(it, r.problems.end());
  EXPECT_EQ(it->line, 5u);
  EXPECT_EQ(it->column, 66u);  // just after the token the parser did not expect: "requirements"
  EXPECT_EQ(it->pointer, "/cases/0");
  const Json j = it->to_json();
  EXPECT_EQ(j["line"], 5);
  EXPECT_EQ(j["column"], 66);
  EXPECT_EQ(j["file"], "broken/alp/syntax.json");
}

TEST(Lint, LoaderRefusesWithTheSameProblems) {
  auto loaded = load_suite_dir(fixtures() / "broken");
  ASSERT_FALSE(loaded);
  // The same problems; the loader names files by the directory as given.
  std::vector<std::string> renamed = described(broken().problems);
  const std::string dir = (fixtures() / "broken").generic_string() + "/";
  for (auto& line : renamed) {
    for (auto at = line.find("broken/"); at != std::string::npos; at = line.find("broken/", at + dir.size())) line.replace(at, 7, dir);
  }
  EXPECT_EQ(described(loaded.error()), renamed);

  auto catalogue = RequirementCatalog::load(fs::path(AC_SOURCE_DIR) / "suites");
  ASSERT_TRUE(catalogue) << catalogue.error();
  auto old_api = load_suites(fixtures() / "broken", *catalogue);
  ASSERT_FALSE(old_api);
  EXPECT_NE(old_api.error().find("/cases/0/steps/1: unknown key 'expct' (did you mean 'expect'?)"), std::string::npos) << old_api.error();
}

TEST(Lint, CustomDirectoryLoadsOnlyItsCasesWithTheExtendedCatalogue) {
  const LintResult r = lint_dir(fixtures() / "custom", "custom");
  EXPECT_TRUE(r.problems.empty()) << describe_problems(r.problems);
  EXPECT_TRUE(r.custom);
  EXPECT_EQ(r.cases, 2u);
  EXPECT_EQ(r.suite_files, 1u);
  EXPECT_EQ(r.catalogues, 6u);  // the five built-in ones and the extension

  auto loaded = load_suite_dir(fixtures() / "custom");
  ASSERT_TRUE(loaded) << describe_problems(loaded.error());
  ASSERT_EQ(loaded->suites.size(), 1u);
  const Suite& s = loaded->suites.front();
  EXPECT_EQ(s.protocol, "alp");
  EXPECT_EQ(s.name, "lifecycle");
  ASSERT_EQ(s.cases.size(), 2u);
  EXPECT_EQ(s.cases[0].id, "ACME-ALP-LC-001");
  EXPECT_EQ(s.cases[0].level, "MUST");
  EXPECT_EQ(s.cases[1].id, "ACME-ALP-LC-002");
  EXPECT_EQ(s.cases[1].level, "SHOULD");  // the added requirement's level
  EXPECT_EQ(s.cases[0].file, (fixtures() / "custom").generic_string() + "/alp/acme.json");
  ASSERT_NE(loaded->requirements.find("ALP-4.1-fixture-register-twice"), nullptr);
  ASSERT_NE(loaded->requirements.find("ALP-6-token-reusable"), nullptr);

  LoadOptions with_builtin;
  with_builtin.with_builtin_cases = true;
  auto all = load_suite_dir(fixtures() / "custom", with_builtin);
  ASSERT_TRUE(all);
  std::size_t cases = 0;
  for (const auto& suite : all->suites) cases += suite.cases.size();
  EXPECT_EQ(cases, builtin().cases + 2);
}

TEST(Lint, BuiltinLoaderGivesEveryBuiltinCase) {
  auto loaded = load_suite_dir();
  ASSERT_TRUE(loaded) << describe_problems(loaded.error());
  std::size_t cases = 0;
  for (const auto& suite : loaded->suites) cases += suite.cases.size();
  EXPECT_EQ(cases, builtin().cases);
  for (const auto& suite : loaded->suites) EXPECT_TRUE(suite.file.starts_with("suites/")) << suite.file;
}

TEST(Lint, UsageErrors) {
  LintOptions o;
  o.dir = fixtures() / "no-such-directory";
  auto r = lint_suites(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("no such directory"), std::string::npos) << r.error();
  auto loaded = load_suite_dir(fixtures() / "no-such-directory");
  ASSERT_FALSE(loaded);
  ASSERT_EQ(loaded.error().size(), 1u);
  EXPECT_NE(loaded.error().front().message.find("no such directory"), std::string::npos);
}

// Every driver option variables.json lists is a key the scenario schema admits for that step
// kind, so the schema stays the union of what the drivers read.
TEST(Lint, DriverOptionsAreInTheScenarioSchema) {
  std::ifstream in(fs::path(AC_SOURCE_DIR) / "schemas/scenario.schema.json");
  const Json schema = Json::parse(in);
  for (const char* p : {"alp", "agora", "agentprotocol", "a2acp", "chopsticks"}) {
    std::ifstream vf(fs::path(AC_SOURCE_DIR) / "suites" / p / "variables.json");
    ASSERT_TRUE(vf) << p;
    const Json vars = Json::parse(vf);
    for (const char* kind : {"connect", "send"}) {
      const Json& props = schema["definitions"][std::string("step_") + kind]["properties"];
      for (const auto& [name, text] : vars[kind].items()) {
        EXPECT_TRUE(props.contains(name)) << p << " " << kind << " option " << name << " is not in step_" << kind;
      }
    }
  }
}

}  // namespace
}  // namespace ac::engine
