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
