// Unit tests of the RFC 8785 serializer beyond the RFC's own vectors: ECMAScript number layout at
// every boundary, integer-to-double conversion, JCS string escaping byte by byte, UTF-16 member
// order, and every error (rule, pointer, offset).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "harness/json/canonical.hpp"
#include "tests/json/json_test_support.hpp"

namespace ac::json {
namespace {

using test::printable;

std::string canon_ok(const Json& v) {
  auto c = canonicalize(v);
  EXPECT_TRUE(c.has_value()) << c.error().describe();
  return c ? *c : std::string("<error>");
}

std::string canon_text_ok(std::string_view text) {
  auto c = canonicalize_text(text);
  EXPECT_TRUE(c.has_value()) << printable(text) << ": " << c.error().describe();
  return c ? *c : std::string("<error>");
}

// ---- numbers -----------------------------------------------------------------------------------

TEST(FormatNumber, ExtremesAndBoundaries) {
  EXPECT_EQ(format_number(5e-324), "5e-324");
  EXPECT_EQ(format_number(-5e-324), "-5e-324");
  EXPECT_EQ(format_number(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(format_number(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(format_number(2.2250738585072014e-308), "2.2250738585072014e-308");  // smallest normal
  // 1e21 is the first value in exponent form; the double just below it is not.
  EXPECT_EQ(format_number(1e21), "1e+21");
  EXPECT_EQ(format_number(std::nextafter(1e21, 0.0)), "999999999999999900000");
  EXPECT_EQ(format_number(1e20), "100000000000000000000");
  EXPECT_EQ(format_number(1.5e21), "1.5e+21");
  EXPECT_EQ(format_number(-1e21), "-1e+21");
  // 1e-6 is the last value in decimal form; below it the exponent form starts.
  EXPECT_EQ(format_number(0.000001), "0.000001");
  EXPECT_EQ(format_number(1e-6), "0.000001");
  EXPECT_EQ(format_number(1.5e-6), "0.0000015");
  EXPECT_EQ(format_number(1e-7), "1e-7");
  EXPECT_EQ(format_number(1.5e-7), "1.5e-7");
  EXPECT_EQ(format_number(-1.5e-7), "-1.5e-7");
  EXPECT_EQ(format_number(std::nextafter(1e-6, 0.0)), "9.999999999999997e-7");
}

TEST(FormatNumber, ZeroAndSign) {
  EXPECT_EQ(format_number(0.0), "0");
  EXPECT_EQ(format_number(-0.0), "0");
  EXPECT_EQ(format_number(-1.0), "-1");
  EXPECT_EQ(format_number(-0.5), "-0.5");
}

TEST(FormatNumber, OrdinaryValues) {
  EXPECT_EQ(format_number(1.0), "1");
  EXPECT_EQ(format_number(100.0), "100");
  EXPECT_EQ(format_number(123.0), "123");
  EXPECT_EQ(format_number(4.5), "4.5");
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(format_number(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(format_number(123456.789), "123456.789");
  EXPECT_EQ(format_number(1.23e-18), "1.23e-18");
  EXPECT_EQ(format_number(1e30), "1e+30");
  EXPECT_EQ(format_number(1.5e300), "1.5e+300");
  EXPECT_EQ(format_number(2e-3), "0.002");
  EXPECT_EQ(format_number(1e-27), "1e-27");
  EXPECT_EQ(format_number(9007199254740991.0), "9007199254740991");
  EXPECT_EQ(format_number(9007199254740992.0), "9007199254740992");
  EXPECT_EQ(format_number(9007199254740994.0), "9007199254740994");
  EXPECT_EQ(format_number(1152921504606846976.0), "1152921504606847000");  // 2^60
}

TEST(FormatNumber, NonFiniteUseEcmaScriptNames) {
  EXPECT_EQ(format_number(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity()), "-Infinity");
}

// Integers that nlohmann keeps as int64/uint64 are doubles to JCS.
TEST(CanonicalNumbers, IntegersAreConvertedToDoubles) {
  EXPECT_EQ(canon_text_ok("9007199254740993"), "9007199254740992");  // 2^53 + 1 is not a double
  EXPECT_EQ(canon_text_ok("-9007199254740993"), "-9007199254740992");
  EXPECT_EQ(canon_text_ok("9007199254740991"), "9007199254740991");
  EXPECT_EQ(canon_text_ok("9223372036854775808"), "9223372036854776000");  // 2^63 (uint64)
  EXPECT_EQ(canon_text_ok("9223372036854775807"), "9223372036854776000");  // int64 max
  EXPECT_EQ(canon_text_ok("-9223372036854775808"), "-9223372036854776000");
  EXPECT_EQ(canon_text_ok("18446744073709551615"), "18446744073709552000");
  EXPECT_EQ(canon_text_ok("18446744073709551616"), "18446744073709552000");  // beyond uint64: a float
  EXPECT_EQ(canon_text_ok("100000000000000000000000"), "1e+23");

  EXPECT_EQ(canon_ok(Json(std::int64_t{1} << 62)), "4611686018427388000");
  EXPECT_EQ(canon_ok(Json(std::numeric_limits<std::int64_t>::min())), "-9223372036854776000");
  EXPECT_EQ(canon_ok(Json(std::numeric_limits<std::uint64_t>::max())), "18446744073709552000");
  EXPECT_EQ(canon_ok(Json(std::uint64_t{9223372036854775808ULL})), "9223372036854776000");
  EXPECT_EQ(canon_ok(Json(0)), "0");
  EXPECT_EQ(canon_ok(Json(-1)), "-1");
}

TEST(CanonicalNumbers, TextSpellingsOfOneValueAgree) {
  for (const char* spelling : {"1", "1.0", "1e0", "10e-1", "0.1e1", "1.000000000000000000001"}) {
    EXPECT_EQ(canon_text_ok(spelling), "1") << spelling;
  }
  for (const char* spelling : {"0", "-0", "0.0", "-0.0", "0e10", "-0E-10", "1e-400"}) {
    EXPECT_EQ(canon_text_ok(spelling), "0") << spelling;
  }
  EXPECT_EQ(canon_text_ok("[333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001]"),
            "[333333333.3333333,1e+30,4.5,0.002,1e-27]");
}

TEST(CanonicalNumbers, NonFiniteValuesAreRejectedWithTheirPointer) {
  Json v = {{"a", {1, {{"b", std::numeric_limits<double>::quiet_NaN()}}}}};
  auto c = canonicalize(v);
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().rule, "non-finite-number");
  EXPECT_EQ(c.error().pointer, "/a/1/b");
  EXPECT_NE(c.error().message.find("NaN"), std::string::npos);
  EXPECT_FALSE(c.error().offset.has_value());

  auto inf = canonicalize(Json{{"x/y~z", -std::numeric_limits<double>::infinity()}});
  ASSERT_FALSE(inf.has_value());
  EXPECT_EQ(inf.error().rule, "non-finite-number");
  EXPECT_EQ(inf.error().pointer, "/x~1y~0z");
  EXPECT_NE(inf.error().message.find("-Infinity"), std::string::npos);

  auto root = canonicalize(Json(std::numeric_limits<double>::infinity()));
  ASSERT_FALSE(root.has_value());
  EXPECT_EQ(root.error().pointer, "");
}

// ---- strings -----------------------------------------------------------------------------------

TEST(CanonicalStrings, EveryControlCharacterIsEscapedTheJcsWay) {
  for (int c = 0; c < 0x20; ++c) {
    const std::string s(1, static_cast<char>(c));
    std::string expected;
    switch (c) {
      case '\b': expected = "\"\\b\""; break;
      case '\t': expected = "\"\\t\""; break;
      case '\n': expected = "\"\\n\""; break;
      case '\f': expected = "\"\\f\""; break;
      case '\r': expected = "\"\\r\""; break;
      default: {
        char buf[16];
        std::snprintf(buf, sizeof buf, "\"\\u%04x\"", c);  // lowercase hex
        expected = buf;
      }
    }
    EXPECT_EQ(canon_ok(Json(s)), expected) << "control character " << c;
  }
}

TEST(CanonicalStrings, OnlyQuoteAndBackslashAmongPrintablesAreEscaped) {
  EXPECT_EQ(canon_ok(Json("\"")), "\"\\\"\"");
  EXPECT_EQ(canon_ok(Json("\\")), "\"\\\\\"");
  EXPECT_EQ(canon_ok(Json("/")), "\"/\"");          // solidus stays raw
  EXPECT_EQ(canon_ok(Json("\x7f")), "\"\x7f\"");    // DEL stays raw
  EXPECT_EQ(canon_ok(Json("\u2028\u2029")), "\"\u2028\u2029\"");  // raw, unlike some JS encoders
  EXPECT_EQ(canon_ok(Json("\u00e9\u20ac\U0001F600")), "\"\u00e9\u20ac\U0001F600\"");
  EXPECT_EQ(canon_ok(Json(std::string("a\0b", 3))), "\"a\\u0000b\"");
  std::string printable_ascii;
  for (char c = 0x20; c < 0x7f; ++c) {
    if (c != '"' && c != '\\') printable_ascii += c;
  }
  EXPECT_EQ(canon_ok(Json(printable_ascii)), "\"" + printable_ascii + "\"");
}

TEST(CanonicalStrings, EscapesInTheInputAreNormalized) {
  EXPECT_EQ(canon_text_ok(R"("\u0041\u00e9\u20AC\ud83d\ude00\/\u001F\u007f")"),
            "\"A\u00e9\u20ac\U0001F600/\\u001f\x7f\"");
  EXPECT_EQ(canon_text_ok(R"("\u0000")"), "\"\\u0000\"");
  EXPECT_EQ(canon_text_ok(R"("\b\f\n\r\t\"\\")"), R"("\b\f\n\r\t\"\\")");
  EXPECT_EQ(canon_text_ok(R"("\u0008\u000C\u000a\u000D\u0009")"), R"("\b\f\n\r\t")");
}

TEST(CanonicalStrings, InvalidUtf8InAValueIsRejectedWithItsPointer) {
  struct Case {
    std::string bytes;
    const char* rule;
  };
  const Case cases[] = {
      {"\xc0\x80", "invalid-utf8"},          // overlong NUL
      {"ok\xe0\x80\xaf", "invalid-utf8"},    // overlong '/'
      {"\xf5\x80\x80\x80", "invalid-utf8"},  // above U+10FFFF
      {"\xff", "invalid-utf8"},
      {"\x80", "invalid-utf8"},              // lone continuation byte
      {"abc\xe2\x82", "invalid-utf8"},       // truncated sequence
      {"\xed\xa0\x80", "lone-surrogate"},    // U+D800 encoded in UTF-8
      {"\xed\xbf\xbf", "lone-surrogate"},    // U+DFFF
  };
  for (const auto& c : cases) {
    auto r = canonicalize(Json{{"k", {"fine", c.bytes}}});
    ASSERT_FALSE(r.has_value()) << printable(c.bytes);
    EXPECT_EQ(r.error().rule, c.rule) << printable(c.bytes);
    EXPECT_EQ(r.error().pointer, "/k/1") << printable(c.bytes);
  }
}

TEST(CanonicalStrings, InvalidUtf8InAMemberNamePointsAtTheObject) {
  Json v;
  v["outer"][std::string("bad\xff")] = 1;
  auto r = canonicalize(v);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().rule, "invalid-utf8");
  EXPECT_EQ(r.error().pointer, "/outer");
  EXPECT_NE(r.error().message.find("member name"), std::string::npos);
  EXPECT_NE(r.error().message.find("byte 3"), std::string::npos);

  // Same on the UTF-16 re-sort path (names mixing U+E000..U+FFFF with astral characters).
  Json mixed;
  mixed["\uE000"] = 1;
  mixed["\U0001F600"] = 2;
  mixed[std::string("\xed\xa0\x80")] = 3;
  auto m = canonicalize(mixed);
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().rule, "lone-surrogate");
  EXPECT_EQ(m.error().pointer, "");
}

// ---- member order ------------------------------------------------------------------------------

TEST(CanonicalOrder, AstralSortsBeforeUpperBmpBecauseOfSurrogates) {
  // U+1F600 is D83D DE00 in UTF-16, below U+E000, although its code point is larger.
  Json v;
  v["\uE000"] = 1;
  v["\U0001F600"] = 2;
  EXPECT_EQ(canon_ok(v), "{\"\U0001F600\":2,\"\uE000\":1}");
  EXPECT_EQ(canon_text_ok(R"({"\ue000":1,"\ud83d\ude00":2})"), "{\"\U0001F600\":2,\"\uE000\":1}");
  // Byte order (= code point order) would put U+E000 first: the map does.
  EXPECT_EQ(v.begin().key(), "\uE000");
}

TEST(CanonicalOrder, BoundariesAroundTheSurrogateRange) {
  Json v;
  v["\uFFFF"] = "ffff";
  v["\U00010000"] = "10000";
  v["\uD7FF"] = "d7ff";
  v["\U0010FFFF"] = "10ffff";
  v["\uE000"] = "e000";
  v["z"] = "z";
  // UTF-16: 007A < D7FF < D800 DC00 (U+10000) < DBFF DFFF (U+10FFFF) < E000 < FFFF.
  EXPECT_EQ(canon_ok(v), "{\"z\":\"z\",\"\uD7FF\":\"d7ff\",\"\U00010000\":\"10000\",\"\U0010FFFF\":\"10ffff\","
                         "\"\uE000\":\"e000\",\"\uFFFF\":\"ffff\"}");
}

TEST(CanonicalOrder, AsciiNamesSortByCodeUnitNotByLocale) {
  EXPECT_EQ(canon_text_ok(R"({"b":1,"a":2,"B":3,"10":4,"9":5,"":6,"aa":7,"a ":8})"),
            R"({"":6,"10":4,"9":5,"B":3,"a":2,"a ":8,"aa":7,"b":1})");
}

TEST(CanonicalOrder, NestedObjectsAreSortedAndArraysKeepTheirOrder) {
  EXPECT_EQ(canon_text_ok(R"( { "z" : [ 3 , { "y" : 1 , "x" : 2 } , 1 ] , "a" : { } , "m" : [ ] } )"),
            R"({"a":{},"m":[],"z":[3,{"x":2,"y":1},1]})");
}

// Every level needs the UTF-16 re-sort. Each value must be written once: a serializer that
// re-wrote a subtree per re-sorted ancestor would take 2^depth steps here and never finish.
TEST(CanonicalOrder, NestedObjectsNeedingTheResortAreLinear) {
  constexpr int kLevels = 120;
  std::string text, expected;
  for (int i = 0; i < kLevels; ++i) {
    text += "{\"\\ue000\":";
    expected += "{\"\U0001F600\":" + std::to_string(i) + ",\"\uE000\":";
  }
  text += "null";
  expected += "null";
  for (int i = kLevels - 1; i >= 0; --i) {
    text += ",\"\\ud83d\\ude00\":" + std::to_string(i) + "}";
    expected += "}";
  }
  EXPECT_EQ(canon_text_ok(text), expected);
  auto parsed = parse_strict(text);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(canon_ok(*parsed), expected);
}

TEST(Utf16Less, IsTheUtf16CodeUnitOrder) {
  EXPECT_TRUE(utf16_less("", "a"));
  EXPECT_FALSE(utf16_less("a", ""));
  EXPECT_FALSE(utf16_less("a", "a"));
  EXPECT_TRUE(utf16_less("a", "ab"));
  EXPECT_TRUE(utf16_less("\U0001F600", "\uE000"));
  EXPECT_FALSE(utf16_less("\uE000", "\U0001F600"));
  EXPECT_TRUE(utf16_less("\uD7FF", "\U00010000"));
  EXPECT_TRUE(utf16_less("\U0001F600", "\U0001F601"));  // same high surrogate, low decides
  EXPECT_TRUE(utf16_less("\U0001F600", "\U00020000"));  // different high surrogates
  EXPECT_TRUE(utf16_less("x\U0001F600", "x\uFB33"));     // after a shared prefix
  EXPECT_TRUE(utf16_less("\u00e9", "\u00ea"));          // difference in a continuation byte
  EXPECT_TRUE(utf16_less("\u007f", "\u0080"));
}

// ---- structure, errors, limits -----------------------------------------------------------------

TEST(Canonical, LiteralsAndEmptyContainers) {
  EXPECT_EQ(canon_text_ok(" null "), "null");
  EXPECT_EQ(canon_text_ok("true"), "true");
  EXPECT_EQ(canon_text_ok("false"), "false");
  EXPECT_EQ(canon_text_ok("{ }"), "{}");
  EXPECT_EQ(canon_text_ok("[ ]"), "[]");
  EXPECT_EQ(canon_text_ok("\"\""), "\"\"");
  EXPECT_EQ(canon_text_ok("\t[\r\n1 ,\n2\n]\n"), "[1,2]");
  EXPECT_EQ(canon_ok(Json()), "null");
}

TEST(Canonical, BinaryValuesAreNotJson) {
  Json v = {{"blob", Json::binary({1, 2, 3})}};
  auto r = canonicalize(v);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().rule, "not-json");
  EXPECT_EQ(r.error().pointer, "/blob");
}

Json nested_arrays(std::size_t levels) {
  Json v = Json::array();
  for (std::size_t i = 1; i < levels; ++i) v = Json::array({std::move(v)});
  return v;
}

TEST(Canonical, NestingIsBounded) {
  auto at_limit = canonicalize(nested_arrays(kMaxCanonicalDepth));
  ASSERT_TRUE(at_limit.has_value()) << at_limit.error().describe();
  EXPECT_EQ(at_limit->size(), 2 * kMaxCanonicalDepth);

  auto over = canonicalize(nested_arrays(kMaxCanonicalDepth + 1));
  ASSERT_FALSE(over.has_value());
  EXPECT_EQ(over.error().rule, "too-deep");
  std::string pointer;
  for (std::size_t i = 0; i < kMaxCanonicalDepth; ++i) pointer += "/0";
  EXPECT_EQ(over.error().pointer, pointer);
}

TEST(CanonicalText, StrictReaderErrorsKeepRuleOffsetAndPointer) {
  auto dup = canonicalize_text(R"({"a":{"b":1,"b":2}})");
  ASSERT_FALSE(dup.has_value());
  EXPECT_EQ(dup.error().rule, "json.duplicate-key");
  EXPECT_EQ(dup.error().pointer, "/a/b");
  EXPECT_EQ(dup.error().offset, std::optional<std::size_t>(15));
  EXPECT_EQ(dup.error().describe().rfind("json.duplicate-key at byte 15 (pointer \"/a/b\"): ", 0), 0u)
      << dup.error().describe();

  using namespace std::literals;
  const struct {
    std::string_view text;
    const char* rule;
    std::size_t offset;
  } cases[] = {
      {"{\"a\":1}\0garbage"sv, "json.nul-byte", 7},
      {"{\"a\":1} x", "json.trailing-data", 8},
      {"[\"\\ud800\"]", "json.lone-surrogate", 8},
      {"\"\xed\xa0\x80\"", "json.invalid-utf8", 1},
      {"[1e400]", "json.number-out-of-range", 5},
      {"", "json.empty-input", 0},
      {"[1,]", "json.syntax", 3},
      {"\"a\x01\"", "json.unescaped-control-character", 2},
  };
  for (const auto& c : cases) {
    auto r = canonicalize_text(c.text);
    ASSERT_FALSE(r.has_value()) << printable(c.text);
    EXPECT_EQ(r.error().rule, c.rule) << printable(c.text);
    EXPECT_EQ(r.error().offset, std::optional<std::size_t>(c.offset)) << printable(c.text);
  }
}

TEST(CanonicalText, ReadLimitsArePassedToTheReader) {
  ReadLimits shallow;
  shallow.max_depth = 2;
  EXPECT_TRUE(canonicalize_text("[[1]]", shallow).has_value());
  auto deep = canonicalize_text("[[[1]]]", shallow);
  ASSERT_FALSE(deep.has_value());
  EXPECT_EQ(deep.error().rule, "json.too-deep");

  ReadLimits small;
  small.max_bytes = 4;
  auto big = canonicalize_text("[1,2]", small);
  ASSERT_FALSE(big.has_value());
  EXPECT_EQ(big.error().rule, "json.too-large");
}

TEST(CanonicalError, DescribeNamesRuleAndPointer) {
  CanonError e{"non-finite-number", "/a/0", "NaN has no JSON representation", std::nullopt};
  EXPECT_EQ(e.describe(), "non-finite-number (pointer \"/a/0\"): NaN has no JSON representation");
  e.offset = 12;
  EXPECT_EQ(e.describe(), "non-finite-number at byte 12 (pointer \"/a/0\"): NaN has no JSON representation");
}

}  // namespace
}  // namespace ac::json
