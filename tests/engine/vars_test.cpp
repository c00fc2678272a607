// Template substitution: typed whole-string references, interpolation, escapes, errors.
#include <gtest/gtest.h>

#include "harness/engine/vars.hpp"
#include "harness/schema/schema_store.hpp"

namespace ac::engine {
namespace {

TEST(Vars, WholeStringReferenceKeepsType) {
  Vars v;
  v.set("n", 42);
  v.set("obj", Json{{"k", true}});
  auto r = v.substitute(Json{{"a", "${n}"}, {"b", "${obj}"}});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)["a"], 42);
  EXPECT_EQ((*r)["b"], (Json{{"k", true}}));
}

TEST(Vars, InterpolationInsideStringsAndKeys) {
  Vars v;
  v.set("a.id", "agent-1");
  v.set("n", 7);
  auto r = v.substitute(Json{{"to", "${a.id}-x"}, {"${a.id}", "n=${n}"}});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)["to"], "agent-1-x");
  EXPECT_EQ((*r)["agent-1"], "n=7");
}

TEST(Vars, EscapedDollarBrace) {
  Vars v;
  auto r = v.substitute_string("literal $${x}");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "literal ${x}");
}

TEST(Vars, UnknownAndUnterminatedAreErrors) {
  Vars v;
  EXPECT_FALSE(v.substitute(Json("${missing}")));
  EXPECT_FALSE(v.substitute_string("x ${open"));
}

TEST(Vars, DynamicUuidAndNow) {
  Vars v;
  auto a = v.get("uuid"), b = v.get("uuid");
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(schema::is_uuid(a->get<std::string>()));
  EXPECT_NE(*a, *b);
  auto now = v.get("now");
  ASSERT_TRUE(now);
  EXPECT_TRUE(schema::is_date_time(now->get<std::string>()));
}

TEST(Vars, ArraysAreSubstitutedElementwise) {
  Vars v;
  v.set("x", "y");
  auto r = v.substitute(Json::array({"${x}", 1, Json::array({"${x}"})}));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, Json::parse(R"(["y",1,["y"]])"));
}

}  // namespace
}  // namespace ac::engine
