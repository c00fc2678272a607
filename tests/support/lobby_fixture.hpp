// Test support: a reference lobby started in-process on an ephemeral loopback port, and small
// blocking helpers to talk to it as a real client would (HTTP and WebSocket over the network).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/json/strict_reader.hpp"
#include "harness/net/client.hpp"
#include "reference/lobby/lobby.hpp"

namespace ac::testing {

using namespace std::chrono_literals;
using Json = nlohmann::json;

// Starts a lobby with the given faults and config tweaks; stops it at destruction.
class LobbyFixture : public ::testing::Test {
 protected:
  // Override to adjust the configuration before start (timeouts, keys, protocol sections).
  virtual void configure(ref::LobbyConfig& config) { (void)config; }

  void SetUp() override { start({}); }
  void TearDown() override {
    if (lobby) lobby->stop();
  }

  void start(std::set<std::string> faults) {
    if (lobby) lobby->stop();
    ref::LobbyConfig config;
    config.port = 0;
    config.faults = std::move(faults);
    config.api_keys = {"test-key"};
    config.handshake_timeout = 2000ms;
    configure(config);
    auto started = ref::Lobby::start(config);
    ASSERT_TRUE(started) << started.error();
    lobby = std::move(*started);
  }

  std::string http(const std::string& path) const { return lobby->http_url() + path; }
  std::string ws(const std::string& path) const { return lobby->ws_url() + path; }

  net::HttpResult post_json(const std::string& path, const Json& body, net::Headers headers = {}) {
    headers.emplace("content-type", "application/json");
    auto r = net::http_request(runtime, net::HttpCall{"POST", http(path), headers, body.dump()});
    EXPECT_TRUE(r) << r.error().describe();
    return r ? *r : net::HttpResult{};
  }

  net::HttpResult get(const std::string& path, net::Headers headers = {}) {
    auto r = net::http_request(runtime, net::HttpCall{"GET", http(path), headers, ""});
    EXPECT_TRUE(r) << r.error().describe();
    return r ? *r : net::HttpResult{};
  }

  std::shared_ptr<net::WsClient> connect(const std::string& path, net::WsConnectOptions options = {}) {
    auto c = net::WsClient::connect(runtime, ws(path), options);
    EXPECT_TRUE(c) << c.error().describe();
    return c ? *c : nullptr;
  }

  // Next text frame parsed as JSON (fails the test on timeout, close or invalid JSON).
  static Json next_json(net::WsClient& c, std::chrono::milliseconds timeout = 3000ms) {
    auto e = c.next(timeout);
    if (!e) {
      ADD_FAILURE() << "no frame within " << timeout.count() << " ms";
      return Json();
    }
    if (e->kind != ws::Event::Kind::text) {
      ADD_FAILURE() << "expected a text frame, got kind " << static_cast<int>(e->kind) << " code " << e->close_code
                    << " " << e->close_reason << e->data;
      return Json();
    }
    auto j = json::parse_strict(e->data);
    if (!j) {
      ADD_FAILURE() << "frame is not JSON: " << e->data;
      return Json();
    }
    return *j;
  }

  // Asserts that nothing arrives within `quiet`.
  static void expect_silence(net::WsClient& c, std::chrono::milliseconds quiet = 300ms) {
    auto e = c.next(quiet);
    EXPECT_FALSE(e.has_value()) << "unexpected frame: " << (e ? e->data : "");
  }

  // Next close event (skipping nothing: a text frame first is a failure).
  static net::WsEvent next_close(net::WsClient& c, std::chrono::milliseconds timeout = 3000ms) {
    auto e = c.next(timeout);
    if (!e) {
      ADD_FAILURE() << "no close within " << timeout.count() << " ms";
      return {};
    }
    EXPECT_EQ(e->kind, ws::Event::Kind::close) << "got frame: " << e->data;
    return *e;
  }

  net::Runtime runtime{1};
  std::unique_ptr<ref::Lobby> lobby;
};

}  // namespace ac::testing
