// The A2ACP driver without a target: filled envelopes validate against schemas/a2acp, and each
// forged token kind fails exactly the token rule its cases claim to test (so an "expired" case
// cannot pass because the token was, say, badly signed). Kinds that need the auth service
// (valid, missing-capability, wrong-audience, the tampered bad-signature) are exercised against
// the reference by the suites.
#include <gtest/gtest.h>

#include "harness/engine/driver.hpp"
#include "harness/engine/target.hpp"
#include "harness/engine/target_decl.hpp"
#include "harness/protocols/a2acp/codec.hpp"
#include "harness/protocols/a2acp/token.hpp"
#include "harness/util/data_dir.hpp"

namespace ac::engine {
namespace {

namespace a2 = proto::a2acp;

constexpr const char* kSecret = "a2acp-driver-test-secret-0123456789-abcdefghij";

class A2acpDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The target a user's empty target.json gives: the declared defaults of suites/a2acp.
    // Nothing listens on port 9: no case here may need HTTP.
    auto declarations = Declarations::load(data_dir() / "suites");
    ASSERT_TRUE(declarations) << declarations.error();
    const auto* declaration = declarations->find("a2acp");
    ASSERT_NE(declaration, nullptr);
    auto made = target_from_document(*declaration, Json::object(), "http://127.0.0.1:9", "test");
    ASSERT_TRUE(made) << made.error();
    target = std::move(*made);
    target.settings["jwt_secret"] = kSecret;
    kase.id = "A2A-TEST-001";
    kase.protocol = "a2acp";
    env = std::make_unique<CaseEnv>(runtime, target, kase, vars, transcript, std::chrono::milliseconds(200), 7);
    for (const char* name : {"src", "dst"}) {
      AgentSession a;
      a.name = name;
      a.id = env->unique(name);
      if (std::string(name) == "dst") a.props = {{"directory", "dataset"}};
      auto& slot = env->agents[name] = std::move(a);
      driver.init_agent(slot, *env);
    }
  }

  Json fill(Json step) {
    step["send"] = "src";
    auto m = driver.fill(step.value("message", Json::object()), env->agents["src"], step, *env);
    EXPECT_TRUE(m) << (m ? "" : m.error());
    return m ? *m : Json();
  }

  // The token of a handshake filled with `options`, verified as the broker would.
  Expected<a2::TokenClaims, a2::TokenError> verify(Json options) {
    options["message"] = {{"intent", "initiate_handshake"}, {"payload", {{"target_agent_id", "x"}, {"requested_intent", "echo"}}}};
    const Json m = fill(options);
    auto key = crypto::jwt::Key::hmac(kSecret);
    EXPECT_TRUE(key);
    a2::Expectations e;
    e.audience = "protocol-broker-agent";
    return a2::verify(m["security"]["auth_token"].get<std::string>(), *key, e);
  }

  const Driver& driver = driver_for(proto::ProtocolId::a2acp);
  net::Runtime runtime{1};
  TargetConfig target;
  Case kase;
  Vars vars;
  Transcript transcript;
  std::unique_ptr<CaseEnv> env;
};

TEST_F(A2acpDriverTest, FilledEnvelopeIsAValidMessageAddressedToTheBroker) {
  const Json m = fill({{"message", {{"intent", "initiate_handshake"}, {"payload", {{"target_agent_id", "x"}, {"requested_intent", "echo"}}}}},
                       {"claims", {{"jti", "control"}}}});
  auto typed = a2::from_json(m);
  ASSERT_TRUE(typed) << typed.error().describe() << "\n" << m.dump();
  EXPECT_EQ(m["protocol_version"], "1.0");
  EXPECT_EQ(m["message_type"], "request");
  EXPECT_EQ(m["source_agent"]["agent_id"], env->agents["src"].id);
  EXPECT_EQ(m["target_agent"]["agent_id"], "protocol-broker-agent");
  EXPECT_EQ(m["security"]["encryption"], "none");
}

TEST_F(A2acpDriverTest, ToNamesTheAddresseeAndContractIdGoesIntoThePayload) {
  const Json m = fill({{"to", "dst"}, {"contract_id", "k-1"}, {"token", "alg-none"}, {"message", {{"payload", {{"n", 1}}}}}});
  EXPECT_EQ(m["target_agent"]["agent_id"], env->agents["dst"].id);
  EXPECT_EQ(m["payload"], Json({{"n", 1}, {"contract_id", "k-1"}}));
}

TEST_F(A2acpDriverTest, DirectoryAgentsGetDistinctPoolIds) {
  EXPECT_TRUE(env->agents["dst"].id.starts_with("dataset-provisioning-agent"));  // the third-party default pool
  EXPECT_NE(env->agents["src"].id, env->agents["dst"].id);
}

TEST_F(A2acpDriverTest, EachForgedKindFailsItsOwnRule) {
  EXPECT_TRUE(verify({{"claims", {{"jti", "control"}}}})) << "a correctly signed token must pass, or the others prove nothing";
  auto code = [&](Json options) {
    auto r = verify(std::move(options));
    return r ? std::string("accepted") : std::string(a2::errc_name(r.error().code));
  };
  EXPECT_EQ(code({{"token", "expired"}}), "expired");
  EXPECT_EQ(code({{"token", "wrong-issuer"}}), "issuer");
  EXPECT_EQ(code({{"token", "not-yet-valid"}}), "not-yet-valid");
  EXPECT_EQ(code({{"token", "alg-none"}}), "signature");
  EXPECT_EQ(code({{"token", "bad-signature"}, {"key", "other"}}), "signature");
  EXPECT_EQ(code({{"token", "garbage"}}), "malformed");
  EXPECT_EQ(code({{"claims", {{"domain", nullptr}}}}), "missing-claim");
  EXPECT_EQ(code({{"claims", {{"aud", "someone-else"}}}}), "audience");
}

TEST_F(A2acpDriverTest, TokenNoneLeavesNoAuthToken) {
  const Json m = fill({{"token", "none"}, {"message", Json::object()}});
  EXPECT_FALSE(m["security"].contains("auth_token"));
}

TEST_F(A2acpDriverTest, EditsApplyAfterTheToken) {
  const Json m = fill({{"token", "alg-none"}, {"message", Json::object()}, {"patch", {{"/target_agent/agent_id", "elsewhere"}}}});
  EXPECT_EQ(m["target_agent"]["agent_id"], "elsewhere");
  EXPECT_TRUE(m["security"]["auth_token"].is_string());
}

}  // namespace
}  // namespace ac::engine
