// Text helpers shared by the report writers: escaping for HTML, XML and Markdown, UTF-8 repair
// and bounded truncation. Every string in a report may come from a hostile target (frames,
// close reasons, HTTP bodies), so every writer passes every string through these functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ac::reports {

// Replaces every invalid UTF-8 sequence with U+FFFD, so the output is always valid UTF-8.
std::string valid_utf8(std::string_view s);

// At most max_bytes bytes of s, cut at a code point boundary (never inside a UTF-8 sequence).
// `cut` is set when something was removed.
std::string truncate_utf8(std::string_view s, std::size_t max_bytes, bool* cut = nullptr);

// HTML text and attribute values (& < > " ' escaped). Invalid UTF-8 is repaired; NUL and the C0
// controls other than tab, newline and carriage return become U+FFFD (browsers drop or mangle them).
std::string html_escape(std::string_view s);

// XML 1.0 text and attribute values: & < > " ' escaped, characters XML 1.0 forbids even as
// references (C0 controls except tab/LF/CR, U+FFFE, U+FFFF) replaced by U+FFFD. Tab, LF and CR are
// written as character references inside attributes so attribute normalization keeps them.
std::string xml_escape(std::string_view s, bool attribute = false);

// One Markdown table cell or inline text: HTML-significant and Markdown-significant characters
// escaped, newlines turned into spaces.
std::string md_escape(std::string_view s);

// Text for a terminal: credentials redacted (harness/util/redact.hpp), invalid UTF-8 repaired, C0/C1 controls and DEL (escape sequences a
// hostile frame could use to rewrite the screen) shown as \xNN; newlines and tabs kept when
// keep_newlines, otherwise shown as \n and \t.
std::string terminal_safe(std::string_view s, bool keep_newlines = false);

// A fragment identifier made only of [A-Za-z0-9._-] (other bytes as _XX hex), safe in id="" and
// in URLs without further escaping, and injective.
std::string anchor(std::string_view s);

// Today's date in UTC, YYYY-MM-DD.
std::string utc_today();
// Now in UTC, RFC 3339 with seconds ("2025-01-31T12:00:00Z").
std::string utc_now();

}  // namespace ac::reports
