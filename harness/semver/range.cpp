#include "harness/semver/range.hpp"

#include <limits>
#include <optional>

namespace ac::semver {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

Unexpected<SemverError> fail(std::size_t offset, std::string message) {
  return unexpected(SemverError{offset, std::move(message)});
}

bool is_space(char c) { return c == ' ' || c == '\t'; }

// A version with possibly wildcard parts: "1", "1.2", "1.x", "1.2.3-beta+b".
struct Partial {
  std::optional<std::uint64_t> major, minor, patch;  // nullopt = x / * / missing
  std::vector<Identifier> prerelease;
  std::vector<std::string> build;

  Version at(std::uint64_t ma, std::uint64_t mi, std::uint64_t pa, bool zero_pre = false) const {
    Version v{ma, mi, pa, {}, {}};
    if (zero_pre) v.prerelease.push_back(Identifier{"0", true});
    return v;
  }
  Version full() const {
    Version v{*major, *minor, *patch, prerelease, build};
    return v;
  }
  bool complete() const { return patch.has_value(); }
};

bool is_wildcard(std::string_view s) { return s == "x" || s == "X" || s == "*"; }

// Parses the partial version in text[pos, end) (no spaces inside).
Expected<Partial, SemverError> parse_partial(std::string_view text, std::size_t pos, std::size_t end) {
  const std::string_view s = text.substr(pos, end - pos);
  if (s.empty()) return fail(pos, "expected a version");
  const std::size_t plus = s.find('+');
  const std::string_view before_build = s.substr(0, plus);
  const std::size_t dash = before_build.find('-');
  const std::string_view core = before_build.substr(0, dash);

  Partial p;
  std::optional<std::uint64_t>* parts[3] = {&p.major, &p.minor, &p.patch};
  std::size_t start = 0;
  bool wildcard_seen = false;
  for (int i = 0; i < 3 && start <= core.size(); ++i) {
    std::size_t dot = core.find('.', start);
    if (i == 2 && dot != std::string_view::npos) return fail(pos + dot, "more than three parts in a version");
    const std::string_view part = core.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty()) return fail(pos + start, "empty version part");
    if (is_wildcard(part)) {
      wildcard_seen = true;
    } else {
      if (wildcard_seen) return fail(pos + start, "a number cannot follow a wildcard (\"1.x.3\")");
      auto n = parse_number(part, pos + start);
      if (!n) return unexpected(std::move(n).error());
      *parts[i] = *n;
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (dash != std::string_view::npos || plus != std::string_view::npos) {
    if (!p.patch) return fail(pos, "pre-release or build metadata needs a complete MAJOR.MINOR.PATCH");
  }
  if (dash != std::string_view::npos) {
    auto pre = parse_prerelease(before_build.substr(dash + 1), pos + dash + 1);
    if (!pre) return unexpected(std::move(pre).error());
    p.prerelease = std::move(*pre);
  }
  if (plus != std::string_view::npos) {
    auto b = parse_build(s.substr(plus + 1), pos + plus + 1);
    if (!b) return unexpected(std::move(b).error());
    p.build = std::move(*b);
  }
  return p;
}

using Set = std::vector<Comparator>;

void add(Set& set, Op op, Version v) { set.push_back(Comparator{op, std::move(v)}); }
// A comparator nothing satisfies: 0.0.0-0 is the lowest version there is.
void add_none(Set& set) { add(set, Op::lt, Version{0, 0, 0, {Identifier{"0", true}}, {}}); }

// Upper bounds "<(M+1).0.0-0" etc.; when M+1 would overflow there is no upper bound.
void add_below_next_major(Set& set, const Partial& p, std::uint64_t major) {
  if (major != kMax) add(set, Op::lt, p.at(major + 1, 0, 0, true));
}
void add_below_next_minor(Set& set, const Partial& p, std::uint64_t major, std::uint64_t minor) {
  if (minor != kMax) add(set, Op::lt, p.at(major, minor + 1, 0, true));
  else add_below_next_major(set, p, major);
}
void add_below_next_patch(Set& set, const Partial& p, std::uint64_t ma, std::uint64_t mi, std::uint64_t pa) {
  if (pa != kMax) add(set, Op::lt, p.at(ma, mi, pa + 1, true));
  else add_below_next_minor(set, p, ma, mi);
}

void desugar_x(Set& set, const Partial& p) {
  if (!p.major) return;  // any
  if (!p.minor) {
    add(set, Op::ge, p.at(*p.major, 0, 0));
    add_below_next_major(set, p, *p.major);
  } else if (!p.patch) {
    add(set, Op::ge, p.at(*p.major, *p.minor, 0));
    add_below_next_minor(set, p, *p.major, *p.minor);
  } else {
    add(set, Op::eq, p.full());
  }
}

void desugar_caret(Set& set, const Partial& p) {
  if (!p.major) return;
  const std::uint64_t ma = *p.major;
  if (!p.minor) {
    add(set, Op::ge, p.at(ma, 0, 0));
    add_below_next_major(set, p, ma);
    return;
  }
  const std::uint64_t mi = *p.minor;
  add(set, Op::ge, p.patch ? p.full() : p.at(ma, mi, 0));
  if (ma > 0) {
    add_below_next_major(set, p, ma);
  } else if (mi > 0 || !p.patch) {
    add_below_next_minor(set, p, 0, mi);
  } else {
    add_below_next_patch(set, p, 0, 0, *p.patch);
  }
}

void desugar_tilde(Set& set, const Partial& p) {
  if (!p.major) return;
  if (!p.minor) {
    desugar_x(set, p);
    return;
  }
  add(set, Op::ge, p.patch ? p.full() : p.at(*p.major, *p.minor, 0));
  add_below_next_minor(set, p, *p.major, *p.minor);
}

void desugar_compare(Set& set, Op op, const Partial& p) {
  if (p.complete()) {
    add(set, op, p.full());
    return;
  }
  const bool any_major = !p.major;
  switch (op) {
    case Op::gt:
      if (any_major) add_none(set);
      else if (!p.minor) { if (*p.major == kMax) add_none(set); else add(set, Op::ge, p.at(*p.major + 1, 0, 0)); }
      else if (*p.minor == kMax) { if (*p.major == kMax) add_none(set); else add(set, Op::ge, p.at(*p.major + 1, 0, 0)); }
      else add(set, Op::ge, p.at(*p.major, *p.minor + 1, 0));
      break;
    case Op::ge:
      if (!any_major) add(set, Op::ge, p.at(*p.major, p.minor.value_or(0), 0));
      break;
    case Op::lt:
      if (any_major) add_none(set);
      else add(set, Op::lt, p.at(*p.major, p.minor.value_or(0), 0, true));
      break;
    case Op::le:
      if (any_major) break;
      if (!p.minor) add_below_next_major(set, p, *p.major);
      else add_below_next_minor(set, p, *p.major, *p.minor);
      break;
    case Op::eq:
      desugar_x(set, p);
      break;
  }
}

struct Token {
  std::size_t begin, end;
};

// Splits one alternative into whitespace-separated tokens.
std::vector<Token> tokens_of(std::string_view text, std::size_t begin, std::size_t end) {
  std::vector<Token> out;
  std::size_t i = begin;
  while (i < end) {
    while (i < end && is_space(text[i])) ++i;
    if (i >= end) break;
    std::size_t j = i;
    while (j < end && !is_space(text[j])) ++j;
    out.push_back({i, j});
    i = j;
  }
  return out;
}

Expected<Set, SemverError> parse_alternative(std::string_view text, std::size_t begin, std::size_t end) {
  auto tokens = tokens_of(text, begin, end);
  if (tokens.empty()) return fail(begin, "empty alternative (write '*' for any version)");
  Set set;
  // Hyphen range: exactly "A - B".
  if (tokens.size() == 3 && text.substr(tokens[1].begin, tokens[1].end - tokens[1].begin) == "-") {
    auto lo = parse_partial(text, tokens[0].begin, tokens[0].end);
    if (!lo) return unexpected(std::move(lo).error());
    auto hi = parse_partial(text, tokens[2].begin, tokens[2].end);
    if (!hi) return unexpected(std::move(hi).error());
    if (lo->major) add(set, Op::ge, lo->complete() ? lo->full() : lo->at(*lo->major, lo->minor.value_or(0), 0));
    if (hi->major) desugar_compare(set, Op::le, *hi);
    return set;
  }
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const std::string_view tok = text.substr(tokens[t].begin, tokens[t].end - tokens[t].begin);
    if (tok == "-") return fail(tokens[t].begin, "'-' is only allowed in a hyphen range \"A - B\"");
    enum class Kind { cmp, caret, tilde } kind = Kind::cmp;
    Op op = Op::eq;
    std::size_t op_len = 0;
    if (tok.starts_with(">=")) { op = Op::ge; op_len = 2; }
    else if (tok.starts_with("<=")) { op = Op::le; op_len = 2; }
    else if (tok.starts_with(">")) { op = Op::gt; op_len = 1; }
    else if (tok.starts_with("<")) { op = Op::lt; op_len = 1; }
    else if (tok.starts_with("=")) { op = Op::eq; op_len = 1; }
    else if (tok.starts_with("^")) { kind = Kind::caret; op_len = 1; }
    else if (tok.starts_with("~")) { kind = Kind::tilde; op_len = 1; }
    std::size_t vbegin = tokens[t].begin + op_len;
    std::size_t tend = tokens[t].end;
    if (op_len == tok.size()) {
      // An operator separated from its version by spaces: ">= 2.0.0".
      if (t + 1 >= tokens.size()) return fail(tend, "expected a version after '" + std::string(tok) + "'");
      ++t;
      vbegin = tokens[t].begin;
      tend = tokens[t].end;
    }
    const char first = text[vbegin];
    if (first == '>' || first == '<' || first == '=' || first == '^' || first == '~') {
      return fail(vbegin, "unexpected operator '" + std::string(1, first) + "'");
    }
    auto p = parse_partial(text, vbegin, tend);
    if (!p) return unexpected(std::move(p).error());
    switch (kind) {
      case Kind::caret: desugar_caret(set, *p); break;
      case Kind::tilde: desugar_tilde(set, *p); break;
      case Kind::cmp: desugar_compare(set, op, *p); break;
    }
  }
  return set;
}

bool same_core(const Version& a, const Version& b) {
  return a.major == b.major && a.minor == b.minor && a.patch == b.patch;
}

}  // namespace

bool Comparator::matches(const Version& v) const {
  const auto c = compare(v, version);
  switch (op) {
    case Op::eq: return c == 0;
    case Op::lt: return c < 0;
    case Op::le: return c <= 0;
    case Op::gt: return c > 0;
    case Op::ge: return c >= 0;
  }
  return false;
}

std::string Comparator::to_string() const {
  static constexpr const char* kOps[] = {"=", "<", "<=", ">", ">="};
  return kOps[static_cast<int>(op)] + version.to_string();
}

std::string Range::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < sets_.size(); ++i) {
    if (i > 0) out += " || ";
    if (sets_[i].empty()) {
      out += '*';
      continue;
    }
    for (std::size_t j = 0; j < sets_[i].size(); ++j) {
      if (j > 0) out += ' ';
      out += sets_[i][j].to_string();
    }
  }
  return out;
}

bool Range::satisfied_by(const Version& v, const RangeOptions& options) const {
  for (const auto& set : sets_) {
    bool all = true;
    for (const auto& c : set) {
      if (!c.matches(v)) {
        all = false;
        break;
      }
    }
    if (!all) continue;
    if (!v.is_prerelease() || options.include_prerelease) return true;
    for (const auto& c : set) {
      if (c.version.is_prerelease() && same_core(c.version, v)) return true;
    }
  }
  return false;
}

Expected<Range, SemverError> parse_range(std::string_view text) {
  Range r;
  r.source_ = std::string(text);
  if (tokens_of(text, 0, text.size()).empty()) return fail(0, "empty range (write '*' for any version)");
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool ok = is_space(c) || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    c == '.' || c == '-' || c == '+' || c == '*' || c == '<' || c == '>' || c == '=' || c == '^' ||
                    c == '~' || c == '|';
    if (!ok) return fail(i, "unexpected character in a version range");
  }
  std::size_t begin = 0;
  while (true) {
    const std::size_t bar = text.find('|', begin);
    const std::size_t end = bar == std::string_view::npos ? text.size() : bar;
    if (bar != std::string_view::npos && (bar + 1 >= text.size() || text[bar + 1] != '|')) {
      return fail(bar, "a single '|' is not an operator (alternatives are separated by '||')");
    }
    auto set = parse_alternative(text, begin, end);
    if (!set) return unexpected(std::move(set).error());
    r.sets_.push_back(std::move(*set));
    if (bar == std::string_view::npos) break;
    begin = bar + 2;
  }
  return r;
}

Expected<bool, SemverError> satisfies(std::string_view version, std::string_view range, const RangeOptions& options) {
  auto v = parse(version);
  if (!v) {
    auto e = std::move(v).error();
    e.message = "version: " + e.message;
    return unexpected(std::move(e));
  }
  auto r = parse_range(range);
  if (!r) {
    auto e = std::move(r).error();
    e.message = "range: " + e.message;
    return unexpected(std::move(e));
  }
  return r->satisfied_by(*v, options);
}

}  // namespace ac::semver
