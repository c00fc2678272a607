// The HTTP binding (POST /agentprotocol: the answer in the response body, the status derived
// from it) and the file-exchange binding (a shared directory, files named by the convention).
#include <fstream>
#include <sstream>

#include "reference/agentprotocol/file_naming.hpp"
#include "tests/ref_agentprotocol/ap_support.hpp"

namespace ac::testing {
namespace {

namespace fs = std::filesystem;
namespace apx = ref::agentprotocol;

class ApHttp : public AgentProtocolFixture {
 protected:
  Json body_of(const net::HttpResult& r) {
    auto j = json::parse_strict(r.body);
    EXPECT_TRUE(j) << r.body;
    if (j) expect_valid_from_reference(*j);
    return j ? *j : Json();
  }
};

TEST_F(ApHttp, HelloAndRequestAreAnsweredInTheResponseBody) {
  auto a = MockAgent::make();
  auto r = post(a.hello(reference_id).dump());
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(net::header_value(r.headers, "content-type").rfind("application/json", 0), 0u);
  EXPECT_EQ(body_of(r)["type"], "hello");
  r = post(a.request(reference_id, "reverse", {{"text", "abc"}}, "h-1").dump());
  EXPECT_EQ(r.status, 200);
  Json b = body_of(r);
  EXPECT_EQ(b["payload"]["correlationId"], "h-1");
  EXPECT_EQ(b["payload"]["result"]["text"], "cba");
}

TEST_F(ApHttp, ASlowActionHoldsTheRequestUntilItsAnswer) {
  auto a = MockAgent::make();
  auto r = post(a.request(reference_id, "sleep", {{"ms", 100}}, "h-slow").dump());
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(body_of(r)["payload"]["result"]["slept_ms"], 100);
  r = post(a.request(reference_id, "sleep", {{"ms", 2000}}, "h-late", 50).dump());
  EXPECT_EQ(r.status, 504);
  EXPECT_EQ(body_of(r)["payload"]["code"], "TIMEOUT");
}

TEST_F(ApHttp, StatusesFollowTheAnswer) {
  auto a = MockAgent::make();
  auto nobody = MockAgent::make();
  auto r = post(a.message("notify", {{"x", 1}}, reference_id).dump());
  EXPECT_EQ(r.status, 202);
  EXPECT_TRUE(r.body.empty());
  r = post("{oops");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(body_of(r)["payload"]["code"], "INVALID_MESSAGE");
  r = post(a.unsigned_message("notify", Json::object(), reference_id).dump());
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(body_of(r)["payload"]["code"], "INVALID_SIGNATURE");
  r = post(a.message("notify", Json::object(), nobody.id).dump());
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(body_of(r)["payload"]["code"], "UNKNOWN_AGENT");
  r = post(a.request(reference_id, "translate", Json::object(), "h-2").dump());
  EXPECT_EQ(r.status, 501);
  EXPECT_EQ(body_of(r)["payload"]["code"], "CAPABILITY_NOT_SUPPORTED");

  auto g = get("/agentprotocol");
  EXPECT_EQ(g.status, 405);
  EXPECT_EQ(net::header_value(g.headers, "allow"), "POST");
}

TEST_F(ApHttp, HttpSenderCanReachAWebSocketAgentThroughTheRelay) {
  auto a = MockAgent::make(), b = MockAgent::make();
  auto cb = connect("/agentprotocol/ws");
  ws_exchange(*cb, b.hello(reference_id));
  Json m = a.message("notify", {{"via", "http"}}, b.id);
  auto r = post(m.dump());
  EXPECT_EQ(r.status, 202);
  EXPECT_EQ(next_json(*cb), m);
}

class ApHttpRateLimited : public ApHttp {
 protected:
  void extra(ref::LobbyConfig& c) override { c.protocols["agentprotocol"]["rate_limit_burst"] = 2; }
};

TEST_F(ApHttpRateLimited, RateLimitedIs429WithRetryAfter) {
  auto a = MockAgent::make();
  post(a.message("notify", Json::object(), reference_id).dump());
  post(a.message("notify", Json::object(), reference_id).dump());
  auto r = post(a.message("notify", Json::object(), reference_id).dump());
  EXPECT_EQ(r.status, 429);
  EXPECT_FALSE(net::header_value(r.headers, "retry-after").empty());
  EXPECT_EQ(body_of(r)["payload"]["code"], "RATE_LIMITED");
}

// ---------------------------------------------------------------------------------------------
class ApFiles : public AgentProtocolFixture {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/ap-files-test-XXXXXX";
    ASSERT_NE(::mkdtemp(templ), nullptr);
    exchange_dir = templ;
    AgentProtocolFixture::SetUp();
  }
  void TearDown() override {
    AgentProtocolFixture::TearDown();
    std::error_code ec;
    fs::remove_all(exchange_dir, ec);
  }

  std::string write(const MockAgent& from, const Json& message) {
    const std::string name = apx::exchange_file_name(from.id, message["to"]["agentId"].get<std::string>(),
                                                     message["timestamp"].get<std::string>(), message["id"].get<std::string>());
    const fs::path tmp = exchange_dir / ("." + name + ".tmp");
    {
      std::ofstream out(tmp, std::ios::binary);
      out << message.dump();
    }
    fs::rename(tmp, exchange_dir / name);
    return name;
  }

  void write_raw(const std::string& name, const std::string& text) {
    std::ofstream out(exchange_dir / name, std::ios::binary);
    out << text;
  }

  // Waits for the one file addressed to `to`; returns its name and content.
  std::pair<std::string, Json> read_for(const MockAgent& to, std::chrono::milliseconds timeout = 3000ms) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      for (const auto& e : fs::directory_iterator(exchange_dir)) {
        auto parsed = apx::parse_exchange_name(e.path().filename().string());
        if (!parsed || parsed->to != apx::file_id(to.id)) continue;
        std::ifstream in(e.path(), std::ios::binary);
        std::stringstream buffer;
        buffer << in.rdbuf();
        fs::remove(e.path());
        return {e.path().filename().string(), Json::parse(buffer.str())};
      }
      std::this_thread::sleep_for(10ms);
    }
    ADD_FAILURE() << "no file for " << to.id;
    return {};
  }

  bool has_file(const std::string& name) { return fs::exists(exchange_dir / name); }
};

TEST_F(ApFiles, RequestFileIsConsumedAndAnsweredByAFileNamedByTheConvention) {
  auto a = MockAgent::make();
  Json req = a.request(reference_id, "sum", {{"numbers", {1, 2}}}, "f-1");
  const std::string name = write(a, req);
  auto [reply_name, reply] = read_for(a);
  expect_valid_from_reference(reply);
  EXPECT_EQ(reply["payload"]["result"]["sum"], 3);
  EXPECT_FALSE(has_file(name));  // consumed
  auto parsed = apx::parse_exchange_name(reply_name);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->from, apx::file_id(reference_id));
  EXPECT_EQ(parsed->to, apx::file_id(a.id));
  EXPECT_EQ(parsed->id, reply["id"]);
  EXPECT_EQ(parsed->timestamp, apx::file_timestamp(reply["timestamp"].get<std::string>()));
  EXPECT_EQ(reply_name.find('/'), std::string::npos);
}

TEST_F(ApFiles, HelloAndErrorsTravelAsFilesToo) {
  auto a = MockAgent::make();
  write(a, a.hello(reference_id));
  EXPECT_EQ(read_for(a).second["type"], "hello");
  Json bad = a.request(reference_id, "echo", Json::object(), "f-bad");
  bad["payload"]["action"] = "sum";
  write(a, bad);
  Json e = read_for(a).second;
  expect_valid_from_reference(e);
  EXPECT_EQ(e["payload"]["code"], "INVALID_SIGNATURE");
  // Unreadable content: the error goes to the sender the file name gives.
  write_raw(apx::exchange_file_name(a.id, reference_id, proto::typed::utc_now(), proto::typed::new_uuid_v4()), "{garbage");
  e = read_for(a).second;
  EXPECT_EQ(e["payload"]["code"], "INVALID_MESSAGE");
  EXPECT_EQ(e["to"]["agentId"], a.id);
}

TEST_F(ApFiles, FilesForOtherAgentsAndOddNamesAreLeftAlone) {
  auto a = MockAgent::make(), b = MockAgent::make();
  const std::string for_b = write(a, a.message("notify", {{"x", 1}}, b.id));
  write_raw("notes.txt", "hello");
  write_raw("not-the-convention.json", "{}");
  write(a, a.hello(reference_id));
  read_for(a);  // the reference polled at least once since
  EXPECT_TRUE(has_file(for_b));
  EXPECT_TRUE(has_file("notes.txt"));
  EXPECT_TRUE(has_file("not-the-convention.json"));
}

TEST_F(ApFiles, SlowActionTimesOutAsAFile) {
  auto a = MockAgent::make();
  write(a, a.request(reference_id, "sleep", {{"ms", 1000}}, "f-slow", 30));
  Json e = read_for(a).second;
  EXPECT_EQ(e["payload"]["code"], "TIMEOUT");
  EXPECT_EQ(e["payload"]["correlationId"], "f-slow");
}

TEST(ApFileExchangeConfig, UnusableDirectoryFailsTheStart) {
  ref::LobbyConfig c;
  c.port = 0;
  c.protocols["agentprotocol"]["exchange_dir"] = "/proc/agentconform-cannot-create-this";
  auto started = ref::Lobby::start(c);
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().find("exchange_dir"), std::string::npos);
}

TEST(ApConfig, UnknownKeysAndWrongTypesAreRefused) {
  ref::LobbyConfig c;
  c.port = 0;
  c.protocols["agentprotocol"]["rate_limt_burst"] = 3;
  auto started = ref::Lobby::start(c);
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().find("rate_limt_burst"), std::string::npos);
  c.protocols["agentprotocol"] = {{"relay", "yes"}};
  started = ref::Lobby::start(c);
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().find("relay"), std::string::npos);
}

TEST(ApConfig, KeyFileGivesTheAgentItsIdentity) {
  auto key = crypto::Ed25519PrivateKey::generate();
  ASSERT_TRUE(key);
  const fs::path file = fs::temp_directory_path() / ("ap-key-" + proto::typed::new_uuid_v4() + ".pem");
  {
    std::ofstream out(file);
    out << *key->to_pem();
  }
  ref::LobbyConfig c;
  c.port = 0;
  c.protocols["agentprotocol"]["key_file"] = file.string();
  auto started = ref::Lobby::start(c);
  ASSERT_TRUE(started) << started.error();
  net::Runtime rt(1);
  auto r = net::http_request(rt, net::HttpCall{"GET", (*started)->http_url() + "/healthz", {}, ""});
  ASSERT_TRUE(r);
  EXPECT_EQ(Json::parse(r->body)["protocols"]["agentprotocol"]["agentId"], ap::agent_id(key->public_key()));
  (*started)->stop();
  fs::remove(file);

  c.protocols["agentprotocol"]["key_file"] = "/nonexistent/key.pem";
  auto refused = ref::Lobby::start(c);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("key_file"), std::string::npos);
}

}  // namespace
}  // namespace ac::testing
