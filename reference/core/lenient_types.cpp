// See lenient_types.hpp: what a lax implementation does with a wrongly typed member.
#include "reference/core/lenient_types.hpp"

#include <charconv>
#include <string>
#include <vector>

namespace ac::ref {
namespace {

using Json = nlohmann::json;

// The readings a lax implementation tries, most specific first.
std::vector<Json> readings(const Json& v) {
  std::vector<Json> out;
  if (v.is_array() && !v.empty()) out.push_back(v.front());  // ["x"] -> "x"
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "true" || s == "false") out.emplace_back(s == "true");  // "false" -> false
    long long n = 0;
    if (!s.empty() && std::from_chars(s.data(), s.data() + s.size(), n).ptr == s.data() + s.size()) out.emplace_back(n);  // "7" -> 7
    out.push_back(Json::array({v}));  // "a" -> ["a"]
  }
  if (v.is_number_integer()) out.emplace_back(std::to_string(v.get<long long>()));  // 7 -> "7"
  if (v.is_number_float()) out.emplace_back(static_cast<long long>(v.get<double>()));  // 1.5 -> 1
  if (v.is_boolean()) out.emplace_back(v.get<bool>() ? "true" : "false");  // true -> "true"
  return out;
}

bool fails_at(const proto::Profile& profile, const Json& message, const std::string& pointer) {
  for (const auto& e : profile.diagnose(message)) {
    if (e.pointer == pointer) return true;
  }
  return false;
}

}  // namespace

std::optional<Json> coerce_wrong_types(const proto::Profile& profile, Json message) {
  for (int round = 0; round < 8; ++round) {  // one member per round; messages have few
    const auto errors = profile.diagnose(message);
    if (errors.empty()) return message;
    const proto::CodecError* wrong = nullptr;
    for (const auto& e : errors) {
      if (e.rule == "type" && !e.pointer.empty()) {
        wrong = &e;
        break;
      }
    }
    if (wrong == nullptr) return std::nullopt;
    const Json::json_pointer at(wrong->pointer);
    if (!message.contains(at)) return std::nullopt;
    bool fixed = false;
    for (auto& candidate : readings(message.at(at))) {
      Json attempt = message;
      attempt[at] = std::move(candidate);
      if (!fails_at(profile, attempt, wrong->pointer)) {
        message = std::move(attempt);
        fixed = true;
        break;
      }
    }
    if (!fixed) return std::nullopt;
  }
  return std::nullopt;
}

std::string_view coerce_wrong_types_in_text(const proto::Profile& profile, std::string_view frame,
                                            const json::ReadLimits& limits, std::string& storage) {
  auto parsed = json::parse_strict(frame, limits);
  if (!parsed || !parsed->is_object()) return frame;
  auto lax = coerce_wrong_types(profile, std::move(*parsed));
  if (!lax) return frame;
  storage = lax->dump();
  return storage;
}

}  // namespace ac::ref
