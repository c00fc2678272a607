// Strict base64 / base64url: RFC 4648 §10 test vectors, every rejection rule, and round-trip
// and uniqueness properties.
#include "harness/crypto/base64.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

namespace ac::crypto {
namespace {

TEST(Base64, Rfc4648Vectors) {
  const std::vector<std::pair<std::string, std::string>> v = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, enc] : v) {
    EXPECT_EQ(base64_encode(plain), enc);
    auto d = base64_decode(enc);
    ASSERT_TRUE(d) << enc << ": " << d.error().describe();
    EXPECT_EQ(*d, plain);
    std::string url = enc;
    while (!url.empty() && url.back() == '=') url.pop_back();
    EXPECT_EQ(base64url_encode(plain), url);
    auto du = base64url_decode(url);
    ASSERT_TRUE(du) << url << ": " << du.error().describe();
    EXPECT_EQ(*du, plain);
  }
}

TEST(Base64, AlphabetsDiffer) {
  const std::string bytes("\xfb\xff\xbf", 3);
  EXPECT_EQ(base64_encode(bytes), "+/+/");
  EXPECT_EQ(base64url_encode(bytes), "-_-_");
}

struct Bad {
  const char* text;
  Base64Rule rule;
  std::size_t offset;
};

TEST(Base64, StrictDecoderRejections) {
  const std::vector<Bad> cases = {
      {"Zm9v\n", Base64Rule::whitespace, 4},
      {" Zm9v", Base64Rule::whitespace, 0},
      {"Zm9v Zm9v", Base64Rule::whitespace, 4},
      {"Zm9v\r\nYmFy", Base64Rule::whitespace, 4},
      {"Zm\t9v", Base64Rule::whitespace, 2},
      {"Zm9-", Base64Rule::invalid_character, 3},  // base64url character
      {"Zm9_", Base64Rule::invalid_character, 3},
      {"Zm9*", Base64Rule::invalid_character, 3},
      {"Zm9\xc3\xa9", Base64Rule::invalid_character, 3},
      {"Zg", Base64Rule::bad_length, 2},             // padding missing
      {"Zm8", Base64Rule::bad_length, 3},
      {"Zm9vY", Base64Rule::bad_length, 5},
      {"Zg=", Base64Rule::bad_length, 3},
      {"Zg===", Base64Rule::bad_length, 5},
      {"Z===", Base64Rule::bad_padding, 1},          // three '='
      {"====", Base64Rule::bad_padding, 1},
      {"Zg==Zg==", Base64Rule::bad_padding, 2},      // padding in the middle
      {"Z=g=", Base64Rule::bad_padding, 1},
      {"=Zm9", Base64Rule::bad_padding, 0},
      {"Zh==", Base64Rule::non_canonical, 1},        // 'h' leaves trailing bits set
      {"Zm9=", Base64Rule::non_canonical, 2},
  };
  for (const auto& c : cases) {
    auto d = base64_decode(c.text);
    ASSERT_FALSE(d) << "accepted: " << c.text;
    EXPECT_EQ(d.error().rule, c.rule) << c.text << ": " << d.error().describe();
    EXPECT_EQ(d.error().offset, c.offset) << c.text << ": " << d.error().describe();
  }
  EXPECT_TRUE(base64_decode("Zm//"));
}

TEST(Base64Url, StrictDecoderRejections) {
  const std::vector<Bad> cases = {
      {"Zm9v\n", Base64Rule::whitespace, 4},
      {"Zm9+", Base64Rule::invalid_character, 3},  // standard-alphabet character
      {"Zm9/", Base64Rule::invalid_character, 3},
      {"Zg==", Base64Rule::bad_padding, 2},         // unpadded only
      {"Zm8=", Base64Rule::bad_padding, 3},
      {"Zm9vY", Base64Rule::bad_length, 5},         // 1 mod 4
      {"Z", Base64Rule::bad_length, 1},
      {"Zh", Base64Rule::non_canonical, 1},
      {"Zm9", Base64Rule::non_canonical, 2},
      {"Zm.v", Base64Rule::invalid_character, 2},
  };
  for (const auto& c : cases) {
    auto d = base64url_decode(c.text);
    ASSERT_FALSE(d) << "accepted: " << c.text;
    EXPECT_EQ(d.error().rule, c.rule) << c.text << ": " << d.error().describe();
    EXPECT_EQ(d.error().offset, c.offset) << c.text << ": " << d.error().describe();
  }
  EXPECT_TRUE(base64url_decode("Zm-_"));
}

TEST(Base64, ErrorsDescribeRuleAndOffset) {
  auto d = base64_decode("Zh==");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().describe().rfind("non-canonical at offset 1: ", 0), 0u) << d.error().describe();
  EXPECT_EQ(rule_name(Base64Rule::bad_padding), "bad-padding");
}

TEST(Base64, EncodedSizes) {
  for (std::size_t n = 0; n < 20; ++n) {
    const std::string s(n, 'x');
    EXPECT_EQ(base64_encode(s).size(), base64_encoded_size(n));
    EXPECT_EQ(base64url_encode(s).size(), base64url_encoded_size(n));
  }
}

RC_GTEST_PROP(Base64Prop, RoundTrips, (const std::string& bytes)) {
  auto d = base64_decode(base64_encode(bytes));
  RC_ASSERT(d.has_value());
  RC_ASSERT(*d == bytes);
  auto du = base64url_decode(base64url_encode(bytes));
  RC_ASSERT(du.has_value());
  RC_ASSERT(*du == bytes);
}

// Strictness means uniqueness: whatever text decodes, it is exactly the encoder's output for
// the bytes it decodes to (no second spelling of the same bytes exists).
RC_GTEST_PROP(Base64Prop, AcceptedTextIsTheCanonicalEncoding, ()) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n";
  const auto chars = *rc::gen::container<std::string>(rc::gen::elementOf(alphabet));
  if (auto d = base64_decode(chars)) RC_ASSERT(base64_encode(*d) == chars);
  if (auto d = base64url_decode(chars)) RC_ASSERT(base64url_encode(*d) == chars);
}

// Changing any one character of a valid encoding either makes it invalid or changes the bytes.
RC_GTEST_PROP(Base64Prop, OneCharacterChangeNeverKeepsBytes, (const std::string& bytes)) {
  RC_PRE(!bytes.empty());
  const std::string enc = base64_encode(bytes);
  const auto pos = *rc::gen::inRange<std::size_t>(0, enc.size());
  const auto c = *rc::gen::elementOf(std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="));
  RC_PRE(c != enc[pos]);
  std::string mutated = enc;
  mutated[pos] = c;
  auto d = base64_decode(mutated);
  const bool rejected_or_different = !d || *d != bytes;  // not inside RC_ASSERT: it evaluates both sides of ||
  RC_ASSERT(rejected_or_different);
}

}  // namespace
}  // namespace ac::crypto
