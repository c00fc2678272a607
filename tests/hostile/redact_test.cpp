// The redaction rules of harness/util/redact.hpp (docs/limits.md), one by one: what is hidden,
// in which encodings, and what ordinary text stays as it was.
#include <gtest/gtest.h>

#include "harness/util/redact.hpp"

namespace ac {
namespace {

bool hides(const std::string& text, const std::string& secret) { return redact(text).find(secret) == std::string::npos; }

TEST(Redact, RegisteredValuesInEveryEncoding) {
  const std::string secret = "s3cr\"et&<key>/+ value";
  register_secret(secret, "api_key");
  EXPECT_EQ(redact("key=" + secret + "."), "key=<redacted:api_key>.");
  EXPECT_TRUE(hides(R"({"echo":"s3cr\"et&<key>/+ value"})", "s3cr\\\"et"));      // JSON-escaped
  EXPECT_TRUE(hides("<p>s3cr&quot;et&amp;&lt;key&gt;/+ value</p>", "s3cr&quot;"));  // HTML-escaped
  EXPECT_TRUE(hides("/x?k=s3cr%22et%26%3Ckey%3E%2F%2B%20value", "s3cr%22"));         // percent-encoded
  register_secret("abc", "short");                                                   // too short: ignored
  EXPECT_EQ(redact("abc abcd"), "abc abcd");
}

TEST(Redact, RecognisableCredentials) {
  EXPECT_EQ(redact("POST /r\nAuthorization: Bearer abc.def\nHost: x"), "POST /r\nAuthorization: <redacted:Authorization>\nHost: x");
  EXPECT_EQ(redact("x-api-key: k-123456"), "x-api-key: <redacted:x-api-key>");
  EXPECT_EQ(redact("ws://h/ws/connect?agent_id=a&token=tok-42&x=1"), "ws://h/ws/connect?agent_id=a&token=<redacted:token>&x=1");
  EXPECT_EQ(redact("got eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln, done"), "got <redacted:jwt>, done");
  EXPECT_EQ(redact("a -----BEGIN PRIVATE KEY-----\nMC4CAQ\n-----END PRIVATE KEY----- b"), "a <redacted:private-key> b");
  EXPECT_EQ(redact(R"({"token":"t-1","api_key": "k-1","n":1})"), R"({"token":"<redacted:token>","api_key": "<redacted:api_key>","n":1})");
  EXPECT_EQ(redact(R"({\"runnerSecret\":\"r-1\"})"), R"({\"runnerSecret\":\"<redacted:runnerSecret>\"})");
}

TEST(Redact, OrdinaryTextStays) {
  for (const std::string text : {"settings.api_key: must be a string", "the Authorization header is missing", "token expired",
                                 R"({"token": "${token}", "paths": {"token": "/auth/token"}, "secret": true})",
                                 R"({"next": "https://h/auth/token"})", "eyJ alone", "?tokens=1"}) {
    EXPECT_EQ(redact(text), text);
  }
}

TEST(Redact, JsonDocuments) {
  nlohmann::json doc = {{"settings", {{"api_key", "k-9"}, {"lobby_id", "l"}}},
                        {"endpoints", {{"token", "http://h/auth/token"}}},
                        {"transcript", {{{"data", R"({"token":"t-9"})"}}}}};
  redact_json(doc);
  EXPECT_EQ(doc["settings"]["api_key"], "<redacted:api_key>");
  EXPECT_EQ(doc["settings"]["lobby_id"], "l");
  EXPECT_EQ(doc["endpoints"]["token"], "http://h/auth/token");
  EXPECT_EQ(doc["transcript"][0]["data"], R"({"token":"<redacted:token>"})");
}

}  // namespace
}  // namespace ac
