// check_pattern(): the authoring check beside the matcher. Its vocabulary is the matcher's
// (every listed operator is one match() knows, every listed name is documented), well-formed
// patterns pass, and each kind of mistake is reported at its pointer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/engine/matcher.hpp"

namespace ac::engine {
namespace {

Json J(const char* s) { return Json::parse(s); }

std::vector<std::string> problems(const char* pattern) {
  std::vector<std::string> out;
  for (const auto& p : check_pattern(J(pattern))) out.push_back((p.pointer.empty() ? "(root)" : p.pointer) + ": " + p.message);
  return out;
}

TEST(MatcherCheck, EveryListedOperatorIsOneTheMatcherKnows) {
  for (const auto& op : matcher_operators()) {
    const Json pattern = {{op, Json()}};
    for (const Json& actual : {Json(1), Json("x"), Json::array(), Json::object()}) {
      auto m = match(pattern, actual);
      if (m) {
        EXPECT_EQ(m->expected.find("unknown matcher"), std::string::npos) << op;
      }
    }
  }
  // And an unlisted one is unknown to both.
  auto m = match(J(R"({"$nope": 1})"), Json(1));
  ASSERT_TRUE(m);
  EXPECT_NE(m->expected.find("unknown matcher"), std::string::npos);
  EXPECT_FALSE(check_pattern(J(R"({"$nope": 1})")).empty());
}

TEST(MatcherCheck, EveryShorthandIsNotALiteral) {
  // Each listed shorthand means something the literal string would not: it accepts a value
  // other than itself, or refuses itself.
  for (const auto& s : matcher_shorthands()) {
    if (s == "$any" || s == "$present") {
      EXPECT_FALSE(match(Json(s), Json(12345)).has_value()) << s << " was compared as a literal";
    } else if (s == "$nonempty" || s == "$string") {
      EXPECT_FALSE(match(Json(s), Json("x")).has_value()) << s << " was compared as a literal";
    } else {
      EXPECT_TRUE(match(Json(s), Json(s)).has_value()) << s << " was compared as a literal";
    }
  }
}

TEST(MatcherCheck, VocabularyIsDocumented) {
  std::ifstream in(std::filesystem::path(AC_SOURCE_DIR) / "docs/scenarios.md");
  std::stringstream doc;
  doc << in.rdbuf();
  for (const auto& s : matcher_shorthands()) EXPECT_NE(doc.str().find("`\"" + s + "\"`"), std::string::npos) << s;
  for (const auto& op : matcher_operators()) EXPECT_NE(doc.str().find("{\"" + op + "\""), std::string::npos) << op;
}

TEST(MatcherCheck, WellFormedPatternsPass) {
  for (const char* p : {R"({"a": "$uuid", "b": {"$regex": "^x[0-9]+$"}, "c": {"$one_of": [1, "$string"]}})",
                        R"({"$exact": {"a": "$any"}})", R"({"a": {"$len": 0}, "b": {"$min": -1.5, "$max": 3}})",
                        R"({"a": {"$not": {"$contains": ["$integer"]}}})", R"({"a": "${n}", "b": {"$len": "${count}"}})",
                        R"({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"})",
                        R"(["$absent", {"$absent": false}, {"$uuid": true}, "$1.00", "plain $text"])", "null", "{}"}) {
    EXPECT_TRUE(check_pattern(J(p)).empty()) << p << ": " << (check_pattern(J(p)).empty() ? "" : check_pattern(J(p)).front().message);
  }
}

TEST(MatcherCheck, ReportsEachMistakeAtItsPointer) {
  EXPECT_EQ(problems(R"({"a": "$UUID"})"),
            std::vector<std::string>{"/a: unknown matcher \"$UUID\" (did you mean \"$uuid\"?); a literal string starting with $ is "
                                     "matched with {\"$regex\": \"^\\\\$UUID$\"}"});
  EXPECT_EQ(problems(R"({"a": "$regex"})"),
            std::vector<std::string>{"/a: unknown matcher \"$regex\": $regex is an operator, write {\"$regex\": operand}; a literal "
                                     "string starting with $ is matched with {\"$regex\": \"^\\\\$regex$\"}"});
  EXPECT_EQ(problems(R"({"a": {"$present": true}})"),
            std::vector<std::string>{"/a/$present: unknown matcher operator \"$present\": $present is a shorthand, write the string "
                                     "\"$present\" instead of an object"});
  EXPECT_EQ(problems(R"({"$type": "strnig"})"),
            std::vector<std::string>{"/$type: $type takes one of string, number, integer, boolean, object, array, null, not "
                                     "\"strnig\" (did you mean \"string\"?)"});
  EXPECT_EQ(problems(R"({"$regex": 5})"), std::vector<std::string>{"/$regex: $regex takes a string (an RE2 pattern), not 5"});
  EXPECT_EQ(problems(R"x({"$regex": "a(?=b)"})x").size(), 1u);  // lookahead: not RE2
  EXPECT_EQ(problems(R"({"$uuid": false})"),
            std::vector<std::string>{"/$uuid: $uuid takes true (the operand is not read: $uuid false still means $uuid); write "
                                     "\"$uuid\" or {\"$not\": \"$uuid\"}"});
  EXPECT_EQ(problems(R"({"$min_len": 1.5})"), std::vector<std::string>{"/$min_len: $min_len takes a non-negative integer (a length), not 1.5"});
  EXPECT_EQ(problems(R"({"$max": "3"})"), std::vector<std::string>{"/$max: $max takes a number, not \"3\""});
  EXPECT_EQ(problems(R"({"$contains": []})"), std::vector<std::string>{"/$contains: $contains takes a non-empty array of patterns, not []"});
  EXPECT_EQ(problems(R"({"$includes": 1})"), std::vector<std::string>{"/$includes: $includes takes a string, not 1"});
  EXPECT_EQ(problems(R"({"$absent": "yes"})"), std::vector<std::string>{"/$absent: $absent takes true (absent) or false (present), not \"yes\""});
  EXPECT_EQ(problems(R"({"$exact": [1]})"), std::vector<std::string>{"/$exact: $exact takes an object pattern (the only members allowed), not [1]"});
  // Nested: inside $one_of, $not, $exact, arrays.
  EXPECT_EQ(problems(R"({"a": {"$one_of": [1, {"$not": {"$exact": {"b": ["$strng"]}}}]}})"),
            std::vector<std::string>{"/a/$one_of/1/$not/$exact/b/0: unknown matcher \"$strng\" (did you mean \"$string\"?); a literal "
                                     "string starting with $ is matched with {\"$regex\": \"^\\\\$strng$\"}"});
  EXPECT_EQ(problems(R"({"$frobnicate": 1})"),
            std::vector<std::string>{"/$frobnicate: unknown matcher operator \"$frobnicate\": the operators are $type, $regex, $uuid, "
                                     "$iso8601, $absent, $one_of, $not, $exact, $contains, $ordered, $len, $min_len, $max_len, "
                                     "$min, $max, $includes, $starts_with"});
}

}  // namespace
}  // namespace ac::engine
