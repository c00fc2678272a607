// Accept/reject tables for the hand-written format checkers (harness/schema/formats.cpp):
// uuid (8-4-4-4-12 hex, any version) and the RFC 3339 §5.6 productions full-date, full-time
// and date-time. The tables pin the grammar's corners: leap years, day ranges per month, 24:00,
// leap seconds, offsets, fractional seconds, lowercase 't'/'z', wrong lengths, stray characters.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "harness/schema/schema_store.hpp"

namespace ac::schema {
namespace {

using namespace std::literals;

void check_table(bool (*format)(std::string_view), const char* name, std::initializer_list<std::string_view> accept,
                 std::initializer_list<std::string_view> reject) {
  for (auto s : accept) EXPECT_TRUE(format(s)) << name << " should accept \"" << s << "\"";
  for (auto s : reject) EXPECT_FALSE(format(s)) << name << " should reject \"" << s << "\"";
}

TEST(FormatUuid, AcceptRejectTable) {
  check_table(is_uuid, "uuid",
              {
                  "550e8400-e29b-41d4-a716-446655440000",  // v4 as in the specs' examples
                  "00000000-0000-0000-0000-000000000000",  // nil
                  "ffffffff-ffff-ffff-ffff-ffffffffffff",
                  "550E8400-E29B-41D4-A716-446655440000",  // uppercase hex
                  "550e8400-E29b-41D4-a716-446655440000",  // mixed case
                  "6ba7b810-9dad-11d1-80b4-00c04fd430c8",  // v1
                  "01890a5d-ac96-774b-bcce-b302099a8057",  // v7
                  "550e8400-e29b-f1d4-0716-446655440000",  // any version/variant nibble
              },
              {
                  "",
                  "550e8400-e29b-41d4-a716-44665544000",    // 35 characters
                  "550e8400-e29b-41d4-a716-4466554400000",  // 37 characters
                  "770g0600-e29b-41d4-a716-446655440000",   // 'g' (the A2ACP spec's example)
                  "550e8400-e29b-41d4-a716-44665544000z",
                  "550e8400-e29b-41d4-a716-44665544000 ",
                  " 50e8400-e29b-41d4-a716-446655440000",
                  "550e8400e29b41d4a716446655440000",       // no hyphens
                  "550e8400-e29b41d4-a716-4466-55440000",   // hyphens misplaced
                  "550e8400_e29b_41d4_a716_446655440000",
                  "{550e8400-e29b-41d4-a716-446655440000}",
                  "urn:uuid:550e8400-e29b-41d4-a716-446655440000",
                  "550e8400-e29b-41d4-a716-4466554400\xc3\xa9",  // non-ASCII, right byte length
                  "550e8400-e29b-41d4-a716-44665544000\0"sv,      // NUL as the last character
              });
}

TEST(FormatDate, AcceptRejectTable) {
  check_table(is_date, "date",
              {
                  "2024-01-31", "2024-02-29",  // leap year (divisible by 4)
                  "2000-02-29",                // leap year (divisible by 400)
                  "2023-02-28", "2023-04-30", "2023-06-30", "2023-09-30", "2023-11-30", "2023-12-31",
                  "0000-01-01", "9999-12-31",
              },
              {
                  "", "2023-02-29",  // not a leap year
                  "1900-02-29",      // divisible by 100, not by 400
                  "2100-02-29",
                  "2024-02-30", "2023-04-31", "2023-06-31", "2023-09-31", "2023-11-31", "2023-01-32",
                  "2023-00-10", "2023-13-01", "2023-01-00",
                  "2023-1-01", "2023-01-1", "23-01-01", "02023-01-01",  // wrong field lengths
                  "2023/01/01", "2023-01-01T", "2023-01-01 ", " 2023-01-01", "2023-01-01Z",
                  "20230101", "2023-0a-01", "+2023-01-01", "2023-01",
              });
}

TEST(FormatTime, AcceptRejectTable) {
  check_table(is_time, "time",
              {
                  "00:00:00Z", "23:59:59Z", "12:34:56z",  // lowercase z
                  "23:59:60Z",                            // leap second
                  "12:34:56.7Z", "12:34:56.123456789Z",   // any number of fraction digits
                  "12:34:56+00:00", "12:34:56-00:00", "12:34:56+05:30", "12:34:56-12:00",
                  "12:34:56+23:59", "12:34:56.5-08:00",
              },
              {
                  "", "24:00:00Z",  // RFC 3339 has no 24:00
                  "23:60:00Z", "23:59:61Z",
                  "12:34:56",                                   // full-time needs an offset
                  "12:34Z", "1:02:03Z", "12:3:04Z", "12:34:5Z",  // wrong lengths
                  "12:34:56.Z", "12:34:56,5Z",                  // empty fraction, comma
                  "12:34:56+24:00", "12:34:56+05:60", "12:34:56+0530", "12:34:56+05", "12:34:56+5:30",
                  "12:34:56 Z", "12:34:56ZZ", "12:34:56Z ", "12:34:56UTC", "12-34-56Z", "T12:34:56Z",
                  "12:34:56.5+05:30:00",
              });
}

TEST(FormatDateTime, AcceptRejectTable) {
  check_table(is_date_time, "date-time",
              {
                  "2024-01-15T10:30:00Z", "2024-01-15T10:30:00.000Z", "2024-01-15t10:30:00z",  // lowercase t, z
                  "2024-02-29T23:59:60+00:00", "2024-12-31T23:59:59.999999-05:00", "1970-01-01T00:00:00+14:00",
                  "2024-01-15T10:30:00.1+01:00",
              },
              {
                  "", "2024-01-15", "2024-01-15T", "2024-01-15 10:30:00Z",  // space separator
                  "2024-01-15T10:30:00",                                       // no offset
                  "2024-01-15T24:00:00Z", "2023-02-29T10:30:00Z", "2024-01-15T10:30Z",
                  "2024-01-15TT10:30:00Z", "2024-01-15X10:30:00Z", "2024-1-15T10:30:00Z",
                  "2024-01-15T10:30:00.Z", "2024-01-15T10:30:00+0100", "2024-01-15T10:30:00Z\n",
                  "T10:30:00Z", "2024-01-15T10:30:00+01:00Z",
              });
}

}  // namespace
}  // namespace ac::schema
