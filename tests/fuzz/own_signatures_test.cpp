// The AgentProtocol profile knows which frames it signed itself and does not verify them again
// (harness/fuzz/profiles/agentprotocol.cpp, signed_here_intact): what it then owes the target
// must be exactly what ap::verify_text() would have made it owe. A frame signed "valid" and sent
// as made is owed nothing; one whose bytes or sender differ from what was signed is judged by the
// full verification, and owed INVALID_SIGNATURE when that fails.
#include <gtest/gtest.h>

#include "harness/fuzz/profile.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"

namespace ac::fuzz {
namespace {

namespace ap = proto::agentprotocol;

struct FuzzOwnSignatures : ::testing::Test {
  void SetUp() override {
    view.config.settings["peer_agent_id"] = "peer-agent";
    profile.begin(exec, view);
    ASSERT_FALSE(exec.id_of("a").empty());
    ASSERT_FALSE(exec.id_of("b").empty());
  }
  // A request from `from` (an agent id) to the peer, as the executor hands it over: placeholders
  // already filled.
  static Json request(const std::string& from) {
    return Json{{"protocol", "agentprotocol/0.1"},
                {"id", "6f1c2a44-0d4b-4c39-9a57-0e7c1f1b2a01"},
                {"timestamp", "2026-11-26T10:00:00.000Z"},
                {"from", {{"agentId", from}, {"capabilities", {"agentprotocol:core"}}}},
                {"to", {{"agentId", "peer-agent"}, {"broadcast", false}}},
                {"type", "request"},
                {"payload", {{"action", "echo"}, {"correlationId", "c-1"}, {"params", {{"text", "hi"}}}, {"timeout", 5000}}}};
  }
  std::string signed_by_a(const Json& message) { return profile.finish_text(exec, text_step("a", message, "valid"), message.dump()); }
  // The codes sent() made connection `c` owe for `payload` ("" for "any error").
  std::vector<std::string> owed(const std::string& payload) {
    ConnRecord c;
    c.label = "a";
    profile.sent(exec, c, payload);
    std::vector<std::string> codes;
    for (const auto& e : c.expect.value("errors", Json::array())) codes.push_back(e.value("code", ""));
    return codes;
  }

  const Profile& profile = profile_for(Protocol::agentprotocol);
  TargetView view;
  Exec exec;
};

TEST_F(FuzzOwnSignatures, AFrameSentAsSignedIsOwedNothing) {
  const std::string payload = signed_by_a(request(exec.id_of("a")));
  ASSERT_TRUE(ap::verify_text(payload)) << payload;
  EXPECT_TRUE(owed(payload).empty());
}

TEST_F(FuzzOwnSignatures, AnotherAgentsIdUnderTheSendersKeyIsOwedInvalidSignature) {
  const std::string payload = signed_by_a(request(exec.id_of("b")));  // signed with a's key, claims b
  ASSERT_FALSE(ap::verify_text(payload));
  EXPECT_EQ(owed(payload), std::vector<std::string>{"INVALID_SIGNATURE"});
}

TEST_F(FuzzOwnSignatures, BytesChangedAfterSigningAreJudgedByTheFullVerification) {
  const Json signed_message = Json::parse(signed_by_a(request(exec.id_of("a"))));
  // The same message spelled differently still verifies: owed nothing.
  const std::string respelled = signed_message.dump(2);
  ASSERT_TRUE(ap::verify_text(respelled));
  EXPECT_TRUE(owed(respelled).empty());
  // A member changed after signing no longer verifies: owed INVALID_SIGNATURE.
  Json tampered = signed_message;
  tampered["payload"]["params"]["text"] = "bye";
  ASSERT_FALSE(ap::verify_text(tampered.dump()));
  EXPECT_EQ(owed(tampered.dump()), std::vector<std::string>{"INVALID_SIGNATURE"});
}

}  // namespace
}  // namespace ac::fuzz
