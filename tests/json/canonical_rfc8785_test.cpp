// RFC 8785's own examples (fixtures/rfc8785/, see its README): the §3.2.2 sample, the §3.2.4
// UTF-8 bytes, the §3.2.3 sorting example and every row of the Appendix B number table.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "harness/json/canonical.hpp"
#include "tests/json/json_test_support.hpp"

namespace ac::json {
namespace {

using test::printable;
using test::read_fixture;

TEST(Rfc8785Examples, Sample322CanonicalizesToTheRfcBytes) {
  const std::string input = read_fixture("sample_3.2.2.input.json");
  const std::string expected = read_fixture("sample_3.2.2.expected.json");
  ASSERT_FALSE(expected.empty());
  ASSERT_NE(expected.back(), '\n') << "expected output must not end with a newline";
  auto canon = canonicalize_text(input);
  ASSERT_TRUE(canon.has_value()) << canon.error().describe();
  EXPECT_EQ(printable(*canon), printable(expected));
}

TEST(Rfc8785Examples, Section324HexDumpIsTheCanonicalUtf8) {
  const std::string bytes = test::decode_hex(read_fixture("sample_3.2.4.utf8.hex"));
  EXPECT_EQ(bytes.size(), 118u);  // 32 + 32 + 32 + 22 pairs in the RFC's dump
  EXPECT_EQ(printable(bytes), printable(read_fixture("sample_3.2.2.expected.json")));
  auto canon = canonicalize_text(read_fixture("sample_3.2.2.input.json"));
  ASSERT_TRUE(canon.has_value()) << canon.error().describe();
  EXPECT_EQ(*canon, bytes);
}

TEST(Rfc8785Examples, Sample322IsAFixedPoint) {
  const std::string expected = read_fixture("sample_3.2.2.expected.json");
  auto again = canonicalize_text(expected);
  ASSERT_TRUE(again.has_value()) << again.error().describe();
  EXPECT_EQ(*again, expected);
}

TEST(Rfc8785Examples, Sorting323MatchesTheRfcBytes) {
  auto canon = canonicalize_text(read_fixture("sorting_3.2.3.input.json"));
  ASSERT_TRUE(canon.has_value()) << canon.error().describe();
  EXPECT_EQ(printable(*canon), printable(read_fixture("sorting_3.2.3.expected.json")));
}

// Independent of the derived bytes: the values must come out in the order the RFC lists.
TEST(Rfc8785Examples, Sorting323ValuesAppearInTheRfcOrder) {
  std::vector<std::string> order;
  std::istringstream lines(read_fixture("sorting_3.2.3.order.txt"));
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) order.push_back(line);
  }
  ASSERT_EQ(order.size(), 7u);

  auto canon = canonicalize_text(read_fixture("sorting_3.2.3.input.json"));
  ASSERT_TRUE(canon.has_value()) << canon.error().describe();
  auto parsed = parse_strict(*canon);
  ASSERT_TRUE(parsed.has_value());
  // Walk the canonical text: each value must be found after the previous one.
  std::size_t pos = 0;
  for (const auto& value : order) {
    const std::size_t at = canon->find("\"" + value + "\"", pos);
    ASSERT_NE(at, std::string::npos) << value << " missing or out of order in " << printable(*canon);
    pos = at + value.size();
  }
}

struct NumberRow {
  std::string hex, expected, comment;
};

std::vector<NumberRow> appendix_b_rows() {
  std::vector<NumberRow> rows;
  std::istringstream lines(read_fixture("appendix_b_numbers.tsv"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    NumberRow row;
    std::istringstream fields(line);
    std::getline(fields, row.hex, '\t');
    std::getline(fields, row.expected, '\t');
    std::getline(fields, row.comment, '\t');
    rows.push_back(row);
  }
  return rows;
}

TEST(Rfc8785AppendixB, TableHasEveryRow) {
  const auto rows = appendix_b_rows();
  EXPECT_EQ(rows.size(), 26u);
  std::size_t rejected = 0;
  for (const auto& r : rows) {
    EXPECT_EQ(r.hex.size(), 16u) << r.hex;
    rejected += r.expected.empty();
  }
  EXPECT_EQ(rejected, 2u);  // NaN and Infinity
}

TEST(Rfc8785AppendixB, FormatNumberMatchesEveryRow) {
  for (const auto& r : appendix_b_rows()) {
    if (r.expected.empty()) continue;
    const double d = test::double_from_hex(r.hex);
    EXPECT_EQ(format_number(d), r.expected) << r.hex << " " << r.comment;
  }
}

TEST(Rfc8785AppendixB, CanonicalizeMatchesEveryRowInsideAnArray) {
  for (const auto& r : appendix_b_rows()) {
    const double d = test::double_from_hex(r.hex);
    auto canon = canonicalize(Json::array({d}));
    if (r.expected.empty()) {
      ASSERT_FALSE(canon.has_value()) << r.hex << " must be rejected";
      EXPECT_EQ(canon.error().rule, "non-finite-number");
      EXPECT_EQ(canon.error().pointer, "/0");
    } else {
      ASSERT_TRUE(canon.has_value()) << r.hex << ": " << canon.error().describe();
      EXPECT_EQ(*canon, "[" + r.expected + "]") << r.hex;
    }
  }
}

// The expected strings are themselves JSON numbers that read back to the same double, and
// are canonical: canonicalizing the text gives the text (except -0, which becomes 0).
TEST(Rfc8785AppendixB, ExpectedTextsRoundTripThroughTheReader) {
  for (const auto& r : appendix_b_rows()) {
    if (r.expected.empty()) continue;
    auto parsed = parse_strict(r.expected);
    ASSERT_TRUE(parsed.has_value()) << r.expected;
    const double d = test::double_from_hex(r.hex);
    EXPECT_EQ(parsed->get<double>(), d) << r.expected;
    auto canon = canonicalize_text(r.expected);
    ASSERT_TRUE(canon.has_value());
    EXPECT_EQ(*canon, r.expected);
  }
}

}  // namespace
}  // namespace ac::json
