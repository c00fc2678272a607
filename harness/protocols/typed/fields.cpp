#include "harness/protocols/typed/fields.hpp"

#include <algorithm>
#include <limits>

namespace ac::proto::typed {
namespace {

std::string escape_segment(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

}  // namespace

void Fields::report(Problem& problem, std::string pointer, std::string message) {
  if (problem.failed) return;
  problem.failed = true;
  problem.pointer = std::move(pointer);
  problem.message = std::move(message);
}

Fields::Fields(Json& object, std::string pointer, Problem& problem)
    : object_(&object), pointer_(std::move(pointer)), problem_(problem) {
  if (!object_->is_object()) {
    report(problem_, pointer_, std::string("expected an object, found ") + object_->type_name());
  }
}

std::string Fields::child_pointer(std::string_view key) const { return pointer_ + "/" + escape_segment(key); }

void Fields::wrong_type(std::string_view key, const char* expected) {
  report(problem_, child_pointer(key), std::string("expected ") + expected);
}

Json* Fields::take(std::string_view key, bool required) {
  if (problem_.failed || !object_->is_object()) return nullptr;
  if (consumed_count_ < consumed_.size()) {
    consumed_[consumed_count_++] = key;
  } else {
    consumed_overflow_.push_back(key);
  }
  auto it = object_->find(key);
  if (it == object_->end()) {
    if (required) report(problem_, child_pointer(key), "required member is missing");
    return nullptr;
  }
  return &*it;
}

std::string Fields::string(std::string_view key) {
  Json* v = take(key, true);
  if (v == nullptr) return {};
  if (!v->is_string()) {
    wrong_type(key, "a string");
    return {};
  }
  return std::move(v->get_ref<std::string&>());
}

std::optional<std::string> Fields::optional_string(std::string_view key) {
  Json* v = take(key, false);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    wrong_type(key, "a string");
    return std::nullopt;
  }
  return std::move(v->get_ref<std::string&>());
}

std::optional<std::string> Fields::nullable_string(std::string_view key) {
  Json* v = take(key, true);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_string()) {
    wrong_type(key, "a string or null");
    return std::nullopt;
  }
  return std::move(v->get_ref<std::string&>());
}

bool Fields::boolean(std::string_view key) {
  auto v = optional_boolean(key);
  if (!v && !problem_.failed) report(problem_, child_pointer(key), "required member is missing");
  return v.value_or(false);
}

std::optional<bool> Fields::optional_boolean(std::string_view key) {
  Json* v = take(key, false);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    wrong_type(key, "a boolean");
    return std::nullopt;
  }
  return v->get<bool>();
}

std::int64_t Fields::integer(std::string_view key) {
  auto v = optional_integer(key);
  if (!v && !problem_.failed) report(problem_, child_pointer(key), "required member is missing");
  return v.value_or(0);
}

std::optional<std::int64_t> Fields::optional_integer(std::string_view key) {
  Json* v = take(key, false);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_integer() && !v->is_number_unsigned()) return v->get<std::int64_t>();
  if (v->is_number_unsigned()) {
    const auto u = v->get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return static_cast<std::int64_t>(u);
    report(problem_, child_pointer(key), "integer does not fit in 64 signed bits");
    return std::nullopt;
  }
  wrong_type(key, "an integer");
  return std::nullopt;
}

std::uint64_t Fields::unsigned_integer(std::string_view key) {
  auto v = optional_unsigned(key);
  if (!v && !problem_.failed) report(problem_, child_pointer(key), "required member is missing");
  return v.value_or(0);
}

std::optional<std::uint64_t> Fields::optional_unsigned(std::string_view key) {
  Json* v = take(key, false);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_unsigned()) return v->get<std::uint64_t>();
  if (v->is_number_integer()) {
    const auto i = v->get<std::int64_t>();
    if (i >= 0) return static_cast<std::uint64_t>(i);
    report(problem_, child_pointer(key), "expected a non-negative integer");
    return std::nullopt;
  }
  wrong_type(key, "a non-negative integer");
  return std::nullopt;
}

Json Fields::any(std::string_view key) {
  Json* v = take(key, true);
  if (v == nullptr) return nullptr;
  return std::move(*v);
}

std::optional<Json> Fields::optional_any(std::string_view key) {
  Json* v = take(key, false);
  if (v == nullptr) return std::nullopt;
  return std::move(*v);
}

Json Fields::object(std::string_view key) {
  Json* v = take(key, true);
  if (v == nullptr) return Json::object();
  if (!v->is_object()) {
    wrong_type(key, "an object");
    return Json::object();
  }
  return std::move(*v);
}

std::optional<Json> Fields::optional_object(std::string_view key) {
  Json* v = take(key, false);
  if (v == nullptr) return std::nullopt;
  if (!v->is_object()) {
    wrong_type(key, "an object");
    return std::nullopt;
  }
  return std::move(*v);
}

std::vector<std::string> Fields::strings(std::string_view key) {
  auto v = optional_strings(key);
  if (!v && !problem_.failed) report(problem_, child_pointer(key), "required member is missing");
  return v ? std::move(*v) : std::vector<std::string>{};
}

std::optional<std::vector<std::string>> Fields::optional_strings(std::string_view key) {
  Json* v = take(key, false);
  if (v == nullptr) return std::nullopt;
  if (!v->is_array()) {
    wrong_type(key, "an array of strings");
    return std::nullopt;
  }
  std::vector<std::string> out;
  out.reserve(v->size());
  for (std::size_t i = 0; i < v->size(); ++i) {
    Json& item = (*v)[i];
    if (!item.is_string()) {
      report(problem_, child_pointer(key) + "/" + std::to_string(i), "expected a string");
      return std::nullopt;
    }
    out.push_back(std::move(item.get_ref<std::string&>()));
  }
  return out;
}

bool Fields::is_consumed(std::string_view key) const {
  const auto end = consumed_.begin() + static_cast<std::ptrdiff_t>(consumed_count_);
  return std::find(consumed_.begin(), end, key) != end ||
         std::find(consumed_overflow_.begin(), consumed_overflow_.end(), key) != consumed_overflow_.end();
}

Json Fields::rest() {
  Json out = Json::object();
  if (!object_->is_object()) return out;
  for (auto it = object_->begin(); it != object_->end(); ++it) {
    const std::string& k = it.key();
    if (!is_consumed(k)) out.emplace(k, std::move(it.value()));
  }
  return out;
}

void Fields::rest_into(Json& extra) {
  if (!object_->is_object()) return;
  for (auto it = object_->begin(); it != object_->end(); ++it) {
    const std::string& k = it.key();
    if (is_consumed(k)) continue;
    if (!extra.is_object()) extra = Json::object();
    extra[k] = std::move(it.value());
  }
}

void put_nullable(Json& out, const char* key, const std::optional<std::string>& value) {
  if (value) out[key] = *value;
  else out[key] = nullptr;
}

void merge_extra(Json& out, const Json& extra) {
  if (!extra.is_object()) return;
  for (auto it = extra.begin(); it != extra.end(); ++it) out.emplace(it.key(), it.value());
}

}  // namespace ac::proto::typed
