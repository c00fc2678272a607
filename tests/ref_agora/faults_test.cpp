// Every fault of reference/agora/faults.json changes what the relay does: each test starts the
// lobby with one fault and asserts the observable difference (the correct behaviour is asserted
// by the other tests of this directory).
#include <fstream>
#include <set>

#include "reference/core/faults.hpp"
#include "tests/ref_agora/agora_fixture.hpp"

namespace ac::testing {
namespace {

class Faults : public AgoraTest {
 protected:
  void with(const std::string& fault) { start({fault}); }
};

TEST_F(Faults, CatalogueNamesOnlyKnownRequirementsAndEveryFaultIsTestedHere) {
  const std::set<std::string> tested = {"agora.chunks.reorder",
                                        "agora.chunks.drop-empty",
                                        "agora.stream.buffer-until-end",
                                        "agora.stream.accept-after-end",
                                        "agora.stream.accept-unknown",
                                        "agora.registration.allow-hijack",
                                        "agora.registration.refusal-unbinds",
                                        "agora.binding.keep-after-disconnect",
                                        "agora.from.trust-client",
                                        "agora.forward.strip-extra",
                                        "agora.reply.as-message",
                                        "agora.routing.broadcast",
                                        "agora.schema.coerce-wrong-types",
                                        "agora.error.silent-unknown-recipient",
                                        "agora.error.no-stream-id",
                                        "agora.frame.close-on-invalid"};
  std::ifstream in(std::string(AC_SOURCE_DIR) + "/suites/agora/requirements.json");
  const Json catalogue = Json::parse(in);
  std::set<std::string> ids;
  for (const auto& r : catalogue["requirements"]) ids.insert(r["id"].get<std::string>());
  std::set<std::string> listed;
  for (const auto& f : ref::FaultCatalog::builtin().all()) {
    if (f.protocol != "agora" || f.kind != "rule") continue;  // planted bugs: tests/fuzz/
    listed.insert(f.name);
    EXPECT_FALSE(f.breaks.empty()) << f.name;
    for (const auto& r : f.breaks) EXPECT_TRUE(ids.count(r)) << f.name << " breaks unknown requirement " << r;
  }
  EXPECT_EQ(listed, tested);
}

TEST_F(Faults, ChunksReorderSwapsPairs) {
  with("agora.chunks.reorder");
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, start_frame(b, "s"));
  for (const char* c : {"0", "1", "2"}) send(*ca, chunk_frame(b, "s", c));
  send(*ca, end_frame(b, "s"));
  EXPECT_EQ(next_json(*cb)["type"], "message");
  EXPECT_EQ(next_json(*cb)["chunk"], "1");
  EXPECT_EQ(next_json(*cb)["chunk"], "0");
  EXPECT_EQ(next_json(*cb)["chunk"], "2");
  EXPECT_EQ(next_json(*cb)["type"], "message_end");
}

TEST_F(Faults, DropEmptyLosesEmptyChunks) {
  with("agora.chunks.drop-empty");
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, start_frame(b, "s"));
  send(*ca, chunk_frame(b, "s", ""));
  send(*ca, chunk_frame(b, "s", "x"));
  next_json(*cb);
  EXPECT_EQ(next_json(*cb)["chunk"], "x");
}

TEST_F(Faults, BufferUntilEndHoldsChunks) {
  with("agora.stream.buffer-until-end");
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, start_frame(b, "s"));
  next_json(*cb);
  send(*ca, chunk_frame(b, "s", "x"));
  expect_silence(*cb, 200ms);
  send(*ca, end_frame(b, "s"));
  EXPECT_EQ(next_json(*cb)["chunk"], "x");
  EXPECT_EQ(next_json(*cb)["type"], "message_end");
}

TEST_F(Faults, AcceptAfterEndForwardsLateChunks) {
  with("agora.stream.accept-after-end");
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, start_frame(b, "s"));
  send(*ca, end_frame(b, "s"));
  send(*ca, chunk_frame(b, "s", "late"));
  next_json(*cb);
  next_json(*cb);
  EXPECT_EQ(next_json(*cb)["chunk"], "late");
  expect_silence(*ca, 100ms);
}

TEST_F(Faults, AcceptUnknownForwardsChunksOfNoStream) {
  with("agora.stream.accept-unknown");
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, chunk_frame(b, "never", "x"));
  EXPECT_EQ(next_json(*cb)["chunk"], "x");
  expect_silence(*ca, 100ms);
}

TEST_F(Faults, AllowHijackLetsTheNewestConnectionTakeTheId) {
  with("agora.registration.allow-hijack");
  const std::string a = id("a"), b = id("b");
  auto first = agent(a);
  auto cb = agent(b);
  auto thief = agent(a);
  send(*cb, {{"type", "send"}, {"to", a}, {"payload", Json::object()}});
  EXPECT_EQ(next_json(*thief)["type"], "message");
  expect_silence(*first, 100ms);
}

TEST_F(Faults, RefusalUnbindsTheFirstConnection) {
  with("agora.registration.refusal-unbinds");
  const std::string a = id("a"), b = id("b");
  auto first = agent(a);
  auto cb = agent(b);
  auto second = agent(a);
  expect_error(*second, "AGENT_ID_TAKEN");
  EXPECT_EQ(next_close(*second).close_code, 1008);
  for (int i = 0; i < 100 && agora_status()["agents_online"] != 1; ++i) std::this_thread::sleep_for(10ms);
  send(*cb, {{"type", "send"}, {"to", a}, {"payload", Json::object()}});
  expect_error(*cb, "UNKNOWN_RECIPIENT");
  expect_silence(*first, 100ms);
}

TEST_F(Faults, KeepAfterDisconnectLosesFramesAndBlocksTheId) {
  with("agora.binding.keep-after-disconnect");
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  {
    auto cb = agent(b);
    cb->close(1000, "bye");
    next_close(*cb);
  }
  std::this_thread::sleep_for(100ms);
  send(*ca, {{"type", "send"}, {"to", b}, {"payload", Json::object()}});
  expect_silence(*ca, 150ms);  // no UNKNOWN_RECIPIENT: "delivered" to the dead connection
  auto again = agent(b);
  expect_error(*again, "AGENT_ID_TAKEN");
}

TEST_F(Faults, TrustClientForwardsTheClaimedFrom) {
  with("agora.from.trust-client");
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, {{"type", "send"}, {"to", b}, {"from", "mallory"}, {"payload", Json::object()}});
  EXPECT_EQ(next_json(*cb)["from"], "mallory");
}

TEST_F(Faults, StripExtraRemovesUnknownMembers) {
  with("agora.forward.strip-extra");
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, {{"type", "send"}, {"to", b}, {"x-trace", 1}, {"payload", {{"kept", true}}}});
  Json m = next_json(*cb);
  EXPECT_FALSE(m.contains("x-trace"));
  EXPECT_EQ(m["payload"]["kept"], true);  // payload is not an extra member
}

TEST_F(Faults, ReplyAsMessageRenamesReplies) {
  with("agora.reply.as-message");
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*cb, {{"type", "reply"}, {"to", a}, {"payload", Json::object()}});
  Json m = next_json(*ca);
  EXPECT_EQ(m["type"], "message");
  EXPECT_EQ(m["from"], b);
}

TEST_F(Faults, BroadcastDeliversToBystanders) {
  with("agora.routing.broadcast");
  const std::string a = id("a"), b = id("b"), c = id("c");
  auto ca = agent(a);
  auto cb = agent(b);
  auto cc = agent(c);
  send(*ca, {{"type", "send"}, {"to", b}, {"payload", {{"secret", 1}}}});
  EXPECT_EQ(next_json(*cb)["payload"]["secret"], 1);
  EXPECT_EQ(next_json(*cc)["payload"]["secret"], 1);
  expect_silence(*ca, 100ms);
}

TEST_F(Faults, CoerceWrongTypesForwardsAFrameWhoseToIsAnArray) {
  with("agora.schema.coerce-wrong-types");
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, {{"type", "send"}, {"to", Json::array({b})}, {"payload", {{"lax", 1}}}});
  EXPECT_EQ(next_json(*cb)["payload"]["lax"], 1);  // the faithful relay answers INVALID_FRAME (AGORA-GEN cases)
}

TEST_F(Faults, SilentUnknownRecipientSendsNoError) {
  with("agora.error.silent-unknown-recipient");
  const std::string a = id("a");
  auto ca = agent(a);
  send(*ca, {{"type", "send"}, {"to", id("nobody")}, {"payload", Json::object()}});
  expect_silence(*ca, 200ms);
}

TEST_F(Faults, NoStreamIdInErrors) {
  with("agora.error.no-stream-id");
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, chunk_frame(b, "never", "x"));
  Json e = expect_error(*ca, "UNKNOWN_STREAM");
  EXPECT_FALSE(e.contains("stream_id"));
}

TEST_F(Faults, CloseOnInvalidDropsTheConnection) {
  with("agora.frame.close-on-invalid");
  const std::string a = id("a");
  auto ca = agent(a);
  ca->send_text("not json");
  expect_error(*ca, "INVALID_FRAME");
  EXPECT_EQ(next_close(*ca).close_code, 1008);
}

}  // namespace
}  // namespace ac::testing
