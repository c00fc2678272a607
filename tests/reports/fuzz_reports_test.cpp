// Fuzz findings in every report (issue 6): the JSON results validate against
// schemas/report.schema.json with the fuzz figures and findings; JUnit has one PROTOCOL.fuzz suite
// per protocol with a passing budget testcase and one failing testcase per finding; the HTML
// report has a Fuzzing section with figures, each finding's replay command, minimized steps
// (base64 shown and decoded when printable) and transcript; Markdown a findings table; the
// terminal summary a line per finding. Hostile bytes (markup, CDATA ends, invalid UTF-8, NUL)
// stay text everywhere, huge payloads are cut with a note, and malformed members crash nothing.
#include <gtest/gtest.h>

#include <functional>

#include "harness/schema/schema_store.hpp"
#include "reports/report.hpp"
#include "reports/text.hpp"
#include "tests/reports/report_fixture.hpp"

namespace ac::reports::testing {
namespace {

std::size_t occurrences(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

const schema::CompiledSchema& report_schema() {
  static const auto s = [] {
    auto r = schema::SchemaStore::load_directory(std::filesystem::path(AC_SOURCE_DIR) / "schemas");
    if (!r) throw std::runtime_error(r.error());
    return *r;
  }();
  const auto* schema = s->find("report.schema.json");
  if (!schema) throw std::runtime_error("report.schema.json not in the store");
  return *schema;
}

std::string violations(const Json& doc) {
  std::string out;
  for (const auto& v : report_schema().validate(doc)) out += v.pointer + " " + v.rule + ": " + v.message + "\n";
  return out;
}

// The document as published (render_json replaces invalid UTF-8), parsed back.
Json published(const Json& doc) { return Json::parse(render_json(doc, nullptr)); }

// A conformance run that also carries findings (both parts in one document).
Json mixed_doc() {
  Json doc = every_verdict_doc();
  const Json fuzz = fuzz_doc();
  doc["fuzz"] = fuzz["fuzz"];
  doc["findings"] = fuzz["findings"];
  return doc;
}

// Documents whose fuzz members have the wrong types everywhere.
std::vector<Json> malformed_docs() {
  std::vector<Json> docs;
  const char* texts[] = {
      R"({"format":"agentconform-results/1","cases":[],"fuzz":[],"findings":{}})",
      R"({"format":"agentconform-results/1","cases":[],"fuzz":"x","findings":[1,"x",null,[],true]})",
      R"({"format":"agentconform-results/1","cases":[],
          "fuzz":{"protocol":5,"seed":-1,"sessions":"x","frames":1.5,"seconds":"NaN","frames_per_second":[],"families":"f","target":[]},
          "findings":[{"id":5,"protocol":{},"oracle":[],"signature":7,"detail":null,"seed":-3,"iteration":"x",
                       "mutations":[1,"m",{}],"original_steps":{},"reproducer":"r","steps":{"a":1},"transcript":"no"}]})",
      R"({"format":"agentconform-results/1","cases":[],"fuzz":{"seconds":-5,"frames_per_second":-1e308,"frames":3},
          "findings":[{"steps":[1,"s",null,[],
                                {"conn":5,"action":{},"data":7,"data_b64":"!!!","frames":[1,{"opcode":"x","data_b64":5},[]],"ms":"x"},
                                {"action":"frames","frames":"notarray"},{"data_b64":""},{"data_b64":"AAA="}],
                       "transcript":[1,{"data":7,"t_ms":"x","code":1.5,"direction":[]}],
                       "reproducer":{"file":1,"replay":[]}}]})",
  };
  for (const char* t : texts) docs.push_back(Json::parse(t));
  return docs;
}

// ---- JSON ----

TEST(FuzzJson, AFuzzingRunValidatesAgainstThePublishedSchema) {
  for (const Json& doc : {fuzz_doc(), fuzz_clean_doc(), mixed_doc()}) {
    const Json p = published(doc);
    EXPECT_TRUE(report_schema().is_valid(p)) << violations(p);
  }
  // The engine reads the document back: no case needed, the findings carried through.
  auto back = engine::run_result_from_json(published(fuzz_doc()));
  ASSERT_TRUE(back) << back.error();
  EXPECT_TRUE(back->cases.empty());
  ASSERT_EQ(back->findings.size(), 6u);
  EXPECT_EQ(back->findings[4]["oracle"], "isolation");
}

TEST(FuzzJson, SchemaRejectsMalformedFindingsAndFigures) {
  const Json good = published(fuzz_doc());
  ASSERT_TRUE(report_schema().is_valid(good)) << violations(good);
  auto rejects = [&good](const char* what, const std::function<void(Json&)>& change) {
    Json bad = good;
    change(bad);
    EXPECT_FALSE(report_schema().is_valid(bad)) << what;
  };
  rejects("finding without oracle", [](Json& d) { d["findings"][0].erase("oracle"); });
  rejects("finding with an unknown member", [](Json& d) { d["findings"][0]["bogus"] = 1; });
  rejects("finding that is not an object", [](Json& d) { d["findings"].push_back(5); });
  rejects("negative iteration", [](Json& d) { d["findings"][0]["iteration"] = -1; });
  rejects("reproducer without replay", [](Json& d) { d["findings"][0]["reproducer"].erase("replay"); });
  rejects("step without action", [](Json& d) { d["findings"][0]["steps"][0].erase("action"); });
  rejects("step payload not base64", [](Json& d) { d["findings"][0]["steps"][2]["data_b64"] = "3q2+7w="; });
  rejects("frame opcode above 15", [](Json& d) { d["findings"][0]["steps"][5]["frames"][0]["opcode"] = 16; });
  rejects("transcript entry with a bad direction", [](Json& d) { d["findings"][0]["transcript"][0]["direction"] = "up"; });
  rejects("fuzz with an unknown member", [](Json& d) { d["fuzz"]["bogus"] = true; });
  rejects("fuzz without sessions", [](Json& d) { d["fuzz"].erase("sessions"); });
  rejects("fuzz with a negative seed", [](Json& d) { d["fuzz"]["seed"] = -1; });
}

TEST(FuzzJson, AFuzzingResultsFileLoadsAndEveryFormatIsWritten) {
  TempDir dir;
  spit(dir / "results.json", render_json(fuzz_doc(), nullptr));
  auto doc = load_results(dir / "results.json");
  ASSERT_TRUE(doc) << doc.error();
  auto written = write_reports(dir / "out", *parse_formats("all"), {{"fuzz", *doc}}, nullptr);
  ASSERT_TRUE(written) << written.error();
  EXPECT_EQ(written->size(), 4u);
  EXPECT_NE(slurp(dir / "out/report.html").find("id=\"finding-FUZZ-agora-isolation-5\""), std::string::npos);
  EXPECT_NE(slurp(dir / "out/junit.xml").find("<testsuite name=\"agora.fuzz\""), std::string::npos);
  EXPECT_NE(slurp(dir / "out/summary.md").find("### Fuzzing (6 findings)"), std::string::npos);
}

// ---- the view ----

TEST(FuzzModel, ReadsFiguresAndFindings) {
  const Json doc = fuzz_doc();
  const auto run = view_of(doc);
  ASSERT_TRUE(run->fuzz.has_value());
  EXPECT_EQ(run->fuzz->protocol, "agora");
  EXPECT_EQ(run->fuzz->sessions, 300u);
  EXPECT_EQ(run->fuzz->frames, 4210u);
  EXPECT_EQ(run->fuzz->families.size(), 5u);
  EXPECT_EQ(run->fuzz->faults, std::vector<std::string>{"agora.planted.x"});
  ASSERT_EQ(run->findings.size(), 6u);
  const FindingView& f = run->findings[4];
  EXPECT_EQ(f.id, "FUZZ-agora-isolation-5");
  EXPECT_EQ(f.oracle, "isolation");
  EXPECT_EQ(f.iteration, 79u);
  EXPECT_EQ(f.original_steps, 8u);
  EXPECT_EQ(f.replay, "agentconform fuzz --replay agentconform-fuzz/agora-isolation-5.json");
  ASSERT_NE(f.steps, nullptr);
  EXPECT_EQ(f.steps->size(), 10u);
  EXPECT_TRUE(run->fuzz_only());
  EXPECT_FALSE(view_of(every_verdict_doc())->has_fuzz()) << "the engine's empty findings array is no fuzzing run";
  EXPECT_TRUE(view_of(mixed_doc())->has_fuzz());
  EXPECT_FALSE(view_of(mixed_doc())->fuzz_only());
}

TEST(FuzzModel, WrongTypesAreIgnoredNotTrusted) {
  const auto docs = malformed_docs();
  const auto run = view_of(docs[2]);
  ASSERT_TRUE(run->fuzz.has_value());
  EXPECT_EQ(run->fuzz->protocol, "");
  EXPECT_FALSE(run->fuzz->seed.has_value());
  EXPECT_FALSE(run->fuzz->sessions.has_value());
  EXPECT_FALSE(run->fuzz->frames.has_value());  // 1.5 is no count
  EXPECT_FALSE(run->fuzz->seconds.has_value());
  EXPECT_TRUE(run->fuzz->families.empty());
  ASSERT_EQ(run->findings.size(), 1u);
  const FindingView& f = run->findings[0];
  EXPECT_EQ(f.label(), "finding 1");
  EXPECT_EQ(f.anchor_id(), "finding_1");
  EXPECT_EQ(f.mutations, std::vector<std::string>{"m"});
  EXPECT_EQ(f.steps, nullptr);
  EXPECT_EQ(f.transcript, nullptr);
  EXPECT_FALSE(f.seed.has_value());

  const auto odd = view_of(docs[1]);
  EXPECT_FALSE(odd->fuzz.has_value());
  EXPECT_EQ(odd->findings_total, 5u);
  EXPECT_TRUE(odd->findings.empty());
  EXPECT_TRUE(odd->has_fuzz());

  // The reproducer's form of original_steps (the steps themselves) counts them.
  Json doc = fuzz_doc();
  doc["findings"][0]["original_steps"] = Json::array({1, 2, 3});
  EXPECT_EQ(view_of(doc)->findings[0].original_steps, 3u);
}

TEST(FuzzModel, StepsAreCutIntoLabelledParts) {
  const Json steps = fuzz_steps();
  const BoundedSteps b = bound_fuzz_steps(&steps, Limits{});
  ASSERT_EQ(b.steps.size(), 10u);
  EXPECT_TRUE(b.note.empty()) << b.note;
  auto part = [&b](std::size_t step, std::size_t i) { return b.steps.at(step).parts.at(i); };

  EXPECT_EQ(b.steps[0].conn, "a");
  EXPECT_EQ(b.steps[0].action, "connect");
  EXPECT_EQ(part(0, 0).label, "data");
  EXPECT_EQ(part(0, 0).text, "/agora/ws?agent_id=${a}");
  // Bytes that are not text: the base64 as written, then size and hex.
  EXPECT_EQ(part(2, 0).label, "base64");
  EXPECT_EQ(part(2, 0).text, "3q2+7w==");
  EXPECT_EQ(part(2, 1).label, "decoded (4 bytes, not printable; hex)");
  EXPECT_EQ(part(2, 1).text, "de ad be ef");
  // Printable bytes: decoded.
  EXPECT_EQ(part(3, 1).label, "decoded (17 bytes, text)");
  EXPECT_EQ(part(3, 1).text, "printable payload");
  // A NUL makes text unprintable, even with markup after it.
  EXPECT_EQ(part(4, 1).label, "decoded (12 bytes, not printable; hex)");
  EXPECT_EQ(part(4, 1).text.substr(0, 14), "00 6e 75 6c 3c");
  // Raw frames, one part per payload, with opcode, fin and rsv in the label.
  ASSERT_EQ(b.steps[5].parts.size(), 3u);
  EXPECT_EQ(part(5, 0).label, "frame 1 (opcode 1, fin false, rsv 0) data");
  EXPECT_EQ(part(5, 0).text, "{\"ty");
  EXPECT_EQ(part(5, 1).label, "frame 2 (opcode 0, fin true, rsv 4) base64");
  EXPECT_EQ(part(5, 2).text, "pe\":1}");
  // HTTP: method and path first.
  EXPECT_EQ(part(6, 0).label, "method");
  EXPECT_EQ(part(6, 0).text, "POST");
  EXPECT_EQ(part(6, 1).label, "path");
  EXPECT_EQ(part(6, 2).label, "data");
  // Members this writer does not know, as JSON.
  EXPECT_EQ(part(7, 0).label, "ms");
  EXPECT_EQ(part(7, 0).text, "50");
  EXPECT_EQ(b.steps[8].action, "teleport");
  EXPECT_EQ(b.steps[8].parts.back().label, "flux");
  EXPECT_EQ(b.steps[8].parts.back().text, Json({{"capacitor", kHostileImg}}).dump());
  EXPECT_EQ(part(9, 0).label, "code");
  EXPECT_EQ(part(9, 0).text, "1000");

  const Json bad = Json::array({Json{{"conn", "a"}, {"action", "binary"}, {"data_b64", "!!!"}}, 42});
  const BoundedSteps c = bound_fuzz_steps(&bad, Limits{});
  ASSERT_EQ(c.steps.size(), 2u);
  EXPECT_EQ(c.steps[0].parts.at(1).text.rfind("not valid base64", 0), 0u) << c.steps[0].parts.at(1).text;
  EXPECT_EQ(c.steps[1].parts.at(0).label, "step");
  EXPECT_EQ(c.steps[1].parts.at(0).text, "42");
}

TEST(FuzzModel, HugePayloadsAndLongSessionsAreCutWithANote) {
  Limits limits;
  Json steps = Json::array({Json{{"conn", "a"}, {"action", "text"}, {"data", std::string(10u << 20, 'x')}},
                            Json{{"conn", "a"}, {"action", "binary"}, {"data_b64", crypto::base64_encode(std::string(1u << 20, 'y'))}}});
  BoundedSteps b = bound_fuzz_steps(&steps, limits);
  ASSERT_EQ(b.steps.size(), 2u);
  EXPECT_TRUE(b.steps[0].parts[0].cut);
  EXPECT_LT(b.steps[0].parts[0].text.size(), limits.entry_bytes + 64);
  EXPECT_NE(b.steps[0].parts[0].text.find(std::to_string((10u << 20) - limits.entry_bytes) + " more bytes not shown"), std::string::npos);
  EXPECT_NE(b.steps[1].parts[1].text.find("decoded prefix only"), std::string::npos);
  EXPECT_NE(b.note.find("payloads cut"), std::string::npos) << b.note;

  Json many = Json::array();
  for (int i = 0; i < 5000; ++i) many.push_back(Json{{"conn", "a"}, {"action", "text"}, {"data", "x"}});
  b = bound_fuzz_steps(&many, limits);
  EXPECT_EQ(b.steps.size(), limits.case_entries);
  EXPECT_NE(b.note.find("4600 of 5000 steps not shown"), std::string::npos) << b.note;
}

// ---- JUnit ----

TEST(FuzzJunit, OneSuitePerProtocolWithTheBudgetAndAFailurePerFinding) {
  const std::string xml = render_junit(fuzz_doc());
  EXPECT_EQ(occurrences(xml, "<testsuite "), 2u);
  EXPECT_NE(xml.find("<testsuite name=\"agora.fuzz\" package=\"agora\" id=\"0\" tests=\"5\" failures=\"4\""), std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"chopsticks.fuzz\" package=\"chopsticks\" id=\"1\" tests=\"2\" failures=\"2\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuites name=\"agentconform\" tests=\"7\" failures=\"6\" errors=\"0\""), std::string::npos);
  EXPECT_EQ(occurrences(xml, "<failure "), 6u);
  EXPECT_NE(xml.find("<testcase name=\"fuzz session budget\" classname=\"agora.fuzz\" time=\"12.500\">"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"sessions\" value=\"300\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"frames\" value=\"4210\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"families\" value=\"field,structure,framing,timing,auth\"/>"), std::string::npos);
  for (const auto& oracle : every_oracle()) {
    EXPECT_NE(xml.find("type=\"" + oracle + "\""), std::string::npos) << oracle;
  }
  const std::string message = "isolation: isolation signature of agora";
  EXPECT_NE(xml.find("<testcase name=\"" + message + "\" classname=\"agora.fuzz\""), std::string::npos);
  EXPECT_NE(xml.find("<failure message=\"" + message + "\" type=\"isolation\">FUZZ-agora-isolation-5 (agora)"), std::string::npos);
  EXPECT_NE(xml.find("replay: agentconform fuzz --replay agentconform-fuzz/agora-isolation-5.json\n"), std::string::npos);
  EXPECT_NE(xml.find("seed 1, session 79\n"), std::string::npos);
  EXPECT_NE(xml.find("minimized steps (10, from 8 generated):\n"), std::string::npos);
  EXPECT_NE(xml.find("  3. a binary\n       base64: 3q2+7w==\n       decoded (4 bytes, not printable; hex): de ad be ef\n"),
            std::string::npos);
  EXPECT_NE(xml.find("<system-out>transcript of FUZZ-agora-isolation-5 (4 entries)"), std::string::npos);
}

TEST(FuzzJunit, ARunWithoutFindingsStillShowsThatFuzzingRan) {
  const std::string xml = render_junit(fuzz_clean_doc());
  EXPECT_EQ(occurrences(xml, "<testcase "), 1u);
  EXPECT_NE(xml.find("tests=\"1\" failures=\"0\""), std::string::npos);
  EXPECT_NE(xml.find("fuzz: agora, seed 1, 300 sessions, 4210 frames, in 12.50 s, 337 frames/s"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"findings\" value=\"0\"/>"), std::string::npos);
  // A conformance run (the engine writes an empty findings array) gets no fuzz suite.
  EXPECT_EQ(render_junit(every_verdict_doc()).find(".fuzz\""), std::string::npos);
}

TEST(FuzzJunit, HostileFindingsCannotAddElements) {
  const std::string xml = render_junit(mixed_doc());
  EXPECT_EQ(xml.find("<testcase name=\"injected\""), std::string::npos);
  EXPECT_EQ(xml.find("<script>"), std::string::npos);
  EXPECT_EQ(xml.find("<img"), std::string::npos);
  EXPECT_EQ(xml.find("]]>"), std::string::npos);
  EXPECT_EQ(xml.find('\0'), std::string::npos);
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  EXPECT_EQ(valid_utf8(xml), xml);
  EXPECT_NE(xml.find("]]&gt; &lt;img id=&quot;pwned&quot;"), std::string::npos);  // the detail, as text
}

TEST(FuzzJunit, FindingsBeyondTheLimitAreNamedOnly) {
  Limits limits;
  limits.findings = 2;
  const std::string xml = render_junit(fuzz_doc(), limits);
  EXPECT_EQ(occurrences(xml, "<failure "), 6u);  // every finding still counts
  EXPECT_EQ(occurrences(xml, "minimized steps ("), 2u);
  EXPECT_EQ(occurrences(xml, "not shown in full (report limit of 2 findings)"), 4u);
}

// ---- HTML ----

TEST(FuzzHtml, FuzzingSectionWithFiguresFindingsStepsAndTranscripts) {
  const std::string html = render_html({{"fuzz", fuzz_doc()}});
  EXPECT_NE(html.find("<h1>agentconform fuzzing report</h1>"), std::string::npos);
  EXPECT_NE(html.find("<h3 id=\"fuzzing\">Fuzzing</h3>"), std::string::npos);
  EXPECT_NE(html.find("<td data-figure=\"sessions\">300</td>"), std::string::npos);
  EXPECT_NE(html.find("<td data-figure=\"frames\">4210</td>"), std::string::npos);
  EXPECT_NE(html.find("<td data-figure=\"frames/s\">336.8</td>"), std::string::npos);
  EXPECT_NE(html.find("<td data-figure=\"families\">field, structure, framing, timing, auth</td>"), std::string::npos);
  EXPECT_NE(html.find("<td data-figure=\"target\">embedded http://127.0.0.1:40111 (lobby faults: agora.planted.x)</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td data-figure=\"findings\">6</td>"), std::string::npos);
  // A fuzzing run without cases has no empty case tables.
  EXPECT_EQ(html.find("Summary per protocol"), std::string::npos);
  EXPECT_EQ(html.find("<h3>Cases</h3>"), std::string::npos);
  // Every finding, every oracle, with its replay command, steps and transcript.
  EXPECT_EQ(occurrences(html, "<details class=\"finding "), 6u);
  for (const auto& oracle : every_oracle()) {
    EXPECT_NE(html.find("class=\"finding o-" + oracle + "\""), std::string::npos) << oracle;
    EXPECT_NE(html.find("data-oracle=\"" + oracle + "\""), std::string::npos) << oracle;
  }
  EXPECT_NE(html.find("id=\"finding-FUZZ-agora-isolation-5\" data-protocol=\"agora\""), std::string::npos);
  EXPECT_NE(html.find("<pre class=\"replay\">agentconform fuzz --replay agentconform-fuzz/agora-isolation-5.json</pre>"),
            std::string::npos);
  EXPECT_EQ(occurrences(html, "<tr class=\"fuzz-step\">"), 60u);
  EXPECT_EQ(occurrences(html, "<h4>Minimized steps (10) <span class=\"meta\">from 8 generated</span></h4>"), 6u);
  EXPECT_NE(html.find("<span class=\"part-label\">decoded (17 bytes, text)</span><pre>printable payload</pre>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"part-label\">decoded (4 bytes, not printable; hex)</span><pre>de ad be ef</pre>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>1</td><td>a</td><td>connect</td>"), std::string::npos);
  EXPECT_EQ(occurrences(html, "<h4>Transcript (4 entries)</h4>"), 6u);
  EXPECT_GT(occurrences(html, "<tr class=\"dir-in\">"), 0u);
  // The protocol filter offers the findings' protocols.
  EXPECT_NE(html.find("<option value=\"chopsticks\">chopsticks</option>"), std::string::npos);
  EXPECT_NE(html.find("<option value=\"agora\">agora</option>"), std::string::npos);
}

TEST(FuzzHtml, OnlyWhenTheRunFuzzed) {
  const std::string plain = render_html({{"run", every_verdict_doc()}});
  EXPECT_EQ(plain.find("id=\"fuzzing\""), std::string::npos);
  EXPECT_EQ(plain.find("class=\"finding"), std::string::npos);
  const std::string mixed = render_html({{"run", mixed_doc()}});
  EXPECT_NE(mixed.find("<h3 id=\"fuzzing\">Fuzzing</h3>"), std::string::npos);
  EXPECT_NE(mixed.find("<h3>Cases</h3>"), std::string::npos);
  EXPECT_NE(mixed.find("<h1>agentconform conformance report</h1>"), std::string::npos);
  const std::string clean = render_html({{"run", fuzz_clean_doc()}});
  EXPECT_NE(clean.find("<p class=\"meta\">no finding</p>"), std::string::npos);
  // Side by side: the second source's anchors are prefixed like its cases.
  const std::string two = render_html({{"a", fuzz_doc()}, {"b", fuzz_doc()}});
  EXPECT_NE(two.find("id=\"s1-finding-FUZZ-agora-isolation-5\""), std::string::npos);
  EXPECT_NE(two.find("id=\"s1-fuzzing\""), std::string::npos);
}

TEST(FuzzHtml, HostileDetailsStepsAndTranscriptsAreEscaped) {
  Json doc = mixed_doc();
  doc["findings"][0]["signature"] = "sig " + kHostileScript;
  doc["findings"][0]["oracle"] = "<b>oracle</b>";
  doc["findings"][0]["id"] = "\"><script>x</script>";
  doc["findings"][0]["reproducer"]["replay"] = "replay </pre><img src=x>";
  const std::string html = render_html({{"run", doc}});
  EXPECT_EQ(html.find(kHostileScript), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>oracle</b>"), std::string::npos);
  EXPECT_EQ(html.find("]]>"), std::string::npos);
  EXPECT_EQ(html.find('\0'), std::string::npos);
  EXPECT_EQ(valid_utf8(html), html);
  EXPECT_EQ(occurrences(html, "<script"), 1u);  // the template's own
  EXPECT_EQ(occurrences(html, "</pre>"), occurrences(html, "<pre"));
  EXPECT_NE(html.find("class=\"finding o-other\""), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;oracle&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html.find("replay &lt;/pre&gt;&lt;img src=x&gt;"), std::string::npos);
  EXPECT_NE(html.find("nul\xEF\xBF\xBD" "byte"), std::string::npos);  // the NUL shown as U+FFFD
  EXPECT_NE(html.find("]]&gt; &lt;img id=&quot;pwned&quot;"), std::string::npos);
}

TEST(FuzzHtml, HugeStepPayloadIsCutWithANote) {
  Json doc = fuzz_doc();
  doc["findings"][0]["steps"][1]["data"] = std::string(20u << 20, 'z');
  doc["findings"][0]["detail"] = std::string(1u << 20, 'd');
  const std::string html = render_html({{"fuzz", doc}});
  EXPECT_LT(html.size(), 2u << 20);
  EXPECT_NE(html.find("steps truncated for this report: 1 payloads cut"), std::string::npos);
  EXPECT_NE(html.find(std::to_string((20u << 20) - Limits{}.entry_bytes) + " more bytes not shown"), std::string::npos);
  EXPECT_NE(html.find(std::to_string((1u << 20) - Limits{}.failure_text_bytes) + " more bytes not shown"), std::string::npos);

  Limits limits;
  limits.findings = 2;
  const std::string few = render_html({{"fuzz", fuzz_doc()}}, limits);
  EXPECT_EQ(occurrences(few, "<details class=\"finding "), 2u);
  EXPECT_NE(few.find("4 more findings not shown"), std::string::npos);
}

// ---- Markdown ----

TEST(FuzzMarkdown, FiguresAndAFindingsTable) {
  const std::string md = render_markdown(fuzz_doc());
  EXPECT_NE(md.find("## agentconform fuzzing report"), std::string::npos);
  EXPECT_NE(md.find("### Fuzzing (6 findings)\n\nagora, seed 1, 300 sessions, 4210 frames, in 12.50 s, 337 frames/s, families field "
                    "structure framing timing auth\n"),
            std::string::npos);
  EXPECT_NE(md.find("| finding | protocol | oracle | signature | replay |"), std::string::npos);
  EXPECT_NE(md.find("| [FUZZ-agora-isolation-5](report.html#finding-FUZZ-agora-isolation-5) | agora | isolation | isolation "
                    "signature of agora | `agentconform fuzz --replay agentconform-fuzz/agora-isolation-5.json` |\n"),
            std::string::npos);
  for (const auto& oracle : every_oracle()) EXPECT_NE(md.find(" | " + oracle + " | "), std::string::npos) << oracle;
  EXPECT_EQ(md.find("| protocol | spec |"), std::string::npos);  // no empty conformance table
  EXPECT_EQ(render_markdown(every_verdict_doc()).find("### Fuzzing"), std::string::npos);
  EXPECT_NE(render_markdown(fuzz_clean_doc()).find("### Fuzzing (0 findings)"), std::string::npos);
}

TEST(FuzzMarkdown, HostileStringsAndLongListsAreBounded) {
  Json doc = fuzz_doc();
  doc["findings"][0]["signature"] = "a|b <script>x</script> [l](http://evil)\nnext";
  doc["findings"][0]["reproducer"]["replay"] = "agentconform fuzz --replay `rm -rf`|x";
  const std::string md = render_markdown(doc, MarkdownOptions{"report.html", 2});
  EXPECT_EQ(md.find("<script"), std::string::npos);
  EXPECT_EQ(md.find("[l](http"), std::string::npos);
  EXPECT_EQ(md.find("`rm -rf`"), std::string::npos);
  EXPECT_NE(md.find("a\\|b &lt;script&gt;x&lt;/script&gt; \\[l\\]\\(http://evil\\) next"), std::string::npos);
  EXPECT_NE(md.find("agentconform fuzz --replay \\`rm -rf\\`\\|x"), std::string::npos);
  EXPECT_EQ(occurrences(md, "](report.html#finding-"), 2u);
  EXPECT_NE(md.find("- … and 4 more (see the HTML report)"), std::string::npos);
}

// ---- terminal ----

TEST(FuzzText, ALinePerFindingSafeForATerminal) {
  Json doc = fuzz_doc();
  doc["findings"][1]["signature"] = "sig\x1b[2J\nsecond line";
  const std::string text = render_fuzz_text(doc);
  EXPECT_EQ(occurrences(text, "\n"), 7u);  // the figures, then six findings
  EXPECT_EQ(text.rfind("fuzz: agora, seed 1, 300 sessions, 4210 frames, in 12.50 s, 337 frames/s, families field structure "
                       "framing timing auth: 6 findings\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("  FUZZ-agora-isolation-5 [isolation] agora: isolation signature of agora (replay: agentconform fuzz "
                      "--replay agentconform-fuzz/agora-isolation-5.json)\n"),
            std::string::npos);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_NE(text.find("sig\\x1b[2J\\nsecond line"), std::string::npos);
  EXPECT_EQ(render_fuzz_text(every_verdict_doc()), "");
  EXPECT_EQ(occurrences(render_fuzz_text(fuzz_doc(), 2), "\n"), 4u);  // figures, two findings, "... and 4 more"
}

// ---- malformed documents ----

TEST(FuzzMalformed, NoWriterThrowsOnWrongTypes) {
  for (const Json& doc : malformed_docs()) {
    EXPECT_NO_THROW({
      render_html({{"x", doc}});
      render_junit(doc);
      render_markdown(doc);
      render_fuzz_text(doc);
      render_json(doc, nullptr);
      evaluate(doc, nullptr, Policy::must, "2025-01-01");
    }) << doc.dump();
  }
  // What can be shown still is: the malformed finding under its number, the bad steps as JSON.
  const std::string html = render_html({{"x", malformed_docs()[3]}});
  EXPECT_NE(html.find("id=\"finding_1\""), std::string::npos);
  EXPECT_NE(html.find("not valid base64"), std::string::npos);
  EXPECT_EQ(occurrences(html, "<tr class=\"fuzz-step\">"), 8u);
  const std::string odd = render_html({{"x", malformed_docs()[1]}});
  EXPECT_NE(odd.find("5 entries of the findings array are not objects"), std::string::npos);
}

}  // namespace
}  // namespace ac::reports::testing
