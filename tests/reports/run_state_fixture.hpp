// Hand-built documents for what issue 11 added to results: a setup error (the preflight failed,
// no case ran), an interrupted run, a target that stopped answering mid-run, and a run with N/A
// groups, root causes, readings and blamed requirements. Built with the engine's own to_json and
// compute_coverage, with the gate overridden as `agentconform run` overrides it, so the writers
// are tested on what `run` writes. hostile_run_doc() puts a hostile target's bytes into every new
// member, as a hand-edited or malicious results file could.
#pragma once

#include "harness/engine/coverage.hpp"
#include "reports/baseline.hpp"
#include "tests/reports/report_fixture.hpp"

namespace ac::reports::testing {

inline RunResult base_run() {
  RunResult r;
  r.started_at = "2025-01-31T12:00:00Z";
  r.finished_at = "2025-01-31T12:00:05Z";
  r.duration_ms = 5000;
  r.seed = 7;
  r.target = {{"kind", "remote"}, {"url", "ws://127.0.0.1:9/chopsticks/ws"}};
  r.options = {{"jobs", 1}, {"timeout_scale", 1.0}, {"strict_readings", false}};
  return r;
}

// The gate as `run` sets it for what the verdicts do not show (harness/cli/cmd_run.cpp).
inline Json with_gate(Json doc, int exit_code, const std::string& summary) {
  Gate g = evaluate(doc, nullptr, Policy::must, "2025-02-01");
  g.exit_code = exit_code;
  g.summary = summary;
  doc["gate"] = to_json(g);
  return doc;
}

inline const std::string kSetupCheck = "paths.ws";
inline const std::string kSetupDetail = "GET /chopsticks/ws answered HTTP 404 (no WebSocket upgrade)";
inline const std::string kSetupFix = "set paths.ws in target.json to the path your controller serves WebSockets on";

// The preflight of chopsticks failed at its WebSocket path: no case ran, exit 3.
inline Json setup_error_doc(const std::string& check = kSetupCheck, const std::string& detail = kSetupDetail,
                            const std::string& fix = kSetupFix) {
  RunResult r = base_run();
  engine::Transcript t;
  t.add("preflight", "out", "http", "GET /chopsticks/ws");
  t.add("preflight", "in", "http", "404 Not Found", 404);
  r.preflight = {{"chopsticks",
                  {{"ok", false},
                   {"checks", Json::array({Json{{"check", "reachable"}, {"status", "passed"}, {"detail", "127.0.0.1:9 answers HTTP"}},
                                           Json{{"check", "tls"}, {"status", "passed"}, {"detail", "plain ws:// and not a TLS port"}},
                                           Json{{"check", check}, {"status", "failed"}, {"detail", detail}, {"fix", fix}}})},
                   {"summary", check + ": " + detail + "\n  fix: " + fix},
                   {"transcript", t.to_json()}}}};
  r.setup_error = "chopsticks: " + check + ": " + detail + "\n  fix: " + fix;
  Json doc = engine::to_json(r, catalog());
  return with_gate(std::move(doc), 3, "setup error: chopsticks: " + check + ": " + detail);
}

// SIGINT after two cases: one in flight stopped before its next step, two never started.
inline Json interrupted_doc() {
  RunResult r = base_run();
  r.target = {{"kind", "embedded"}, {"url", "http://127.0.0.1:1234"}};
  r.preflight = {{"chopsticks", {{"ok", true}, {"checks", Json::array({Json{{"check", "reachable"}, {"status", "passed"}, {"detail", "ok"}}})},
                                 {"summary", ""}, {"transcript", Json::array()}}}};
  r.cases.push_back(make_case("CHOP-VER-001", "chopsticks", "version-rejection", Verdict::pass, "MUST",
                              {"CHOP-versioning-accept-compatible"}));
  CaseResult fail = make_case("CHOP-VER-002", "chopsticks", "version-rejection", Verdict::fail, "MUST",
                              {"CHOP-versioning-reject-incompatible"});
  fail.blamed = {"CHOP-versioning-reject-incompatible"};
  r.cases.push_back(std::move(fail));
  CaseResult cut = make_case("CHOP-HS-001", "chopsticks", "handshake", Verdict::error);
  cut.reason = "step 2: interrupted before this step";
  r.cases.push_back(std::move(cut));
  for (const char* id : {"CHOP-HS-002", "CHOP-HS-003"}) {
    CaseResult c = make_case(id, "chopsticks", "handshake", Verdict::error);
    c.reason = "not run: the run was interrupted";
    c.transcript = Json::array();
    r.cases.push_back(std::move(c));
  }
  r.interrupted = "SIGINT";
  r.coverage = engine::compute_coverage(catalog(), r.cases, {});
  return with_gate(engine::to_json(r, catalog()), 130, "interrupted by SIGINT: the reports cover the cases that ran");
}

// The target died during CHOP-VER-002; the two cases after it were not run.
inline Json target_down_doc() {
  RunResult r = base_run();
  r.cases.push_back(make_case("CHOP-VER-001", "chopsticks", "version-rejection", Verdict::pass, "MUST",
                              {"CHOP-versioning-accept-compatible"}));
  CaseResult died = make_case("CHOP-VER-002", "chopsticks", "version-rejection", Verdict::error, "MUST",
                              {"CHOP-versioning-reject-incompatible"});
  died.reason = "the target stopped answering during this case (step 3: connection refused)";
  r.cases.push_back(std::move(died));
  for (const char* id : {"CHOP-HS-001", "CHOP-HS-002"}) {
    CaseResult c = make_case(id, "chopsticks", "handshake", Verdict::error);
    c.reason = "not run: the target stopped answering (first noticed in CHOP-VER-002)";
    r.cases.push_back(std::move(c));
  }
  r.target_down = {{"protocol", "chopsticks"}, {"detected_in", "CHOP-VER-002"}, {"last_completed", "CHOP-VER-001"}};
  r.coverage = engine::compute_coverage(catalog(), r.cases, {});
  return with_gate(engine::to_json(r, catalog()), 3, "the target stopped answering during CHOP-VER-002");
}

inline const std::string kRootCause = "POST /api/v1/register answered HTTP 404";
inline const std::string kFeatureCause = "feature chopsticks.streams not claimed in target.json";
inline const std::string kRoleCause = "role agent not played by the target";

// Blame, readings, root causes and N/A groups together:
//   CHOP-MIX-001 FAIL: blames CHOP-versioning-validate (a spec MUST), not the case's reading
//                CHOP-hello-no-takeover, which it never reached;
//   CHOP-MIX-002 WARN: a reading (CHOP-hello-agent-id-fixed) failed, gated as SHOULD;
//   ALP-RC-001..003 FAIL: one root cause, each blaming its own requirement;
//   CHOP-NA-001..003 N/A for a feature, CHOP-NA-004 N/A for a role.
inline RunResult rich_run(bool strict_readings = false) {
  RunResult r = base_run();
  r.options["strict_readings"] = strict_readings;
  r.cases.push_back(make_case("CHOP-VER-001", "chopsticks", "version-rejection", Verdict::pass, "MUST",
                              {"CHOP-versioning-accept-compatible"}));
  CaseResult mix = make_case("CHOP-MIX-001", "chopsticks", "handshake", Verdict::fail, "MUST",
                             {"CHOP-hello-no-takeover", "CHOP-versioning-validate"});
  mix.blamed = {"CHOP-versioning-validate"};
  r.cases.push_back(std::move(mix));
  CaseResult reading = make_case("CHOP-MIX-002", "chopsticks", "handshake", strict_readings ? Verdict::fail : Verdict::warn, "MUST",
                                 {"CHOP-hello-agent-id-fixed", "CHOP-versioning-exact-string"});
  reading.blamed = {"CHOP-hello-agent-id-fixed"};
  reading.reading = true;
  r.cases.push_back(std::move(reading));
  const char* alp_reqs[] = {"ALP-3-agent-id-unique", "ALP-3-lobby-id-stable", "ALP-4.2-ws-endpoint"};
  for (int i = 0; i < 3; ++i) {
    CaseResult c = make_case("ALP-RC-00" + std::to_string(i + 1), "alp", "lifecycle", Verdict::fail, "MUST", {alp_reqs[i]});
    c.blamed = {alp_reqs[i]};
    c.root_cause = kRootCause;
    r.cases.push_back(std::move(c));
  }
  for (int i = 1; i <= 4; ++i) {
    CaseResult c = make_case("CHOP-NA-00" + std::to_string(i), "chopsticks", "streaming", Verdict::not_applicable, "MUST",
                             {"CHOP-versioning-matrix"});
    c.na_cause = i < 4 ? kFeatureCause : kRoleCause;
    c.reason = "N/A: " + c.na_cause;
    r.cases.push_back(std::move(c));
  }
  r.coverage = engine::compute_coverage(catalog(), r.cases, {});
  return r;
}

inline Json rich_doc(bool strict_readings = false) {
  return with_gate(engine::to_json(rich_run(strict_readings), catalog()), 1, "not conformant: 4 new failures");
}

// Every member issue 11 added, filled with what a hostile target (or a hand-edited file) could
// put there: markup, script, XML breakers, control characters and invalid UTF-8.
inline const std::string kHostileAll = kHostileScript + kHostileImg + kHostileXml + std::string(" \xFF\xFE ", 4);

inline Json hostile_run_doc() {
  Json doc = engine::to_json(rich_run(), catalog());
  const std::string h = kHostileAll;
  doc["preflight"] = {{"chopsticks" + h,
                       {{"ok", false},
                        {"checks", Json::array({Json{{"check", "paths.ws" + h}, {"status", "failed" + h}, {"detail", "d" + h}, {"fix", "f" + h}},
                                                Json{{"check", "x" + h}, {"status", "failed"}, {"detail", "d2" + h}, {"fix", "f2" + h}}})},
                        {"summary", h},
                        {"transcript", Json::array({Json{{"t_ms", 1}, {"channel", h}, {"direction", "in"}, {"kind", "http"}, {"data", h}}})}}}};
  doc["setup_error"] = "chopsticks: " + h;
  doc["interrupted"] = "SIGINT" + h;
  doc["target_down"] = {{"protocol", h}, {"detected_in", "CHOP-MIX-001"}, {"last_completed", "NO-SUCH" + h}};
  doc["coverage"]["side"] = h;
  doc["coverage"]["untested"].push_back({{"id", "REQ" + h}, {"protocol", "chopsticks"}, {"reason", "why" + h}});
  doc["coverage"]["protocols"][h] = {{"must", {{"applicable", 1}, {"tested", 0}, {"percent", 0}}},
                                     {"readings", {{"applicable", 0}, {"tested", 0}, {"percent", 100}}}};
  doc["not_applicable"].push_back({{"cause", "na" + h}, {"count", 1}, {"cases", {"CASE" + h}}});
  doc["root_causes"].push_back({{"cause", "rc" + h}, {"count", 3}, {"cases", {"CHOP-MIX-001", "CASE" + h}}});
  for (auto& c : doc["cases"]) {
    if (c["verdict"] == "FAIL" || c["verdict"] == "WARN") c["blamed"].push_back("BLAMED" + h);
    if (c["verdict"] == "NOT_APPLICABLE") c["na_cause"] = "na" + h;
    if (c["verdict"] == "FAIL") c["root_cause"] = "rc" + h;
  }
  return doc;
}

}  // namespace ac::reports::testing
