#include "harness/engine/matcher.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>

#include "harness/schema/schema_store.hpp"
#include "harness/util/closest_name.hpp"

namespace ac::engine {
namespace {

std::string show(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 200) s = s.substr(0, 197) + "...";
  return s;
}

std::string seg(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

bool is_operator_object(const Json& p) {
  if (!p.is_object() || p.empty()) return false;
  for (const auto& [k, v] : p.items()) {
    if (k.empty() || k[0] != '$') return false;
  }
  return true;
}

bool type_is(const Json& v, const std::string& t) {
  if (t == "string") return v.is_string();
  if (t == "number") return v.is_number();
  if (t == "integer") return v.is_number_integer() || (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
  if (t == "boolean") return v.is_boolean();
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "null") return v.is_null();
  return false;
}

std::optional<Mismatch> fail(const std::string& ptr, std::string expected, const Json* actual) {
  return Mismatch{ptr, std::move(expected), actual ? show(*actual) : std::string("(absent)")};
}

std::optional<Mismatch> match_at(const Json& pattern, const Json* actual, const std::string& ptr);

// Shorthand strings: "$uuid", "$string", ...
std::optional<std::optional<Mismatch>> shorthand(const std::string& s, const Json* actual, const std::string& ptr) {
  if (s.size() < 2 || s[0] != '$' || s[1] == '{') return std::nullopt;
  if (s == "$any") return std::optional<Mismatch>{};
  if (s == "$absent") return actual ? fail(ptr, "absent", actual) : std::nullopt;
  if (s == "$present") return actual ? std::nullopt : fail(ptr, "present", actual);
  if (!actual) return fail(ptr, s.substr(1), actual);
  if (s == "$uuid") return actual->is_string() && schema::is_uuid(actual->get<std::string>()) ? std::nullopt : fail(ptr, "a UUID", actual);
  if (s == "$iso8601") {
    return actual->is_string() && schema::is_date_time(actual->get<std::string>()) ? std::nullopt
                                                                                    : fail(ptr, "an ISO 8601 / RFC 3339 date-time", actual);
  }
  if (s == "$nonempty") {
    const bool ok = (actual->is_string() && !actual->get<std::string>().empty()) || (actual->is_array() && !actual->empty()) ||
                    (actual->is_object() && !actual->empty());
    return ok ? std::nullopt : fail(ptr, "non-empty", actual);
  }
  static const char* kTypes[] = {"string", "number", "integer", "boolean", "object", "array", "null"};
  for (const char* t : kTypes) {
    if (s == std::string("$") + t) return type_is(*actual, t) ? std::nullopt : fail(ptr, std::string("a ") + t, actual);
  }
  return std::nullopt;  // not a shorthand: a literal string starting with '$'
}

std::optional<Mismatch> match_operators(const Json& p, const Json* actual, const std::string& ptr) {
  for (const auto& [op, arg] : p.items()) {
    if (op == "$absent") {
      if (arg == true && actual) return fail(ptr, "absent", actual);
      if (arg == false && !actual) return fail(ptr, "present", actual);
      continue;
    }
    if (op == "$any") continue;
    if (op == "$one_of") {
      bool any = false;
      for (const auto& alt : arg) {
        if (!match_at(alt, actual, ptr)) {
          any = true;
          break;
        }
      }
      if (!any) return fail(ptr, "one of " + show(arg), actual);
      continue;
    }
    if (op == "$not") {
      if (!match_at(arg, actual, ptr)) return fail(ptr, "not " + show(arg), actual);
      continue;
    }
    if (!actual) return fail(ptr, show(p), actual);
    if (op == "$type") {
      if (!arg.is_string() || !type_is(*actual, arg.get<std::string>())) return fail(ptr, "a " + show(arg), actual);
    } else if (op == "$regex") {
      re2::RE2::Options o;
      o.set_log_errors(false);
      re2::RE2 re(arg.is_string() ? arg.get<std::string>() : std::string("(?!)"), o);
      if (!re.ok() || !actual->is_string() || !re2::RE2::PartialMatch(actual->get<std::string>(), re)) {
        return fail(ptr, "matching /" + (arg.is_string() ? arg.get<std::string>() : show(arg)) + "/", actual);
      }
    } else if (op == "$uuid") {
      if (!actual->is_string() || !schema::is_uuid(actual->get<std::string>())) return fail(ptr, "a UUID", actual);
    } else if (op == "$iso8601") {
      if (!actual->is_string() || !schema::is_date_time(actual->get<std::string>())) return fail(ptr, "an ISO 8601 date-time", actual);
    } else if (op == "$exact") {
      if (!actual->is_object() || !arg.is_object()) return fail(ptr, "exactly " + show(arg), actual);
      for (const auto& [k, v] : actual->items()) {
        if (!arg.contains(k)) return fail(ptr + "/" + seg(k), "no member " + k, &v);
      }
      if (auto m = match_at(arg, actual, ptr)) return m;
    } else if (op == "$contains") {
      if (!actual->is_array()) return fail(ptr, "an array containing " + show(arg), actual);
      for (const auto& want : arg) {
        bool found = false;
        for (const auto& have : *actual) {
          if (!match(want, have)) {
            found = true;
            break;
          }
        }
        if (!found) return fail(ptr, "an element matching " + show(want), actual);
      }
    } else if (op == "$ordered") {
      if (!actual->is_array()) return fail(ptr, "an array with, in order, " + show(arg), actual);
      std::size_t pos = 0;
      for (const auto& want : arg) {
        while (pos < actual->size() && match(want, (*actual)[pos])) ++pos;
        if (pos == actual->size()) return fail(ptr, "elements in order " + show(arg), actual);
        ++pos;
      }
    } else if (op == "$len" || op == "$min_len" || op == "$max_len") {
      const std::size_t n = actual->is_string() ? actual->get<std::string>().size() : (actual->is_structured() ? actual->size() : 0);
      const auto want = arg.is_number_unsigned() || arg.is_number_integer() ? arg.get<std::size_t>() : 0;
      const bool ok = op == "$len" ? n == want : op == "$min_len" ? n >= want : n <= want;
      if (!ok || !(actual->is_string() || actual->is_structured())) return fail(ptr, op.substr(1) + " " + show(arg), actual);
    } else if (op == "$min" || op == "$max") {
      if (!actual->is_number() || !arg.is_number()) return fail(ptr, op.substr(1) + " " + show(arg), actual);
      const double a = actual->get<double>(), b = arg.get<double>();
      if (op == "$min" ? a < b : a > b) return fail(ptr, op.substr(1) + " " + show(arg), actual);
    } else if (op == "$includes" || op == "$starts_with") {
      if (!actual->is_string() || !arg.is_string()) return fail(ptr, op.substr(1) + " " + show(arg), actual);
      const auto& s = actual->get_ref<const std::string&>();
      const auto& needle = arg.get_ref<const std::string&>();
      const bool ok = op == "$includes" ? s.find(needle) != std::string::npos : s.starts_with(needle);
      if (!ok) return fail(ptr, op.substr(1) + " " + show(arg), actual);
    } else {
      return fail(ptr, "(unknown matcher " + op + ")", actual);
    }
  }
  return std::nullopt;
}

std::optional<Mismatch> match_at(const Json& pattern, const Json* actual, const std::string& ptr) {
  if (pattern.is_string()) {
    if (auto sh = shorthand(pattern.get<std::string>(), actual, ptr)) return *sh;
  }
  if (is_operator_object(pattern)) return match_operators(pattern, actual, ptr);
  if (!actual) return fail(ptr, show(pattern), actual);
  if (pattern.is_object()) {
    if (!actual->is_object()) return fail(ptr, "an object like " + show(pattern), actual);
    for (const auto& [k, v] : pattern.items()) {
      auto it = actual->find(k);
      if (auto m = match_at(v, it == actual->end() ? nullptr : &*it, ptr + "/" + seg(k))) return m;
    }
    return std::nullopt;
  }
  if (pattern.is_array()) {
    if (!actual->is_array() || actual->size() != pattern.size()) return fail(ptr, show(pattern), actual);
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      if (auto m = match_at(pattern[i], &(*actual)[i], ptr + "/" + std::to_string(i))) return m;
    }
    return std::nullopt;
  }
  if (pattern.is_number() && actual->is_number()) {
    return pattern.get<double>() == actual->get<double>() ? std::nullopt : fail(ptr, show(pattern), actual);
  }
  return pattern == *actual ? std::nullopt : fail(ptr, show(pattern), actual);
}

}  // namespace

std::string Mismatch::describe() const {
  return "at " + (pointer.empty() ? std::string("(root)") : pointer) + ": expected " + expected + ", got " + actual;
}

std::optional<Mismatch> match(const Json& pattern, const Json& actual) { return match_at(pattern, &actual, ""); }

// --- Authoring checks -------------------------------------------------------------------------

const std::vector<std::string>& matcher_shorthands() {
  static const std::vector<std::string> v = {"$any",     "$present", "$absent", "$string", "$number", "$integer", "$boolean",
                                             "$object",  "$array",   "$null",   "$uuid",   "$iso8601", "$nonempty"};
  return v;
}

const std::vector<std::string>& matcher_operators() {
  // {"$any": x} also matches anything, but "$any" is the documented spelling: lint suggests it.
  static const std::vector<std::string> v = {"$type",    "$regex",   "$uuid",    "$iso8601", "$absent",   "$one_of",
                                             "$not",     "$exact",   "$contains", "$ordered", "$len",      "$min_len",
                                             "$max_len", "$min",     "$max",     "$includes", "$starts_with"};
  return v;
}

namespace {

bool is_one_of(const std::string& s, const std::vector<std::string>& names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A string the variables supply at run time ("${n}"): its type is not known here.
bool is_placeholder(const Json& v) { return v.is_string() && v.get_ref<const std::string&>().find("${") != std::string::npos; }

// "$word": what the matcher would read as a shorthand if it knew the word.
bool looks_like_shorthand(const std::string& s) {
  if (s.size() < 2 || s[0] != '$') return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[1])) || s[1] == '_')) return false;
  return std::all_of(s.begin() + 1, s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool is_operator_key(const std::string& k) { return !k.empty() && k[0] == '$' && !k.starts_with("${"); }

void check_at(const Json& p, const std::string& ptr, std::vector<PatternProblem>& out);

void check_operand(const std::string& op, const Json& arg, const std::string& ptr, std::vector<PatternProblem>& out) {
  auto problem = [&](std::string message) { out.push_back({ptr, std::move(message)}); };
  if (is_placeholder(arg) && op != "$regex" && op != "$includes" && op != "$starts_with") return;
  if (op == "$type") {
    static const std::vector<std::string> types = {"string", "number", "integer", "boolean", "object", "array", "null"};
    if (!arg.is_string() || !is_one_of(arg.get<std::string>(), types)) {
      problem("$type takes one of " + joined(types) + ", not " + show(arg) +
              (arg.is_string() ? closest_name_suffix(arg.get<std::string>(), types, "\"") : ""));
    }
  } else if (op == "$regex") {
    if (!arg.is_string()) return problem("$regex takes a string (an RE2 pattern), not " + show(arg));
    if (is_placeholder(arg)) return;
    re2::RE2::Options o;
    o.set_log_errors(false);
    re2::RE2 re(arg.get<std::string>(), o);
    if (!re.ok()) problem("$regex " + show(arg) + " does not compile with RE2: " + re.error());
  } else if (op == "$uuid" || op == "$iso8601") {
    if (arg != true) problem(op + " takes true (the operand is not read: " + op + " " + show(arg) + " still means " + op + "); write \"" + op + "\" or {\"$not\": \"" + op + "\"}");
  } else if (op == "$absent") {
    if (!arg.is_boolean()) problem("$absent takes true (absent) or false (present), not " + show(arg));
  } else if (op == "$one_of") {
    if (!arg.is_array() || arg.empty()) return problem("$one_of takes a non-empty array of patterns, not " + show(arg));
    for (std::size_t i = 0; i < arg.size(); ++i) check_at(arg[i], ptr + "/" + std::to_string(i), out);
  } else if (op == "$contains" || op == "$ordered") {
    if (!arg.is_array() || arg.empty()) return problem(op + " takes a non-empty array of patterns, not " + show(arg));
    for (std::size_t i = 0; i < arg.size(); ++i) check_at(arg[i], ptr + "/" + std::to_string(i), out);
  } else if (op == "$not") {
    check_at(arg, ptr, out);
  } else if (op == "$exact") {
    if (!arg.is_object()) return problem("$exact takes an object pattern (the only members allowed), not " + show(arg));
    for (const auto& [k, v] : arg.items()) check_at(v, ptr + "/" + seg(k), out);
  } else if (op == "$len" || op == "$min_len" || op == "$max_len") {
    const bool ok = arg.is_number_unsigned() || (arg.is_number_integer() && arg.get<std::int64_t>() >= 0);
    if (!ok) problem(op + " takes a non-negative integer (a length), not " + show(arg));
  } else if (op == "$min" || op == "$max") {
    if (!arg.is_number()) problem(op + " takes a number, not " + show(arg));
  } else if (op == "$includes" || op == "$starts_with") {
    if (!arg.is_string()) problem(op + " takes a string, not " + show(arg));
  }
}

void check_at(const Json& p, const std::string& ptr, std::vector<PatternProblem>& out) {
  if (p.is_string()) {
    const auto& s = p.get_ref<const std::string&>();
    if (!looks_like_shorthand(s) || is_one_of(s, matcher_shorthands())) return;
    std::string message = "unknown matcher \"" + s + "\"";
    if (is_one_of(s, matcher_operators())) {
      message += ": " + s + " is an operator, write {\"" + s + "\": operand}";
    } else if (auto near = closest_name(s, matcher_shorthands())) {
      message += " (did you mean \"" + *near + "\"?)";
    } else {
      message += ": the shorthands are " + joined(matcher_shorthands());
    }
    out.push_back({ptr, message + "; a literal string starting with $ is matched with {\"$regex\": \"^\\\\" + s + "$\"}"});
    return;
  }
  if (p.is_array()) {
    for (std::size_t i = 0; i < p.size(); ++i) check_at(p[i], ptr + "/" + std::to_string(i), out);
    return;
  }
  if (!p.is_object()) return;
  const bool operators = !p.empty() && std::all_of(p.items().begin(), p.items().end(), [](const auto& kv) { return is_operator_key(kv.key()); });
  for (const auto& [k, v] : p.items()) {
    const std::string at = ptr + "/" + seg(k);
    if (!operators) {
      check_at(v, at, out);
      continue;
    }
    if (!is_one_of(k, matcher_operators())) {
      std::string message = "unknown matcher operator \"" + k + "\"";
      if (is_one_of(k, matcher_shorthands())) {
        message += ": " + k + " is a shorthand, write the string \"" + k + "\" instead of an object";
      } else if (auto near = closest_name(k, matcher_operators())) {
        message += " (did you mean \"" + *near + "\"?)";
      } else {
        message += ": the operators are " + joined(matcher_operators());
      }
      out.push_back({at, message});
      continue;
    }
    check_operand(k, v, at, out);
  }
}

}  // namespace

std::vector<PatternProblem> check_pattern(const Json& pattern) {
  std::vector<PatternProblem> out;
  check_at(pattern, "", out);
  return out;
}

std::optional<Mismatch> match_member(const Json& pattern, const Json* actual, const std::string& pointer) {
  return match_at(pattern, actual, pointer);
}

}  // namespace ac::engine
