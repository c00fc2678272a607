// Hand-built result sets for the report tests: every verdict, unicode, hostile strings a target
// could send (markup, script, XML breakers, control characters, invalid UTF-8) and a huge
// transcript. Serialized with the engine's own to_json and the real requirement catalogue, so
// the writers are tested on the format `agentconform run` writes.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/crypto/base64.hpp"
#include "harness/engine/results.hpp"
#include "harness/engine/transcript.hpp"
#include "tests/support/process.hpp"

namespace ac::reports::testing {

using ac::testing::on_path;
using ac::testing::Process;
using ac::testing::run_process;
using ac::testing::slurp;
using ac::testing::spit;
using ac::testing::TempDir;
using engine::CaseResult;
using engine::RunResult;
using engine::Verdict;

// What a hostile target puts in its frames.
inline const std::string kHostileScript = "<script>document.title='pwned'</script>";
inline const std::string kHostileImg = "<img id=\"pwned\" src=x onerror=\"document.body.dataset.pwned=1\">";
inline const std::string kHostileXml = "]]></system-out></testcase><testcase name=\"injected\"/>&amp;\x01\x02";
inline const std::string kUnicode = "h\xC3\xA9llo \xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\x98\x80";  // héllo 世界 😀

inline const engine::RequirementCatalog& catalog() {
  static const engine::RequirementCatalog c = [] {
    auto r = engine::RequirementCatalog::load(std::filesystem::path(AC_SOURCE_DIR) / "suites");
    if (!r) throw std::runtime_error(r.error());
    return std::move(*r);
  }();
  return c;
}

inline CaseResult make_case(std::string id, std::string protocol, std::string suite, Verdict v, std::string level = "MUST",
                            std::vector<std::string> requirements = {}) {
  CaseResult c;
  c.id = std::move(id);
  c.title = "title of " + c.id;
  c.protocol = std::move(protocol);
  c.suite = std::move(suite);
  c.file = "suites/" + c.protocol + "/" + c.suite + ".json";
  c.role = "lobby";
  c.level = std::move(level);
  c.requirements = std::move(requirements);
  c.verdict = v;
  c.reason = v == Verdict::pass ? "" : "reason of " + c.id;
  c.duration_ms = 12.5;
  c.started_at = "2025-01-31T12:00:00Z";
  engine::Transcript t;
  t.add("a", "out", "text", "{\"type\":\"hello\"}");
  t.add("a", "in", "text", "{\"type\":\"welcome\"}");
  t.add("a", "in", "close", "bye", 1008);
  t.note("a harness note");
  c.transcript = t.to_json();
  return c;
}

// One case per verdict (chopsticks), a hostile FAIL, an ERROR and a case of another protocol.
inline RunResult every_verdict() {
  RunResult r;
  r.started_at = "2025-01-31T12:00:00Z";
  r.finished_at = "2025-01-31T12:00:05Z";
  r.duration_ms = 5000;
  r.seed = 42;
  r.target = {{"kind", "embedded"}, {"url", "http://127.0.0.1:1234"}, {"faults", Json::array()}};
  r.options = {{"jobs", 2}, {"timeout_scale", 1.0}};
  r.cases.push_back(make_case("CHOP-VER-001", "chopsticks", "version-rejection", Verdict::pass, "MUST",
                              {"CHOP-versioning-accept-compatible"}));
  CaseResult fail = make_case("CHOP-VER-002", "chopsticks", "version-rejection", Verdict::fail, "MUST",
                              {"CHOP-versioning-reject-incompatible"});
  fail.reason = "expected close 1008, got " + kHostileScript;
  fail.failed_step = engine::FailedStep{3, "3", Json{{"expect", "close"}, {"code", 1008}}, "the target " + kHostileImg,
                                        "close 1008", "close 1000 " + kHostileXml};
  {
    engine::Transcript t;
    t.add("a", "out", "text", "{\"type\":\"hello\"}");
    t.add("a", "in", "text", kHostileScript + kHostileImg + kHostileXml + kUnicode);
    t.add("a", "in", "binary", std::string("\xFF\xFE raw \x80", 8));  // not UTF-8
    t.add("a", "in", "close", "", 1000);
    fail.transcript = t.to_json();
  }
  r.cases.push_back(std::move(fail));
  r.cases.push_back(make_case("CHOP-VER-003", "chopsticks", "version-rejection", Verdict::warn, "SHOULD"));
  r.cases.push_back(make_case("CHOP-HS-001", "chopsticks", "handshake", Verdict::not_applicable, "MAY"));
  r.cases.push_back(make_case("CHOP-HS-002", "chopsticks", "handshake", Verdict::error));
  r.cases.push_back(make_case("ALP-LC-001", "alp", "lifecycle", Verdict::pass));
  return r;
}

// As `run` writes it: with the steps of the cases (here only the failing one's).
inline Json every_verdict_doc() {
  Json doc = engine::to_json(every_verdict(), catalog());
  doc["cases"][1]["description"] = "a hello without protocolVersion must be refused";
  doc["cases"][1]["steps"] = Json::array({Json{{"connect", "agent"}}, Json{{"send", "agent"}, {"message", {{"type", "hello"}}}},
                                          Json{{"expect", "agent"}, {"close", 1008}, {"note", kHostileScript}}});
  return doc;
}

// A FAIL whose transcript holds `entries` entries of `bytes` bytes each (as if from a file that
// was not bounded by the engine).
inline Json huge_transcript_doc(std::size_t entries, std::size_t bytes) {
  RunResult r = every_verdict();
  Json t = Json::array();
  for (std::size_t i = 0; i < entries; ++i) {
    t.push_back({{"t_ms", static_cast<double>(i)}, {"channel", "a"}, {"direction", i % 2 ? "in" : "out"}, {"kind", "text"},
                 {"data", std::string(bytes, static_cast<char>('a' + i % 26))}});
  }
  r.cases[1].transcript = t;
  return engine::to_json(r, catalog());
}

// ---- Fuzzing documents (agentconform fuzz, issue 6) ----

inline const std::vector<std::string>& every_oracle() {
  static const std::vector<std::string> o = {"liveness", "crash", "hang", "protocol", "isolation", "memory"};
  return o;
}
// Hostile bytes a finding's detail may quote: markup, an XML CDATA end, invalid UTF-8 and a NUL.
inline const std::string kHostileDetail =
    kHostileScript + " ]]> " + kHostileImg + std::string(" \xFF\xFE bad ", 8) + std::string("nul\0byte", 8) + " " + kHostileXml;

// A minimized session with every action the fuzzer writes, an unknown action with an unknown
// member, base64 payloads (printable and not) and hostile text payloads.
inline Json fuzz_steps() {
  const std::string binary("\0nul<script>", 12);
  return Json::array({
      Json{{"conn", "a"}, {"action", "connect"}, {"data", "/agora/ws?agent_id=${a}"}},
      Json{{"conn", "a"}, {"action", "text"}, {"data", "{\"type\":\"send\",\"to\":\"" + kHostileScript + "\"}"}},
      Json{{"conn", "a"}, {"action", "binary"}, {"data_b64", "3q2+7w=="}},
      Json{{"conn", "b"}, {"action", "binary"}, {"data_b64", crypto::base64_encode("printable payload")}},
      Json{{"conn", "a"}, {"action", "binary"}, {"data_b64", crypto::base64_encode(binary)}},
      Json{{"conn", "a"},
           {"action", "frames"},
           {"frames", Json::array({Json{{"opcode", 1}, {"fin", false}, {"rsv", 0}, {"data", "{\"ty"}},
                                   Json{{"opcode", 0}, {"fin", true}, {"rsv", 4}, {"data_b64", crypto::base64_encode("pe\":1}")}}})}},
      Json{{"conn", "a"}, {"action", "http"}, {"method", "POST"}, {"path", "/api/v1/register"}, {"data", kHostileXml}},
      Json{{"conn", "a"}, {"action", "sleep"}, {"ms", 50}},
      Json{{"conn", "c"}, {"action", "teleport"}, {"data", std::string("\xFF\xFE raw", 6)}, {"flux", {{"capacitor", kHostileImg}}}},
      Json{{"conn", "a"}, {"action", "close"}, {"code", 1000}},
  });
}

inline Json fuzz_transcript() {
  engine::Transcript t;
  t.add("a", "out", "text", "{\"type\":\"send\"}");
  t.add("c", "in", "text", kHostileScript + kHostileImg + kHostileXml);
  t.add("c", "in", "binary", std::string("\xFF\xFE\0 raw", 7));
  t.note("isolation: agent c got a chunk");
  return t.to_json();
}

inline Json make_finding(const std::string& protocol, const std::string& oracle, int n) {
  const std::string id = "FUZZ-" + protocol + "-" + oracle + "-" + std::to_string(n);
  const std::string file = "agentconform-fuzz/" + protocol + "-" + oracle + "-" + std::to_string(n) + ".json";
  return Json{{"id", id},
              {"protocol", protocol},
              {"oracle", oracle},
              {"signature", oracle + " signature of " + protocol},
              {"detail", "detail of " + id + ": " + kHostileDetail},
              {"seed", 1},
              {"iteration", 74 + n},
              {"mutations", Json::array({"field: member mutated in step 4", "framing: " + kHostileScript})},
              {"original_steps", 8},
              {"reproducer", {{"file", file}, {"replay", "agentconform fuzz --replay " + file}}},
              {"steps", fuzz_steps()},
              {"transcript", fuzz_transcript()}};
}

inline Json fuzz_figures_json() {
  return Json{{"protocol", "agora"},
              {"seed", 1},
              {"sessions", 300},
              {"frames", 4210},
              {"seconds", 12.5},
              {"frames_per_second", 336.8},
              {"families", Json::array({"field", "structure", "framing", "timing", "auth"})},
              {"target", {{"kind", "embedded"}, {"url", "http://127.0.0.1:40111"}, {"faults", Json::array({"agora.planted.x"})}}}};
}

// A fuzzing run as `agentconform fuzz` writes it: no case, the figures, one finding per oracle
// (four on agora, crash and hang on chopsticks so findings span two protocols).
inline Json fuzz_doc() {
  RunResult r;
  r.started_at = "2025-01-31T12:00:00Z";
  r.finished_at = "2025-01-31T12:00:13Z";
  r.duration_ms = 12500;
  r.seed = 1;
  r.target = {{"kind", "embedded"}, {"url", "http://127.0.0.1:40111"}, {"faults", Json::array({"agora.planted.x"})}};
  int n = 0;
  for (const auto& oracle : every_oracle()) {
    const bool chop = oracle == "crash" || oracle == "hang";
    r.findings.push_back(make_finding(chop ? "chopsticks" : "agora", oracle, ++n));
  }
  Json doc = engine::to_json(r, catalog());
  doc["fuzz"] = fuzz_figures_json();
  return doc;
}

// A fuzzing run that found nothing.
inline Json fuzz_clean_doc() {
  Json doc = fuzz_doc();
  doc["findings"] = Json::array();
  return doc;
}

}  // namespace ac::reports::testing
