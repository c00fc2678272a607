// Escaping and truncation for the report writers (see text.hpp).
#include "reports/text.hpp"

#include "harness/util/redact.hpp"

#include <ctime>

namespace ac::reports {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at s[i], 0 when the bytes there are not one.
std::size_t sequence_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned min = 0;
  unsigned cp = 0;
  if ((c & 0xE0) == 0xC0) { n = 2; min = 0x80; cp = c & 0x1F; }
  else if ((c & 0xF0) == 0xE0) { n = 3; min = 0x800; cp = c & 0x0F; }
  else if ((c & 0xF8) == 0xF0) { n = 4; min = 0x10000; cp = c & 0x07; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;  // overlong, too big, surrogate
  return n;
}

// Calls emit(sequence) for every valid code point and emit(kReplacement) for every invalid byte.
template <typename F>
void for_each_code_point(std::string_view s, F&& emit) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = sequence_length(s, i);
    if (n == 0) {
      emit(kReplacement);
      ++i;
    } else {
      emit(s.substr(i, n));
      i += n;
    }
  }
}

}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for_each_code_point(s, [&](std::string_view cp) { out += cp; });
  return out;
}

std::string truncate_utf8(std::string_view s, std::size_t max_bytes, bool* cut) {
  if (cut) *cut = s.size() > max_bytes;
  if (s.size() <= max_bytes) return std::string(s);
  std::size_t end = max_bytes;
  // Back up over continuation bytes so a multi-byte sequence is never split.
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return std::string(s.substr(0, end));
}

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for_each_code_point(s, [&](std::string_view cp) {
    if (cp.size() == 1) {
      const char c = cp[0];
      switch (c) {
        case '&': out += "&amp;"; return;
        case '<': out += "&lt;"; return;
        case '>': out += "&gt;"; return;
        case '"': out += "&quot;"; return;
        case '\'': out += "&#39;"; return;
        default: break;
      }
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
        out += kReplacement;
        return;
      }
    }
    out += cp;
  });
  return out;
}

std::string xml_escape(std::string_view s, bool attribute) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for_each_code_point(s, [&](std::string_view cp) {
    if (cp.size() == 1) {
      const char c = cp[0];
      switch (c) {
        case '&': out += "&amp;"; return;
        case '<': out += "&lt;"; return;
        case '>': out += "&gt;"; return;
        case '"': out += "&quot;"; return;
        case '\'': out += "&apos;"; return;
        case '\t': out += attribute ? "&#9;" : "\t"; return;
        case '\n': out += attribute ? "&#10;" : "\n"; return;
        case '\r': out += "&#13;"; return;  // a literal CR would be normalized away by parsers
        default: break;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        out += kReplacement;
        return;
      }
    }
    if (cp == "\xEF\xBF\xBE" || cp == "\xEF\xBF\xBF") {  // U+FFFE, U+FFFF: not XML characters
      out += kReplacement;
      return;
    }
    out += cp;
  });
  return out;
}

std::string md_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  for_each_code_point(s, [&](std::string_view cp) {
    if (cp.size() == 1) {
      const char c = cp[0];
      switch (c) {
        case '&': out += "&amp;"; return;
        case '<': out += "&lt;"; return;
        case '>': out += "&gt;"; return;
        case '\n': case '\r': case '\t': out += ' '; return;
        case '|': case '\\': case '`': case '*': case '_': case '[': case ']': case '#': case '!': case '~': case '(':
        case ')':
          out += '\\';
          out += c;
          return;
        default: break;
      }
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
        out += kReplacement;
        return;
      }
    }
    out += cp;
  });
  return out;
}

std::string terminal_safe(std::string_view text, bool keep_newlines) {
  static constexpr char hex[] = "0123456789abcdef";
  const std::string redacted = redact(text);  // a terminal line is published too (CI logs)
  const std::string_view s = redacted;
  std::string out;
  out.reserve(s.size());
  for_each_code_point(s, [&](std::string_view cp) {
    const auto c = static_cast<unsigned char>(cp[0]);
    if (cp.size() == 1 && (c < 0x20 || c == 0x7F)) {
      if (keep_newlines && (c == '\n' || c == '\t')) {
        out += static_cast<char>(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else {
        out += "\\x";
        out += hex[c >> 4];
        out += hex[c & 15];
      }
      return;
    }
    if (cp.size() == 2 && c == 0xC2 && static_cast<unsigned char>(cp[1]) < 0xA0) {  // C1 controls U+0080..U+009F
      out += "\\u00";
      out += hex[static_cast<unsigned char>(cp[1]) >> 4];
      out += hex[static_cast<unsigned char>(cp[1]) & 15];
      return;
    }
    out += cp;
  });
  return out;
}

std::string anchor(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-') {
      out += static_cast<char>(c);
    } else {
      out += '_';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

namespace {
std::string format_utc(const char* fmt) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  const std::size_t n = std::strftime(buf, sizeof buf, fmt, &tm);
  return std::string(buf, n);
}
}  // namespace

std::string utc_today() { return format_utc("%Y-%m-%d"); }
std::string utc_now() { return format_utc("%Y-%m-%dT%H:%M:%SZ"); }

}  // namespace ac::reports
