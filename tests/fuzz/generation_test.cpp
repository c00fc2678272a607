// The generator: determinism, the five mutation families, schema guidance, and the reproducer
// format (every step kind round-trips exactly, bytes that are not UTF-8 included).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "harness/fuzz/fuzz.hpp"
#include "harness/fuzz/profiles/profiles.hpp"

namespace ac::fuzz {
namespace {

std::string sequence(Protocol p, std::uint64_t seed, int n) {
  std::string all;
  for (int i = 0; i < n; ++i) {
    all += steps_to_json(generate(p, seed, static_cast<std::uint64_t>(i)).steps).dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  }
  return all;
}

TEST(FuzzGeneration, SameSeedSameSequenceOtherSeedOtherSequence) {
  for (Protocol p : kAllProtocols) {
    const std::string first = sequence(p, 42, 60);
    EXPECT_EQ(first, sequence(p, 42, 60)) << protocol_name(p);
    EXPECT_NE(first, sequence(p, 43, 60)) << protocol_name(p);
  }
}

TEST(FuzzGeneration, SessionNIsTheSameWhateverRanBefore) {
  // Parallel jobs take session numbers in any order: session N must not depend on it.
  const Session direct = generate(Protocol::alp, 9, 77);
  for (int i = 0; i < 76; ++i) (void)generate(Protocol::alp, 9, static_cast<std::uint64_t>(i));
  EXPECT_EQ(generate(Protocol::alp, 9, 77).steps, direct.steps);
}

TEST(FuzzGeneration, EveryFamilyIsDrawnForEveryProtocolAndStepsRoundTrip) {
  for (Protocol p : kAllProtocols) {
    std::set<std::string> families;
    bool non_utf8 = false;
    for (std::uint64_t i = 0; i < 400; ++i) {
      Session s = generate(p, 7, i);
      for (const auto& m : s.mutations) families.insert(m.substr(0, m.find(':')));
      // Every session round-trips but one in ten of those carrying large payloads (64 KiB strings,
      // frames past 1 MiB): parsing them again is most of this test's time under the sanitizers.
      const Json as_json = steps_to_json(s.steps);
      const std::string text = as_json.dump();
      for (const auto& st : as_json) non_utf8 = non_utf8 || st.contains("data_b64");
      if (text.size() > 32 * 1024 && i % 10 != 0) continue;
      auto back = steps_from_json(Json::parse(text));
      ASSERT_TRUE(back) << back.error();
      ASSERT_EQ(*back, s.steps) << protocol_name(p) << " session " << i;
    }
    const std::set<std::string> all = {"field", "structure", "framing", "timing", "auth"};
    EXPECT_EQ(families, all) << protocol_name(p);
    EXPECT_TRUE(non_utf8) << protocol_name(p) << ": invalid UTF-8 payloads are generated and survive the reproducer format";
  }
}

TEST(FuzzGeneration, SeedFlowsAreValidMessagesOfTheirProtocol) {
  // Unmutated, every text step is a valid message once its placeholders are filled with
  // plausible values; so what the mutations break is the only thing broken.
  for (Protocol p : kAllProtocols) {
    Rng rng(1);
    for (const auto& step : profile_for(p).seed_flow(rng, Scope{})) {
      if (step.kind != Step::Kind::text) continue;
      std::string text = step.data;
      for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
               {"${now}", "2026-11-24T10:00:00Z"}, {"${version}", "0.2.0"}, {"${contract}", "contract-1"}, {"${b.collab}", "collab-1"},
               {"${peer}", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}}) {
        for (std::size_t at; (at = text.find(from)) != std::string::npos;) text.replace(at, from.size(), to);
      }
      for (std::size_t at; (at = text.find("${uuid:")) != std::string::npos;) {
        text.replace(at, text.find('}', at) - at + 1, "9b2f8c7e-1d3a-4b5c-8d6e-7f8091a2b3c4");
      }
      for (std::size_t at; (at = text.find("${")) != std::string::npos;) {
        const auto end = text.find('}', at);
        const std::string name = text.substr(at + 2, end - at - 2);
        // Agent ids: AgentProtocol's are public keys; tokens are opaque strings here.
        const std::string value = p == Protocol::agentprotocol && name.size() == 1 ? "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" : "id-" + name;
        text.replace(at, end - at + 1, value);
      }
      if (p == Protocol::agentprotocol) {
        Json j = Json::parse(text);
        j["signature"] = std::string(86, 'A') + "==";  // signed at execution; its shape is what the schema checks
        text = j.dump();
      }
      auto decoded = profile_of(p).decode(text);
      EXPECT_TRUE(decoded) << protocol_name(p) << ": " << (decoded ? "" : decoded.error().describe()) << "\n" << text;
    }
  }
}

TEST(FuzzGeneration, FieldMutationsFollowTheSchema) {
  // The schema-guided branch names what it broke, and what it broke is invalid to the codec.
  std::size_t guided = 0, rejected = 0;
  for (std::uint64_t i = 0; i < 3000 && guided < 60; ++i) {
    Rng rng(i);
    Json msg = {{"type", "send_chunk"}, {"to", "agent-2"}, {"stream_id", "s1"}, {"chunk", "text"}};
    std::string what;
    const std::string out = mutate_message(rng, Protocol::agora, msg, what);
    if (what.find("schema rule broken") == std::string::npos && what.find("required member") == std::string::npos) continue;
    ++guided;
    rejected += profile_of(Protocol::agora).decode(out) ? 0 : 1;
  }
  EXPECT_GE(guided, 60u);
  EXPECT_GE(rejected, guided * 8 / 10) << "schema-guided mutations mostly produce frames the schema rejects";
}

TEST(FuzzGeneration, FamiliesRestrictWhatIsDrawn) {
  auto only = parse_families("field,structure");
  ASSERT_TRUE(only);
  for (std::uint64_t i = 0; i < 300; ++i) {
    for (const auto& m : generate(Protocol::agora, 3, i, *only).mutations) {
      EXPECT_TRUE(m.starts_with("field") || m.starts_with("structure")) << m;
    }
  }
  EXPECT_FALSE(parse_families("field,bogus"));
  EXPECT_EQ(families_text(*parse_families("all")), "field,structure,framing,timing,auth");
}

TEST(FuzzGeneration, ReproducerStepsAreReadDefensively) {
  EXPECT_FALSE(steps_from_json(Json::parse(R"([{"conn":"a","action":"explode"}])")));
  EXPECT_FALSE(steps_from_json(Json::parse(R"([{"conn":"a","action":"frames","frames":[{"opcode":99}]}])")));
  EXPECT_FALSE(steps_from_json(Json::parse(R"([{"conn":"a","action":"text","repeat":0}])")));
  EXPECT_FALSE(steps_from_json(Json::parse(R"([{"conn":"a","action":"sleep","ms":999999999}])")));
  EXPECT_FALSE(steps_from_json(Json::parse(R"([{"conn":"a","action":"http","headers":{"x":1}}])")));
  EXPECT_FALSE(steps_from_json(Json::parse(R"({"conn":"a"})")));
  auto ok = steps_from_json(Json::parse(R"([{"conn":"a","action":"await","data":"x","ms":10,"capture":{"v":"/a"}}])"));
  ASSERT_TRUE(ok);
  EXPECT_EQ((*ok)[0].kind, Step::Kind::await);
}

}  // namespace
}  // namespace ac::fuzz

namespace ac::fuzz {
namespace {

// The classic bugs (issue 12): control characters (NUL above all), invalid and overlong UTF-8
// inside well-formed JSON strings, lone surrogates, extreme numbers and nesting at and past the
// usual limits reach every message type of every protocol, and every protocol but Chopsticks has
// sessions in which two agents use one id at once.
TEST(FuzzGeneration, ClassicDamageReachesEveryMessageTypeAndIdsCollide) {
  const std::vector<std::string> kinds = {"NUL in a string", "control character in a string", "invalid UTF-8 in a string",
                                          "lone surrogate in a string", "extreme number", "deep nesting"};
  for (Protocol p : kAllProtocols) {
    SCOPED_TRACE(std::string(protocol_name(p)));
    std::map<std::string, std::set<std::string>> types_of;  // kind -> message types it reached
    std::set<std::string> seed_types;
    bool collision = false, past_limits = false;
    // Long A2ACP and AgentProtocol sessions carry about 2.5 times the mutations of a short one
    // (Profile::mutation_rounds): fewer of them try as much, in less time under the sanitizers.
    const std::uint64_t sessions = p == Protocol::a2acp || p == Protocol::agentprotocol ? 600 : 1500;
    for (std::uint64_t i = 0; i < sessions; ++i) {
      const Session s = generate(p, 11, i);
      if (i < 50) {
        Rng rng(i);
        for (const auto& step : profile_for(p).seed_flow(rng, Scope{})) {
          const Json j = Json::parse(step.data, nullptr, false);
          for (const char* key : {"type", "message_type", "intent"}) {
            if (step.kind == Step::Kind::text && j.is_object() && j.contains(key) && j[key].is_string()) {
              seed_types.insert(j[key].get<std::string>());
              break;
            }
          }
        }
      }
      for (const auto& tag : mutation_tags(s.steps)) {
        for (const auto& k : kinds) {
          const std::string prefix = "field: " + k + " at ";
          if (tag.rfind(prefix, 0) == 0) types_of[k].insert(tag.substr(prefix.size(), tag.find(' ', prefix.size()) - prefix.size()));
        }
        collision = collision || tag.find("reuses") != std::string::npos || tag.find("stream_id of a's open stream") != std::string::npos;
      }
      for (const auto& m : s.mutations) past_limits = past_limits || m.find("nesting 10000 deep") != std::string::npos;
    }
    for (const auto& k : kinds) EXPECT_FALSE(types_of[k].empty()) << k;
    for (const auto& type : seed_types) EXPECT_TRUE(types_of["NUL in a string"].count(type)) << "no NUL reached a " << type << " message";
    EXPECT_TRUE(past_limits) << "nesting past what a recursive serializer handles";
    if (p != Protocol::chopsticks) {
      EXPECT_TRUE(collision) << "no session reuses an id across agents";
    }
  }
}


// A long seed flow takes a round of 1-3 mutations per few exchanges (Profile::mutation_rounds):
// the A2ACP broker flow (one handshake, up to 16 exchanges) and the AgentProtocol flow (one pair
// of hellos, up to 12 rounds of requests) are long in most sessions and must not be mutated less
// densely for it; the other protocols keep one round.
TEST(FuzzGeneration, LongSeedFlowsTakeARoundOfMutationsPerFewExchanges) {
  for (Protocol p : kAllProtocols) {
    const Profile& profile = profile_for(p);
    std::size_t most = 0, most_rounds = 0;
    for (std::uint64_t i = 0; i < 200; ++i) {
      Rng rng(1000 + i);
      Rng seed_rng = rng;  // generate() draws the seed flow first, from the same state
      const std::size_t rounds = profile.mutation_rounds(profile.seed_flow(seed_rng, {}));
      const Session s = generate(p, rng);
      ASSERT_GE(rounds, 1u);
      EXPECT_LE(s.mutations.size(), 3 * rounds) << protocol_name(p) << " session " << i;
      most = std::max(most, s.mutations.size());
      most_rounds = std::max(most_rounds, rounds);
    }
    if (p == Protocol::a2acp || p == Protocol::agentprotocol) {
      EXPECT_EQ(most_rounds, 4u) << protocol_name(p) << ": 16 exchanges or 12 rounds of requests, four rounds of mutations";
      EXPECT_GT(most, 3u) << "no " << protocol_name(p) << " session took more than one round of mutations";
    } else {
      EXPECT_EQ(most_rounds, 1u) << protocol_name(p);
    }
  }
}

}  // namespace
}  // namespace ac::fuzz
