// The demo actions of the reference agent (see actions.hpp).
#include "reference/agentprotocol/actions.hpp"

#include <cmath>

namespace ac::ref::agentprotocol {
namespace {

ActionOutcome invalid(std::string pointer, std::string message) {
  ActionOutcome o;
  o.ok = false;
  o.error_code = "INVALID_MESSAGE";
  o.error_message = std::move(message);
  o.details = {{"pointer", std::move(pointer)}, {"rule", "params"}};
  return o;
}

// The code points of valid UTF-8 (the strict reader guarantees it), in reverse order.
std::string reverse_utf8(const std::string& s) {
  std::vector<std::string_view> points;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = 1;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0xF0) n = 4;
    else if (c >= 0xE0) n = 3;
    else if (c >= 0xC0) n = 2;
    n = std::min(n, s.size() - i);
    points.emplace_back(s.data() + i, n);
    i += n;
  }
  std::string out;
  out.reserve(s.size());
  for (auto it = points.rbegin(); it != points.rend(); ++it) out.append(*it);
  return out;
}

}  // namespace

const std::vector<std::string>& action_names() {
  static const std::vector<std::string> names = {"echo", "reverse", "sum", "sleep", "fail"};
  return names;
}

std::vector<std::string> capability_uris() {
  std::vector<std::string> out = {"agentprotocol:core"};
  for (const auto& n : action_names()) out.push_back(std::string(kCapabilityScheme) + n);
  return out;
}

std::optional<std::string> normalize_action(std::string_view action) {
  if (action.starts_with(kCapabilityScheme)) action.remove_prefix(kCapabilityScheme.size());
  for (const auto& n : action_names()) {
    if (n == action) return n;
  }
  return std::nullopt;
}

ActionOutcome run_action(std::string_view requested, const std::optional<Json>& params, const ActionLimits& limits) {
  const auto action = normalize_action(requested);
  if (!action) {
    ActionOutcome o;
    o.supported = false;
    return o;
  }
  const Json p = params && params->is_object() ? *params : Json::object();
  ActionOutcome o;
  if (*action == "echo") {
    o.result = p;
  } else if (*action == "reverse") {
    const auto text = p.find("text");
    if (text == p.end() || !text->is_string()) return invalid("/payload/params/text", "reverse needs params.text, a string");
    const auto& s = text->get_ref<const std::string&>();
    if (s.size() > limits.max_text_bytes) {
      return invalid("/payload/params/text", "params.text is longer than " + std::to_string(limits.max_text_bytes) + " bytes");
    }
    o.result = {{"text", reverse_utf8(s)}};
  } else if (*action == "sum") {
    const auto numbers = p.find("numbers");
    if (numbers == p.end() || !numbers->is_array()) return invalid("/payload/params/numbers", "sum needs params.numbers, an array of numbers");
    if (numbers->size() > limits.max_numbers) {
      return invalid("/payload/params/numbers", "at most " + std::to_string(limits.max_numbers) + " numbers");
    }
    // Integers stay exact while they fit; a sum with any fraction is a double.
    bool integral = true;
    long double total = 0;
    std::int64_t exact = 0;
    for (std::size_t i = 0; i < numbers->size(); ++i) {
      const Json& n = (*numbers)[i];
      if (!n.is_number()) return invalid("/payload/params/numbers/" + std::to_string(i), "every element of params.numbers is a number");
      if (n.is_number_integer() && integral) {
        const std::int64_t v = n.is_number_unsigned() && n.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)
                                   ? INT64_MAX
                                   : n.get<std::int64_t>();
        if (__builtin_add_overflow(exact, v, &exact)) integral = false;
      } else {
        integral = false;
      }
      total += n.get<long double>();
    }
    if (!std::isfinite(static_cast<double>(total))) return invalid("/payload/params/numbers", "the sum is not a finite number");
    o.result = {{"sum", integral ? Json(exact) : Json(static_cast<double>(total))}};
  } else if (*action == "sleep") {
    const auto ms = p.find("ms");
    if (ms == p.end() || !ms->is_number_integer() || ms->get<std::int64_t>() < 0 ||
        ms->get<std::int64_t>() > limits.max_sleep.count()) {
      return invalid("/payload/params/ms", "sleep needs params.ms, an integer from 0 to " + std::to_string(limits.max_sleep.count()));
    }
    o.delay = std::chrono::milliseconds(ms->get<std::int64_t>());
    o.result = {{"slept_ms", ms->get<std::int64_t>()}};
  } else if (*action == "fail") {
    o.ok = false;
    o.error_code = "INTERNAL_ERROR";
    o.error_message = "the fail action failed, as it always does";
    o.details = {{"action", "fail"}};
  }
  return o;
}

}  // namespace ac::ref::agentprotocol
