// Test support for the Agora relay: agents are real WebSocket clients of an in-process lobby,
// registered with ?agent_id=; helpers build frames and read what the relay delivers.
#pragma once

#include <atomic>
#include <string>

#include "tests/support/lobby_fixture.hpp"

namespace ac::testing {

inline std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

class AgoraTest : public LobbyFixture {
 protected:
  void configure(ref::LobbyConfig& c) override {
    c.handshake_timeout = 1000ms;
    c.protocols["agora"] = agora_section();
  }
  // Override to set `protocols.agora` for a whole fixture.
  virtual Json agora_section() { return Json::object(); }

  std::shared_ptr<net::WsClient> agent(const std::string& id) { return connect("/agora/ws?agent_id=" + url_encode(id)); }

  static void send(net::WsClient& c, const Json& frame) { c.send_text(frame.dump()); }

  // The next frame must be a relay error with this code; returns it.
  static Json expect_error(net::WsClient& c, const std::string& code) {
    Json e = next_json(c);
    EXPECT_EQ(e.value("type", ""), "error") << e.dump();
    EXPECT_EQ(e.value("code", ""), code) << e.dump();
    EXPECT_TRUE(e.contains("message") && e["message"].is_string()) << e.dump();
    return e;
  }

  // A frame that must still be delivered proves the connection is usable.
  void expect_usable(net::WsClient& from, const std::string& from_id, net::WsClient& to, const std::string& to_id) {
    send(from, {{"type", "send"}, {"to", to_id}, {"payload", {{"probe", true}}}});
    Json m = next_json(to);
    EXPECT_EQ(m["type"], "message");
    EXPECT_EQ(m["from"], from_id);
    EXPECT_EQ(m["payload"], Json({{"probe", true}}));
  }

  Json agora_status() {
    auto r = get("/healthz");
    return Json::parse(r.body)["protocols"]["agora"];
  }

  // Unique ids per test, so a test never sees another's agents.
  std::string id(const std::string& name) {
    static std::atomic<int> n{0};
    return name + "-" + std::to_string(n.fetch_add(1));
  }
};

inline Json start_frame(const std::string& to, const std::string& sid) {
  return {{"type", "send"}, {"to", to}, {"stream_id", sid}, {"stream", true}};
}
inline Json chunk_frame(const std::string& to, const std::string& sid, const std::string& text) {
  return {{"type", "send_chunk"}, {"to", to}, {"stream_id", sid}, {"chunk", text}};
}
inline Json end_frame(const std::string& to, const std::string& sid) { return {{"type", "send_end"}, {"to", to}, {"stream_id", sid}}; }

}  // namespace ac::testing
