// Transcripts: redaction, truncation with a note, size cap, invalid UTF-8 kept representable.
#include <gtest/gtest.h>

#include "harness/engine/transcript.hpp"

namespace ac::engine {
namespace {

TEST(Transcript, RedactsSecretsEverywhere) {
  Transcript t;
  t.add("a", "out", "http-request", "POST /x?token=SECRET-TOKEN-123");
  t.redact("SECRET-TOKEN-123", "token");
  t.add("a", "in", "text", "{\"auth_token\":\"SECRET-TOKEN-123\"}");
  for (const auto& e : t.entries()) {
    EXPECT_EQ(e.data.find("SECRET-TOKEN-123"), std::string::npos) << e.data;
    // Labelled by the rule that caught it: the registered name, or the query parameter's or
    // member's name (harness/util/redact.hpp).
    EXPECT_NE(e.data.find("<redacted:"), std::string::npos) << e.data;
  }
}

TEST(Transcript, TruncatesHugeEntriesWithANote) {
  Transcript t(1 << 20, 100);
  t.add("a", "in", "text", std::string(5000, 'x'));
  auto e = t.entries().at(0);
  EXPECT_TRUE(e.truncated);
  EXPECT_NE(e.data.find("5000 bytes in all"), std::string::npos);
  EXPECT_LT(e.data.size(), 200u);
}

TEST(Transcript, CapsTotalSizeAndCountsDrops) {
  // Each entry costs its data plus Transcript::kEntryOverhead (128): 2 of 428 bytes fit in 1000.
  Transcript t(1000, 600);
  for (int i = 0; i < 10; ++i) t.add("a", "in", "text", std::string(300, 'y'));
  EXPECT_EQ(t.entries().size(), 2u);
  EXPECT_EQ(t.dropped(), 8u);
  const auto j = t.to_json();
  EXPECT_NE(j.back()["data"].get<std::string>().find("8 entries dropped"), std::string::npos);
}

// A case that polled until its transcript was full still shows how its connection ended: the
// capacity check reads that close (a close 1008 "too-many-connections" lost here made a FAIL of
// the harness's own look like the target's state from earlier cases).
TEST(Transcript, KeepsHowAConnectionEndedPastTheLimit) {
  Transcript t(1000, 600);
  for (int i = 0; i < 10; ++i) t.add("http", "in", "http-response", std::string(300, 'y'));
  t.add("agent", "in", "close", "too-many-connections" + std::string(2000, 'z'), 1008);
  t.add("agent", "in", "text", std::string(300, 'l'));  // not an ending: dropped as before
  const auto entries = t.entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries.back().kind, "close");
  EXPECT_EQ(entries.back().code, 1008);
  EXPECT_LE(entries.back().data.size(), Transcript::kEndingBytes);
  EXPECT_EQ(entries.back().data.rfind("too-many-connections", 0), 0u);
  EXPECT_EQ(t.dropped(), 9u);  // 8 responses and the text
  for (std::size_t i = 0; i < 2 * Transcript::kEndingReserve; ++i) t.add("agent", "in", "error", "reset " + std::string(300, 'r'));
  EXPECT_EQ(t.entries().size(), 2 + Transcript::kEndingReserve);  // the reserve is bounded
}

TEST(Transcript, InvalidUtf8FromATargetStaysSerializable) {
  Transcript t;
  t.add("a", "in", "text", std::string("ok\xC3\x28", 4));
  const auto j = t.to_json();
  EXPECT_TRUE(j[0]["invalid_utf8"].get<bool>());
  EXPECT_NO_THROW((void)j.dump());
}

TEST(Transcript, TruncationDoesNotSplitUtf8) {
  Transcript t(1 << 20, 10);
  t.add("a", "in", "text", "aaaaaaaa\xE2\x82\xAC\xE2\x82\xAC");  // 8 ASCII + euro signs
  const auto j = t.to_json();
  EXPECT_FALSE(j[0].contains("invalid_utf8"));
}

}  // namespace
}  // namespace ac::engine
