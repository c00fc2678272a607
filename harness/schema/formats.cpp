// Hand-written format checkers: exact, allocation-free, and immune to hostile input length.
#include <cstdint>

#include "harness/schema/schema_store.hpp"

namespace ac::schema {
namespace {

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly n digits at s[i..i+n) into out.
bool digits(std::string_view s, std::size_t i, std::size_t n, int& out) {
  if (i + n > s.size()) return false;
  out = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (!is_digit(s[i + k])) return false;
    out = out * 10 + (s[i + k] - '0');
  }
  return true;
}

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2) {
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return leap ? 29 : 28;
  }
  return kDays[month - 1];
}

// full-date = date-fullyear "-" date-month "-" date-mday
bool parse_date(std::string_view s, std::size_t& i) {
  int y = 0, m = 0, d = 0;
  if (!digits(s, i, 4, y) || i + 4 >= s.size() || s[i + 4] != '-') return false;
  if (!digits(s, i + 5, 2, m) || i + 7 >= s.size() || s[i + 7] != '-') return false;
  if (!digits(s, i + 8, 2, d)) return false;
  if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, m)) return false;
  i += 10;
  return true;
}

// full-time = partial-time time-offset
bool parse_time(std::string_view s, std::size_t& i) {
  int hh = 0, mm = 0, ss = 0;
  if (!digits(s, i, 2, hh) || i + 2 >= s.size() || s[i + 2] != ':') return false;
  if (!digits(s, i + 3, 2, mm) || i + 5 >= s.size() || s[i + 5] != ':') return false;
  if (!digits(s, i + 6, 2, ss)) return false;
  if (hh > 23 || mm > 59 || ss > 60) return false;
  i += 8;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const std::size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == start) return false;
  }
  if (i >= s.size()) return false;
  if (s[i] == 'Z' || s[i] == 'z') {
    ++i;
    return true;
  }
  if (s[i] != '+' && s[i] != '-') return false;
  int oh = 0, om = 0;
  if (!digits(s, i + 1, 2, oh) || i + 3 >= s.size() || s[i + 3] != ':' || !digits(s, i + 4, 2, om)) return false;
  if (oh > 23 || om > 59) return false;
  i += 6;
  return true;
}

}  // namespace

bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < 36; ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
    } else if (!is_hex(s[i])) {
      return false;
    }
  }
  return true;
}

bool is_date(std::string_view s) {
  std::size_t i = 0;
  return parse_date(s, i) && i == s.size();
}

bool is_time(std::string_view s) {
  std::size_t i = 0;
  return parse_time(s, i) && i == s.size();
}

bool is_date_time(std::string_view s) {
  std::size_t i = 0;
  if (!parse_date(s, i)) return false;
  if (i >= s.size() || (s[i] != 'T' && s[i] != 't')) return false;
  ++i;
  return parse_time(s, i) && i == s.size();
}

}  // namespace ac::schema
