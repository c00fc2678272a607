// The protocol oracle's owed-error bookkeeping (harness/fuzz/profile.hpp), on hand-made
// executions: an error owed and not received trips, a named code answered with another trips,
// the accepted stand-ins count, unclean connections are not judged.
#include <gtest/gtest.h>

#include "harness/fuzz/profile.hpp"

namespace ac::fuzz {
namespace {

net::WsEvent text_event(const Json& j) {
  net::WsEvent e;
  e.kind = ws::Event::Kind::text;
  e.data = j.dump();
  return e;
}

// Errors are frames {"error": CODE}.
std::vector<Json> errors_of(const ConnRecord& c) {
  std::vector<Json> out;
  for (const auto& e : c.events) {
    const Json j = Json::parse(e.data, nullptr, false);
    if (j.is_object() && j.contains("error")) out.push_back(j);
  }
  return out;
}
std::string code_of(const Json& e) { return e.value("error", ""); }

const OwedErrorRule kRule{"no error", "AUTH_FAILED", {"AUTH_FAILED", "RATE_LIMIT_EXCEEDED"}, "wrong code"};

Exec one_connection() {
  Exec exec;
  exec.conns.push_back(ConnRecord{});
  exec.conns[0].label = "a";
  return exec;
}

TEST(FuzzOwedErrors, NothingOwedNothingJudged) {
  Exec exec = one_connection();
  EXPECT_TRUE(owed_errors_arrived(exec, errors_of));
  EXPECT_FALSE(judge_owed_errors(exec, errors_of, code_of, kRule));
}

TEST(FuzzOwedErrors, AnOwedErrorThatDidNotComeTrips) {
  Exec exec = one_connection();
  owe_error(exec.conns[0], "{broken", "", "why not");
  EXPECT_EQ(exec.conns[0].expect["errors"][0]["why"], "why not");
  EXPECT_FALSE(owed_errors_arrived(exec, errors_of));
  auto trip = judge_owed_errors(exec, errors_of, code_of, kRule);
  ASSERT_TRUE(trip);
  EXPECT_EQ(trip->oracle, "protocol");
  EXPECT_EQ(trip->signature, "no error");
  EXPECT_NE(trip->detail.find("{broken"), std::string::npos) << trip->detail;

  exec.conns[0].events.push_back(text_event({{"error", "INVALID_MESSAGE"}}));
  EXPECT_TRUE(owed_errors_arrived(exec, errors_of));
  EXPECT_FALSE(judge_owed_errors(exec, errors_of, code_of, kRule));  // any error will do
}

TEST(FuzzOwedErrors, ANamedCodeAnsweredWithAnotherTrips) {
  Exec exec = one_connection();
  owe_error(exec.conns[0], "{\"token\":\"forged\"}", "AUTH_FAILED");
  exec.conns[0].events.push_back(text_event({{"error", "INVALID_MESSAGE"}}));
  auto trip = judge_owed_errors(exec, errors_of, code_of, kRule);
  ASSERT_TRUE(trip);
  EXPECT_EQ(trip->signature, "wrong code");
  EXPECT_NE(trip->detail.find("INVALID_MESSAGE"), std::string::npos) << trip->detail;

  exec.conns[0].events.push_back(text_event({{"error", "RATE_LIMIT_EXCEEDED"}}));  // an accepted stand-in
  EXPECT_FALSE(judge_owed_errors(exec, errors_of, code_of, kRule));
}

TEST(FuzzOwedErrors, TwoNamedOwedNeedTwoNamedErrors) {
  Exec exec = one_connection();
  owe_error(exec.conns[0], "one", "AUTH_FAILED");
  owe_error(exec.conns[0], "two", "AUTH_FAILED");
  exec.conns[0].events.push_back(text_event({{"error", "AUTH_FAILED"}}));
  exec.conns[0].events.push_back(text_event({{"error", "SOMETHING_ELSE"}}));
  auto trip = judge_owed_errors(exec, errors_of, code_of, kRule);
  ASSERT_TRUE(trip);
  EXPECT_EQ(trip->signature, "wrong code");
}

TEST(FuzzOwedErrors, UncleanOrClosedConnectionsAreNotHeldToTheirDebts) {
  Exec exec = one_connection();
  owe_error(exec.conns[0], "x");
  exec.conns[0].closed = true;  // the executor stops waiting for a closed connection ...
  EXPECT_TRUE(owed_errors_arrived(exec, errors_of));
  EXPECT_TRUE(judge_owed_errors(exec, errors_of, code_of, kRule));  // ... the oracle still judges it
  exec.conns[0].clean = false;  // sent something the target may fail the connection for
  EXPECT_FALSE(judge_owed_errors(exec, errors_of, code_of, kRule));
}

// A relay may forward byte for byte a frame the profile did not track: one with a byte-order mark
// before its JSON is valid UTF-8, so its connection stays clean. Found by `fuzz --protocol a2acp
// --jobs 8` against the fault-free lobby (a false isolation finding) on 2026-11-26.
TEST(FuzzSentUntracked, AVerbatimFrameOfACleanConnectionIsHeldToNothing) {
  Exec exec = one_connection();
  exec.conns.push_back(ConnRecord{});
  exec.conns[1].label = "b";
  const std::string bom_frame = "\xEF\xBB\xBF{\"message_type\":\"response\"}";
  exec.conns[1].sent.push_back(bom_frame);
  ASSERT_TRUE(exec.conns[1].clean);
  EXPECT_TRUE(sent_untracked(exec, bom_frame));
  EXPECT_FALSE(sent_untracked(exec, "{\"message_type\":\"response\"}"));  // changed in transit: not excused
}

}  // namespace
}  // namespace ac::fuzz
