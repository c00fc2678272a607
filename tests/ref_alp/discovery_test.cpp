// DISCOVER_CAPABILITIES -> CAPABILITIES_FOUND (§7.2, §10.1 step 4) over the network: name,
// version_match ranges, keywords (all / any), max_results and its default, query_ref, full
// Capability objects, offline agents with last_seen_utc.
#include "tests/ref_alp/alp_fixture.hpp"

namespace ac::testing {
namespace {

class Discovery : public AlpLobby {
 protected:
  // Sends a DISCOVER_CAPABILITIES and returns the CAPABILITIES_FOUND payload.
  Json discover(const Agent& a, alp::CapabilityFilter filter, std::optional<std::uint64_t> max_results = std::nullopt,
                bool with_conversation = true) {
    alp::Message m = alp::make_discover_capabilities(a.id, a.lobby_id, std::move(filter), max_results);
    if (!with_conversation) m.envelope.conversation_id.reset();
    a.send(m);
    Json found = next(a);
    EXPECT_EQ(found["message_type"], "CAPABILITIES_FOUND") << found.dump();
    EXPECT_EQ(found["receiver_id"], a.id);
    if (with_conversation) {
      EXPECT_EQ(found["payload"]["query_ref"], *m.envelope.conversation_id);
      EXPECT_EQ(found["conversation_id"], *m.envelope.conversation_id);
    } else {
      EXPECT_FALSE(found["payload"].contains("query_ref"));
    }
    return found["payload"];
  }

  static std::vector<std::string> ids(const Json& payload) {
    std::vector<std::string> out;
    for (const auto& a : payload["agents"]) out.push_back(a["agent_id"]);
    return out;
  }

  static std::vector<std::string> versions(const Json& payload) {
    std::vector<std::string> out;
    for (const auto& a : payload["agents"]) {
      for (const auto& c : a["matching_capabilities"]) out.push_back(c["capability_version"]);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  static alp::CapabilityFilter by_name(std::string name) {
    alp::CapabilityFilter f;
    f.name = std::move(name);
    return f;
  }
};

TEST_F(Discovery, ExactNameOnly) {
  Agent p = agent("agent-prov", std::vector<alp::Capability>{capability("com.example.Translate"),
                                                             capability("com.example.TranslateText"), capability("com.example.Other")});
  Agent q = agent("agent-q");
  Json r = discover(q, by_name("com.example.Translate"));
  ASSERT_EQ(r["agents"].size(), 1u);
  EXPECT_EQ(r["agents"][0]["agent_id"], "agent-prov");
  EXPECT_EQ(r["agents"][0]["agent_type"], "test-agent");
  ASSERT_EQ(r["agents"][0]["matching_capabilities"].size(), 1u);
  EXPECT_EQ(r["agents"][0]["matching_capabilities"][0]["name"], "com.example.Translate");
  EXPECT_TRUE(discover(q, by_name("com.example.translate"))["agents"].empty());  // case-sensitive
  EXPECT_TRUE(discover(q, by_name("com.example"))["agents"].empty());            // no prefix matching
}

TEST_F(Discovery, VersionMatchRanges) {
  Agent v = agent("agent-v", std::vector<alp::Capability>{capability("c.v", "1.0.2"), capability("c.v", "1.4.0"), capability("c.v", "2.0.0"),
                                                capability("c.v", "2.1.0-beta"), capability("c.v", "3.0.0")});
  Agent q = agent("agent-q");
  auto with = [&](const char* range) {
    alp::CapabilityFilter f = by_name("c.v");
    f.version_match = range;
    return versions(discover(q, f));
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(with("1.x"), (V{"1.0.2", "1.4.0"}));
  EXPECT_EQ(with(">=2.0.0"), (V{"2.0.0", "3.0.0"}));  // no pre-release unless asked for (npm rule)
  EXPECT_EQ(with("1.0.2"), (V{"1.0.2"}));
  EXPECT_EQ(with("^1.2.0"), (V{"1.4.0"}));
  EXPECT_EQ(with(">=2.1.0-beta <3"), (V{"2.1.0-beta"}));
  EXPECT_EQ(with("*"), (V{"1.0.2", "1.4.0", "2.0.0", "3.0.0"}));
  EXPECT_TRUE(with("4.x").empty());
}

TEST_F(Discovery, InvalidRangeIsMalformed) {
  Agent q = agent("agent-q");
  alp::CapabilityFilter f;
  f.version_match = ">>1";
  alp::Message m = alp::make_discover_capabilities(q.id, q.lobby_id, f);
  q.send(m);
  Json e = expect_error(q, "MESSAGE_MALFORMED", m.envelope.message_id);
  EXPECT_EQ(e["error"]["details"]["pointer"], "/payload/capability_filter/version_match");
}

TEST_F(Discovery, KeywordsAllByDefault) {
  Agent k1 = agent("agent-k1", std::vector<alp::Capability>{capability("k.both", "1.0.0", Json::object(), {"image", "Analysis"})});
  Agent k2 = agent("agent-k2", std::vector<alp::Capability>{capability("k.one", "1.0.0", Json::object(), {"image"})});
  Agent k3 = agent("agent-k3", std::vector<alp::Capability>{capability("k.none", "1.0.0", Json::object(), {"audio"})});
  Agent q = agent("agent-q");
  alp::CapabilityFilter f;
  f.keywords = std::vector<std::string>{"image", "analysis"};  // case-insensitive
  EXPECT_EQ(ids(discover(q, f)), (std::vector<std::string>{"agent-k1"}));
  f.keywords = std::vector<std::string>{"image"};
  EXPECT_EQ(ids(discover(q, f)), (std::vector<std::string>{"agent-k1", "agent-k2"}));
  f.keywords = std::vector<std::string>{};
  EXPECT_EQ(ids(discover(q, f)).size(), 3u);  // an empty list filters nothing
}

TEST_F(Discovery, KeywordsAnyWhenConfigured) {
  alp_config["keyword_match"] = "any";
  restart();
  Agent k1 = agent("agent-k1", std::vector<alp::Capability>{capability("k.both", "1.0.0", Json::object(), {"image", "analysis"})});
  Agent k2 = agent("agent-k2", std::vector<alp::Capability>{capability("k.one", "1.0.0", Json::object(), {"image"})});
  Agent k3 = agent("agent-k3", std::vector<alp::Capability>{capability("k.none", "1.0.0", Json::object(), {"audio"})});
  Agent q = agent("agent-q");
  alp::CapabilityFilter f;
  f.keywords = std::vector<std::string>{"analysis", "video"};
  EXPECT_EQ(ids(discover(q, f)), (std::vector<std::string>{"agent-k1"}));
  f.keywords = std::vector<std::string>{"image", "audio"};
  EXPECT_EQ(ids(discover(q, f)).size(), 3u);
}

TEST_F(Discovery, MaxResultsAndItsDefaultOfTen) {
  std::vector<Agent> providers;
  for (int i = 0; i < 12; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "agent-%02d", i);
    providers.push_back(agent(id, std::vector<alp::Capability>{capability("com.example.Many")}));
  }
  Agent q = agent("agent-q");
  EXPECT_EQ(discover(q, by_name("com.example.Many"))["agents"].size(), 10u);
  EXPECT_EQ(discover(q, by_name("com.example.Many"), 3)["agents"].size(), 3u);
  EXPECT_EQ(discover(q, by_name("com.example.Many"), 50)["agents"].size(), 12u);
  // Each agent at most once.
  auto listed = ids(discover(q, by_name("com.example.Many"), 50));
  EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()).size(), listed.size());
}

TEST_F(Discovery, MaxResultsIsCappedByTheLobby) {
  alp_config["max_results_limit"] = 2;
  restart();
  std::vector<Agent> keep;
  for (const char* id : {"agent-1", "agent-2", "agent-3"}) keep.push_back(agent(id, std::vector<alp::Capability>{capability("c.x")}));
  Agent q = agent("agent-q");
  EXPECT_EQ(discover(q, by_name("c.x"), 10)["agents"].size(), 2u);
}

TEST_F(Discovery, NoConversationIdMeansNoQueryRef) {
  Agent p = agent("agent-p", std::vector<alp::Capability>{capability("c.x")});
  Agent q = agent("agent-q");
  EXPECT_EQ(discover(q, by_name("c.x"), std::nullopt, /*with_conversation=*/false)["agents"].size(), 1u);
}

TEST_F(Discovery, FullCapabilityObjectsAreReturned) {
  alp::Capability c = with_rules(capability("com.example.Full", "2.1.0-beta", {{"type", "object"}, {"required", {"x"}}}, {"kw"}),
                                 "allow_list", {"agent-q"});
  c.error_schema = Json{{"type", "object"}};
  c.metadata = Json{{"cost_per_call", 0.01}, {"sla", "99.9%"}};
  Agent full = agent("agent-full", std::vector<alp::Capability>{c});
  Agent q = agent("agent-q");
  Json r = discover(q, by_name("com.example.Full"));
  ASSERT_EQ(r["agents"].size(), 1u);
  EXPECT_EQ(r["agents"][0]["matching_capabilities"][0], alp::to_json(c));
}

TEST_F(Discovery, EmptyFilterListsEveryAgentWithCapabilities) {
  Agent with = agent("agent-with", std::vector<alp::Capability>{capability("c.a"), capability("c.b")});
  Agent without = agent("agent-without", std::vector<alp::Capability>{});
  Agent q = agent("agent-q");
  Json r = discover(q, alp::CapabilityFilter{});
  EXPECT_EQ(ids(r), (std::vector<std::string>{"agent-with"}));
  EXPECT_EQ(r["agents"][0]["matching_capabilities"].size(), 2u);
}

TEST_F(Discovery, OfflineAgentsComeAfterOnlineOnesWithTheirLastSeen) {
  Agent gone = agent("agent-a-gone", std::vector<alp::Capability>{capability("c.x")});
  Agent here = agent("agent-z-here", std::vector<alp::Capability>{capability("c.x")});
  Agent q = agent("agent-q");
  gone.ws->close(1000, "bye");
  wait_for([&] { return agent_status(gone.id)["status"] == "offline"; });
  const std::string left_at = agent_status(gone.id)["last_seen_utc"];
  std::this_thread::sleep_for(20ms);
  Json r = discover(q, by_name("c.x"));
  ASSERT_EQ(ids(r), (std::vector<std::string>{"agent-z-here", "agent-a-gone"}));
  EXPECT_EQ(r["agents"][1]["last_seen_utc"], left_at);
  EXPECT_GT(r["agents"][0]["last_seen_utc"].get<std::string>(), left_at);  // online: seen now
  EXPECT_EQ(discover(q, by_name("c.x"), 1)["agents"][0]["agent_id"], "agent-z-here");
}

TEST_F(Discovery, OfflineAgentsCanBeLeftOut) {
  alp_config["discovery_include_offline"] = false;
  restart();
  Agent gone = agent("agent-gone", std::vector<alp::Capability>{capability("c.x")});
  Agent q = agent("agent-q");
  gone.ws->close(1000, "bye");
  wait_for([&] { return agent_status(gone.id)["status"] == "offline"; });
  EXPECT_TRUE(discover(q, by_name("c.x"))["agents"].empty());
}

}  // namespace
}  // namespace ac::testing
