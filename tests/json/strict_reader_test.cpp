// The strict reader, rule by rule: every JsonRule with the exact byte offset the reader reports
// (where it detected the problem) and the JSON Pointer, plus what it must still accept.
//
// Offsets, as the reader defines them: encoding problems (NUL, invalid UTF-8) point at the first
// bad byte; lexer problems at the last byte the lexer read (the offending byte, or the input's
// length at a premature end); duplicate names just past the closing quote of the second name;
// nesting just past the bracket that is one level too many.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "harness/json/strict_reader.hpp"
#include "tests/json/json_test_support.hpp"

namespace ac::json {
namespace {

using namespace std::literals;
using test::printable;

struct Bad {
  std::string_view text;
  std::size_t offset;
  std::string pointer = "";
};

void expect_rule(JsonRule rule, const Bad& bad, const ReadLimits& limits = {}) {
  auto r = parse_strict(bad.text, limits);
  ASSERT_FALSE(r.has_value()) << printable(bad.text) << " was accepted";
  EXPECT_EQ(rule_name(r.error().rule), rule_name(rule)) << printable(bad.text) << ": " << r.error().describe();
  EXPECT_EQ(r.error().offset, bad.offset) << printable(bad.text) << ": " << r.error().describe();
  EXPECT_EQ(r.error().pointer, bad.pointer) << printable(bad.text);
  EXPECT_FALSE(r.error().message.empty());
}

TEST(StrictReaderRules, RuleNamesAreStableKebabCase) {
  EXPECT_EQ(rule_name(JsonRule::empty_input), "empty-input");
  EXPECT_EQ(rule_name(JsonRule::too_large), "too-large");
  EXPECT_EQ(rule_name(JsonRule::nul_byte), "nul-byte");
  EXPECT_EQ(rule_name(JsonRule::invalid_utf8), "invalid-utf8");
  EXPECT_EQ(rule_name(JsonRule::lone_surrogate), "lone-surrogate");
  EXPECT_EQ(rule_name(JsonRule::control_character), "unescaped-control-character");
  EXPECT_EQ(rule_name(JsonRule::duplicate_key), "duplicate-key");
  EXPECT_EQ(rule_name(JsonRule::too_deep), "too-deep");
  EXPECT_EQ(rule_name(JsonRule::number_out_of_range), "number-out-of-range");
  EXPECT_EQ(rule_name(JsonRule::trailing_data), "trailing-data");
  EXPECT_EQ(rule_name(JsonRule::syntax), "syntax");
}

TEST(StrictReaderRules, EmptyInput) {
  expect_rule(JsonRule::empty_input, {"", 0});
  expect_rule(JsonRule::empty_input, {" \t\r\n", 4});  // offset: the end, where a value was due
}

TEST(StrictReaderRules, TooLarge) {
  ReadLimits limits;
  limits.max_bytes = 4;
  expect_rule(JsonRule::too_large, {"[1,2]", 4}, limits);  // offset: the limit
  expect_rule(JsonRule::too_large, {"     ", 4}, limits);  // checked before anything else
  EXPECT_TRUE(parse_strict("[12]", limits).has_value());  // exactly at the limit
}

TEST(StrictReaderRules, TooLargeAtTheDefaultLimit) {
  std::string big(ReadLimits{}.max_bytes + 1, ' ');
  big[0] = '1';
  expect_rule(JsonRule::too_large, {big, ReadLimits{}.max_bytes});
}

TEST(StrictReaderRules, NulByte) {
  expect_rule(JsonRule::nul_byte, {"{\"a\":1}\0garbage"sv, 7});  // nlohmann alone stops at the NUL
  expect_rule(JsonRule::nul_byte, {"[1,2]  \0"sv, 7});           // after the value
  expect_rule(JsonRule::nul_byte, {"\"a\0b\""sv, 2});            // inside a string
  expect_rule(JsonRule::nul_byte, {"{\"a\0\":1}"sv, 3});         // inside a name
  expect_rule(JsonRule::nul_byte, {"\0"sv, 0});
  expect_rule(JsonRule::nul_byte, {" \0 1"sv, 1});
  // The escape is fine: it is six ASCII bytes.
  auto escaped = parse_strict(R"("a\u0000b")");
  ASSERT_TRUE(escaped.has_value());
  EXPECT_EQ(escaped->get<std::string>(), std::string("a\0b", 3));
}

TEST(StrictReaderRules, InvalidUtf8) {
  expect_rule(JsonRule::invalid_utf8, {"\"\xc0\x80\"", 1});              // overlong NUL
  expect_rule(JsonRule::invalid_utf8, {"\"\xc1\xbf\"", 1});              // overlong DEL
  expect_rule(JsonRule::invalid_utf8, {"\"ab\xe0\x80\xaf\"", 3});        // overlong '/' (3 bytes)
  expect_rule(JsonRule::invalid_utf8, {"\"\xf0\x80\x80\xaf\"", 1});      // overlong '/' (4 bytes)
  expect_rule(JsonRule::invalid_utf8, {"\"\xed\xa0\x80\"", 1});          // U+D800 encoded: a surrogate
  expect_rule(JsonRule::invalid_utf8, {"\"\xed\xbf\xbf\"", 1});          // U+DFFF encoded
  expect_rule(JsonRule::invalid_utf8, {"\"\xed\xa0\xbd\xed\xb8\x80\"", 1});  // CESU-8 pair
  expect_rule(JsonRule::invalid_utf8, {"\"\xf4\x90\x80\x80\"", 1});      // U+110000
  expect_rule(JsonRule::invalid_utf8, {"\"\xf5\x80\x80\x80\"", 1});      // F5 lead
  expect_rule(JsonRule::invalid_utf8, {"\"\xf8\x88\x80\x80\x80\"", 1});  // 5-byte form
  expect_rule(JsonRule::invalid_utf8, {"\"\xfe\"", 1});
  expect_rule(JsonRule::invalid_utf8, {"\"\xff\"", 1});
  expect_rule(JsonRule::invalid_utf8, {"\"\x80\"", 1});                  // lone continuation
  expect_rule(JsonRule::invalid_utf8, {"\"\xe2\x82\"", 1});              // truncated, then '"'
  expect_rule(JsonRule::invalid_utf8, {"\"ab\xe2\x82", 3});              // truncated at the end
  expect_rule(JsonRule::invalid_utf8, {"\"\xf0\x9f\x98\"", 1});          // 4-byte form cut short
  expect_rule(JsonRule::invalid_utf8, {"\"\xc3\"", 1});
  expect_rule(JsonRule::invalid_utf8, {"[1]\xff", 3});                   // outside strings too
  expect_rule(JsonRule::invalid_utf8, {"\xf4\x90\x80\x80", 0});
  expect_rule(JsonRule::invalid_utf8, {"{\"\xe9\":1}", 2});              // Latin-1, not UTF-8
  // The largest and the boundary code points are fine.
  EXPECT_TRUE(parse_strict("\"\xf4\x8f\xbf\xbf\"").has_value());  // U+10FFFF
  EXPECT_TRUE(parse_strict("\"\xed\x9f\xbf\xee\x80\x80\"").has_value());  // U+D7FF U+E000
  EXPECT_TRUE(parse_strict("\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xf0\x90\x80\x80\"").has_value());
}

TEST(StrictReaderRules, InvalidUtf8AndNulReportWhicheverComesFirst) {
  expect_rule(JsonRule::invalid_utf8, {"\"\xff\0\""sv, 1});
  expect_rule(JsonRule::nul_byte, {"\"\0\xff\""sv, 1});
}

TEST(StrictReaderRules, LoneSurrogateEscapes) {
  expect_rule(JsonRule::lone_surrogate, {R"("\ud800")", 7});        // high, then the closing quote
  expect_rule(JsonRule::lone_surrogate, {R"("\ud800x")", 7});       // high, then a character
  expect_rule(JsonRule::lone_surrogate, {R"("\ud800\u0041")", 12});  // high, then a non-low escape
  expect_rule(JsonRule::lone_surrogate, {R"("\ud83d\ud83d")", 12});  // high, high
  expect_rule(JsonRule::lone_surrogate, {R"("\udc00")", 6});        // low without a high
  expect_rule(JsonRule::lone_surrogate, {R"("\ude00\ud83d")", 6});  // pair in the wrong order
  expect_rule(JsonRule::lone_surrogate, {R"({"\udc00":1})", 7});    // in a member name
  EXPECT_TRUE(parse_strict(R"("\ud83d\ude00\uDBFF\uDFFF")").has_value());
}

TEST(StrictReaderRules, UnescapedControlCharacter) {
  expect_rule(JsonRule::control_character, {"\"a\tb\"", 2});
  expect_rule(JsonRule::control_character, {"\"\x1f\"", 1});
  expect_rule(JsonRule::control_character, {"\"line\nbreak\"", 5});
  expect_rule(JsonRule::control_character, {"{\"a\nb\":1}", 3});  // in a member name
  expect_rule(JsonRule::control_character, {"\"\x01\"", 1});
  EXPECT_TRUE(parse_strict("\"\x7f\"").has_value());  // DEL is not a control character to JSON
}

TEST(StrictReaderRules, DuplicateKey) {
  expect_rule(JsonRule::duplicate_key, {R"({"a":1,"a":2})", 10, "/a"});
  expect_rule(JsonRule::duplicate_key, {R"({"a":1, "a" :2})", 11, "/a"});
  expect_rule(JsonRule::duplicate_key, {R"({"x":{"y":[0,{"k":1,"k":2}]}})", 23, "/x/y/1/k"});
  expect_rule(JsonRule::duplicate_key, {R"({"a/b~c":{"a/b~c":0,"a/b~c":1}})", 27, "/a~1b~0c/a~1b~0c"});
  // Equal after unescaping: the names are the same string.
  expect_rule(JsonRule::duplicate_key, {R"({"a":1,"\u0061":2})", 15, "/a"});
  expect_rule(JsonRule::duplicate_key, {R"({"\ud83d\ude00":1,"\ud83d\ude00":2})", 32, "/\U0001F600"});
  expect_rule(JsonRule::duplicate_key, {R"({"":1,"":2})", 8, "/"});
  // Same name in different objects is fine.
  EXPECT_TRUE(parse_strict(R"({"a":{"a":1},"b":{"a":2}})").has_value());
}

TEST(StrictReaderRules, TooDeepAtTheDefaultLimit) {
  const std::size_t max = ReadLimits{}.max_depth;
  ASSERT_EQ(max, 128u);
  const std::string at_limit = std::string(max, '[') + std::string(max, ']');
  EXPECT_TRUE(parse_strict(at_limit).has_value());

  const std::string over = std::string(max + 1, '[') + std::string(max + 1, ']');
  auto r = parse_strict(over);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().rule, JsonRule::too_deep);
  EXPECT_EQ(r.error().offset, max + 1);  // just past the 129th '['
  // The pointer names where the offending container opens: its parent (127 levels, what the
  // reader reports today) or the container itself (128 levels).
  std::string parent;
  for (std::size_t i = 0; i + 1 < max; ++i) parent += "/0";
  EXPECT_THAT(r.error().pointer, testing::AnyOf(parent, parent + "/0"));
}

TEST(StrictReaderRules, TooDeepWithObjects) {
  ReadLimits limits;
  limits.max_depth = 2;
  EXPECT_TRUE(parse_strict(R"({"a":{"b":1}})", limits).has_value());
  auto r = parse_strict(R"({"a":{"b":{}}})", limits);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().rule, JsonRule::too_deep);
  EXPECT_EQ(r.error().offset, 11u);
  EXPECT_THAT(r.error().pointer, testing::AnyOf("/a", "/a/b"));

  auto mixed = parse_strict(R"([[],[{"a":[]}]])", limits);
  ASSERT_FALSE(mixed.has_value());
  EXPECT_EQ(mixed.error().rule, JsonRule::too_deep);
  EXPECT_EQ(mixed.error().offset, 6u);
  EXPECT_THAT(mixed.error().pointer, testing::AnyOf("/1", "/1/0"));
}

TEST(StrictReaderRules, NumberOutOfRange) {
  expect_rule(JsonRule::number_out_of_range, {"1e400", 4});  // at the number's last byte
  expect_rule(JsonRule::number_out_of_range, {"-1e400", 5});
  expect_rule(JsonRule::number_out_of_range, {"[1e400]", 5, "/0"});
  expect_rule(JsonRule::number_out_of_range, {"1.8e308", 6});
  std::string huge_integer(400, '9');
  expect_rule(JsonRule::number_out_of_range, {huge_integer, 399});
  // The largest double and underflow to zero are in range.
  EXPECT_TRUE(parse_strict("1.7976931348623157e308").has_value());
  auto tiny = parse_strict("1e-400");
  ASSERT_TRUE(tiny.has_value());
  EXPECT_EQ(tiny->get<double>(), 0.0);
}

TEST(StrictReaderRules, TrailingData) {
  expect_rule(JsonRule::trailing_data, {"[1,2] x", 6});
  expect_rule(JsonRule::trailing_data, {R"({"a":1} {"b":2})", 8});  // a second value
  expect_rule(JsonRule::trailing_data, {"{}{}", 2});
  expect_rule(JsonRule::trailing_data, {"1 2", 2});
  expect_rule(JsonRule::trailing_data, {"123abc", 3});
  expect_rule(JsonRule::trailing_data, {"nullx", 4});
  expect_rule(JsonRule::trailing_data, {"[1,2]\n\n]", 7});
  expect_rule(JsonRule::trailing_data, {"01", 1});   // leading zero: "0", then "1"
  expect_rule(JsonRule::trailing_data, {"-01", 2});
  expect_rule(JsonRule::trailing_data, {"0x10", 1});
}

TEST(StrictReaderRules, Syntax) {
  expect_rule(JsonRule::syntax, {"[1,]", 3, "/1"});
  expect_rule(JsonRule::syntax, {"[1,,2]", 3, "/1"});
  expect_rule(JsonRule::syntax, {R"({"a":1,})", 7});
  expect_rule(JsonRule::syntax, {"{,}", 1});
  expect_rule(JsonRule::syntax, {R"({"a" 1})", 5, "/a"});
  expect_rule(JsonRule::syntax, {"{a:1}", 1});
  expect_rule(JsonRule::syntax, {"'a'", 0});
  expect_rule(JsonRule::syntax, {"tru", 3});  // premature end: the input's length
  expect_rule(JsonRule::syntax, {"[1 2]", 3, "/1"});
  expect_rule(JsonRule::syntax, {R"("a\qb")", 3});
  expect_rule(JsonRule::syntax, {R"("\x41")", 2});
  expect_rule(JsonRule::syntax, {R"("\u12")", 5});
  expect_rule(JsonRule::syntax, {"NaN", 0});
  expect_rule(JsonRule::syntax, {"[Infinity]", 1, "/0"});
  expect_rule(JsonRule::syntax, {"-", 1});
  expect_rule(JsonRule::syntax, {"+1", 0});
  expect_rule(JsonRule::syntax, {".5", 0});
  expect_rule(JsonRule::syntax, {"1.", 2});
  expect_rule(JsonRule::syntax, {"1e", 2});
  expect_rule(JsonRule::syntax, {R"({"a":1)", 6});
  expect_rule(JsonRule::syntax, {R"(["abc)", 5, "/0"});
  expect_rule(JsonRule::syntax, {"\f1", 0});          // form feed is not JSON whitespace
  expect_rule(JsonRule::syntax, {"\xc2\xa0" "1", 0});  // nor is U+00A0
  expect_rule(JsonRule::syntax, {"\x7f", 0});
}

// Errors inside a value name at least the innermost enclosing container; the member itself when
// the reader knows it (see DISABLED_ScalarErrorsNameTheMember).
TEST(StrictReaderRules, ScalarErrorsNameTheEnclosingContainerOrTheMember) {
  struct Case {
    std::string_view text;
    JsonRule rule;
    std::size_t offset;
    const char* container;
    const char* member;
  };
  const Case cases[] = {
      {R"({"a":"\ud800"})", JsonRule::lone_surrogate, 12, "", "/a"},
      {R"([0,"\ud800"])", JsonRule::lone_surrogate, 10, "", "/1"},
      {R"({"a":1,"b":{"c":[true,false,null,"\ud800"]}})", JsonRule::lone_surrogate, 40, "/b/c", "/b/c/3"},
      {R"({"a":{"b":1e400}})", JsonRule::number_out_of_range, 14, "/a", "/a/b"},
      {R"({"a":[1,1e400]})", JsonRule::number_out_of_range, 12, "/a", "/a/1"},
      {"{\"a\":[0,{\"b\":\"x\ty\"}]}", JsonRule::control_character, 15, "/a/1", "/a/1/b"},
      {R"({"a":[1,2,]})", JsonRule::syntax, 10, "/a", "/a/2"},
  };
  for (const auto& c : cases) {
    auto r = parse_strict(c.text);
    ASSERT_FALSE(r.has_value()) << c.text;
    EXPECT_EQ(r.error().rule, c.rule) << c.text;
    EXPECT_EQ(r.error().offset, c.offset) << c.text;
    EXPECT_THAT(r.error().pointer, testing::AnyOf(c.container, c.member)) << c.text;
  }
}

// What the header promises ("JSON Pointer of the offending member"): errors found inside a scalar
// name the member or element being read, not only its container (issue 13).
TEST(StrictReaderRules, ScalarErrorsNameTheMember) {
  EXPECT_EQ(parse_strict(R"({"a":"\ud800"})").error().pointer, "/a");
  EXPECT_EQ(parse_strict(R"([0,"\ud800"])").error().pointer, "/1");
  EXPECT_EQ(parse_strict(R"({"a":{"b":1e400}})").error().pointer, "/a/b");
  EXPECT_EQ(parse_strict("{\"a\":[0,{\"b\":\"x\ty\"}]}").error().pointer, "/a/1/b");
}

TEST(StrictReaderRules, DescribeCarriesRuleOffsetAndPointer) {
  auto r = parse_strict(R"({"x":{"k":1,"k":2}})");
  ASSERT_FALSE(r.has_value());
  const std::string d = r.error().describe();
  EXPECT_EQ(d.rfind("duplicate-key at byte 15 (/x/k): ", 0), 0u) << d;
}

// ---- what the reader accepts -------------------------------------------------------------------

TEST(StrictReaderAccepts, AllFourWhitespaceCharacters) {
  auto r = parse_strict(" \t\r\n[ \t\r\n1 \t\r\n, \t\r\n{ \"a\" \t\r\n: \t\r\nnull } ] \t\r\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->dump(), R"([1,{"a":null}])");
}

TEST(StrictReaderAccepts, NumberKinds) {
  auto r = parse_strict("[-1, 1, 1.0, 18446744073709551615, -9223372036854775808, 1e2]");
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE((*r)[0].is_number_integer() && !(*r)[0].is_number_unsigned());
  EXPECT_TRUE((*r)[1].is_number_unsigned());
  EXPECT_TRUE((*r)[2].is_number_float());
  EXPECT_EQ((*r)[3].get<std::uint64_t>(), 18446744073709551615ULL);
  EXPECT_EQ((*r)[4].get<std::int64_t>(), std::numeric_limits<std::int64_t>::min());
  EXPECT_TRUE((*r)[5].is_number_float());
}

// RFC 8259 §8.1: a parser MAY ignore a byte order mark. The reader (through nlohmann) does.
TEST(StrictReaderAccepts, Utf8ByteOrderMarkIsSkipped) {
  auto r = parse_strict("\xef\xbb\xbf{\"a\":1}");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->dump(), R"({"a":1})");
}

TEST(StrictReaderAccepts, UnicodeAndEscapes) {
  auto r = parse_strict(R"({"\u00e9":"\ud83d\ude00","é":"\u20ac\/\"\\\b\f\n\r\t"})");
  ASSERT_FALSE(r.has_value());  // "\u00e9" and "é" are the same name
  EXPECT_EQ(r.error().rule, JsonRule::duplicate_key);

  auto ok = parse_strict(R"({"\u00e9":"\ud83d\ude00","e":"\u20ac\/\"\\\b\f\n\r\t"})");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ((*ok)["\u00e9"].get<std::string>(), "\U0001F600");
  EXPECT_EQ((*ok)["e"].get<std::string>(), "\u20ac/\"\\\b\f\n\r\t");
}

TEST(FindEncodingProblem, NulCanBeAllowed) {
  Utf8Problem p{};
  EXPECT_TRUE(find_encoding_problem("ab\0c"sv, p));
  EXPECT_EQ(p.rule, JsonRule::nul_byte);
  EXPECT_EQ(p.offset, 2u);
  EXPECT_FALSE(find_encoding_problem("ab\0c"sv, p, /*nul_is_error=*/false));
  EXPECT_TRUE(find_encoding_problem("ab\0c\xff"sv, p, false));
  EXPECT_EQ(p.rule, JsonRule::invalid_utf8);
  EXPECT_EQ(p.offset, 4u);
  EXPECT_FALSE(find_encoding_problem("", p));
}

// The reader skips ASCII eight bytes at a time: a bad byte or a NUL is found at its exact offset
// wherever it falls in a word, after ASCII or after multi-byte text, and valid text of every
// length passes.
TEST(FindEncodingProblem, FindsEveryPositionAcrossWordBoundaries) {
  for (const std::string& lead : {std::string(), std::string("\xc3\xa9"), std::string("\xf0\x9f\x98\x80")}) {
    for (std::size_t at = 0; at < 40; ++at) {
      std::string text = lead + std::string(at, 'a');
      Utf8Problem p{};
      EXPECT_FALSE(find_encoding_problem(text, p)) << at;
      for (const char bad : {'\xff', '\x80', '\xc0'}) {
        const std::string broken = text + bad + std::string(17, 'z');
        ASSERT_TRUE(find_encoding_problem(broken, p)) << at;
        EXPECT_EQ(p.rule, JsonRule::invalid_utf8);
        EXPECT_EQ(p.offset, lead.size() + at);
      }
      const std::string with_nul = text + '\0' + std::string(17, 'z');
      ASSERT_TRUE(find_encoding_problem(with_nul, p)) << at;
      EXPECT_EQ(p.rule, JsonRule::nul_byte);
      EXPECT_EQ(p.offset, lead.size() + at);
      EXPECT_FALSE(find_encoding_problem(with_nul, p, /*nul_is_error=*/false)) << at;
      // A multi-byte character cut short by the end of the text.
      ASSERT_TRUE(find_encoding_problem(text + "\xe2\x82", p)) << at;
      EXPECT_EQ(p.offset, lead.size() + at);
      EXPECT_FALSE(find_encoding_problem(text + "\xe2\x82\xac" + std::string(at, 'b'), p)) << at;
    }
  }
}

}  // namespace
}  // namespace ac::json
