#include "harness/engine/matcher.hpp"

#include <re2/re2.h>

#include "harness/schema/schema_store.hpp"

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

std::optional<Mismatch> match_member(const Json& pattern, const Json* actual, const std::string& pointer) {
  return match_at(pattern, actual, pointer);
}

}  // namespace ac::engine
