// Field access for the typed codecs: JSON object -> C++ struct, and back.
//
// The five codecs convert a message only after its schema has validated it, so in practice
// nothing here fails; but the typed model must never throw or crash on a schema that is looser
// than the model (or on a caller who skips validation). A Fields reader therefore records the
// first surprise in a Problem (pointer + message) and returns neutral values from then on; the
// codec turns the Problem into a CodecError.
//
// Readers *move* values out of the object they read (decode owns the parsed JSON, and moving
// avoids copying every string twice); rest() collects the members nobody asked for, so unknown
// extras survive decode -> encode.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ac::proto::typed {

using Json = nlohmann::json;

struct Problem {
  bool failed = false;
  std::string pointer;  // JSON Pointer of the member the model could not take
  std::string message;
};

class Fields {
 public:
  // `object` is read destructively and must outlive the reader. `pointer` is its JSON Pointer.
  Fields(Json& object, std::string pointer, Problem& problem);

  std::string string(std::string_view key);
  std::optional<std::string> optional_string(std::string_view key);
  // A required member whose value is a string or null (null -> nullopt).
  std::optional<std::string> nullable_string(std::string_view key);
  bool boolean(std::string_view key);
  std::optional<bool> optional_boolean(std::string_view key);
  std::int64_t integer(std::string_view key);
  std::optional<std::int64_t> optional_integer(std::string_view key);
  std::uint64_t unsigned_integer(std::string_view key);
  std::optional<std::uint64_t> optional_unsigned(std::string_view key);
  // Any JSON value (present but possibly null), kept as JSON.
  Json any(std::string_view key);
  std::optional<Json> optional_any(std::string_view key);
  // A JSON object kept as JSON (schemas, input_data, metadata, ...).
  Json object(std::string_view key);
  std::optional<Json> optional_object(std::string_view key);
  std::vector<std::string> strings(std::string_view key);
  std::optional<std::vector<std::string>> optional_strings(std::string_view key);

  // A nested object read by `read(Fields&) -> T`.
  template <typename F>
  auto nested(std::string_view key, F&& read) -> decltype(read(std::declval<Fields&>()));
  template <typename F>
  auto optional_nested(std::string_view key, F&& read) -> std::optional<decltype(read(std::declval<Fields&>()))>;
  // An array of objects, each read by `read(Fields&) -> T`.
  template <typename F>
  auto list(std::string_view key, F&& read) -> std::vector<decltype(read(std::declval<Fields&>()))>;
  template <typename F>
  auto optional_list(std::string_view key, F&& read) -> std::optional<std::vector<decltype(read(std::declval<Fields&>()))>>;

  // The members no getter asked for, as an object (empty object when none).
  Json rest();
  // Same, added to `extra` (an object): allocates nothing when there are none.
  void rest_into(Json& extra);

  const std::string& pointer() const { return pointer_; }
  bool failed() const { return problem_.failed; }
  Problem& problem() { return problem_; }

  // Reports a problem at `pointer` (first problem wins).
  static void report(Problem& problem, std::string pointer, std::string message);

 private:
  // The member, or nullptr (reporting a problem when `required`). Marks it as consumed.
  Json* take(std::string_view key, bool required);
  std::string child_pointer(std::string_view key) const;
  void wrong_type(std::string_view key, const char* expected);

  bool is_consumed(std::string_view key) const;

  Json* object_;
  std::string pointer_;
  Problem& problem_;
  // The keys asked for (string literals of the codecs). Inline for the usual few, so that reading
  // a message does not allocate for bookkeeping.
  std::array<std::string_view, 16> consumed_{};
  std::size_t consumed_count_ = 0;
  std::vector<std::string_view> consumed_overflow_;
};

// ---- writing ---------------------------------------------------------------------------------

template <typename T>
void put(Json& out, const char* key, const T& value) {
  out[key] = value;
}
template <typename T>
void put(Json& out, const char* key, const std::optional<T>& value) {
  if (value) out[key] = *value;
}
// A required member that may be null.
void put_nullable(Json& out, const char* key, const std::optional<std::string>& value);
// Adds the members of `extra` that `out` does not have (modelled members win).
void merge_extra(Json& out, const Json& extra);

// ---- template definitions -----------------------------------------------------------------------

template <typename F>
auto Fields::nested(std::string_view key, F&& read) -> decltype(read(std::declval<Fields&>())) {
  using T = decltype(read(std::declval<Fields&>()));
  Json* v = take(key, true);
  if (v == nullptr) return T{};
  Fields inner(*v, child_pointer(key), problem_);
  return read(inner);
}

template <typename F>
auto Fields::optional_nested(std::string_view key, F&& read) -> std::optional<decltype(read(std::declval<Fields&>()))> {
  Json* v = take(key, false);
  if (v == nullptr) return std::nullopt;
  Fields inner(*v, child_pointer(key), problem_);
  return read(inner);
}

template <typename F>
auto Fields::list(std::string_view key, F&& read) -> std::vector<decltype(read(std::declval<Fields&>()))> {
  using T = decltype(read(std::declval<Fields&>()));
  std::vector<T> out;
  Json* v = take(key, true);
  if (v == nullptr) return out;
  if (!v->is_array()) {
    wrong_type(key, "an array");
    return out;
  }
  const std::string base = child_pointer(key);
  out.reserve(v->size());
  for (std::size_t i = 0; i < v->size() && !problem_.failed; ++i) {
    Fields inner((*v)[i], base + "/" + std::to_string(i), problem_);
    out.push_back(read(inner));
  }
  return out;
}

template <typename F>
auto Fields::optional_list(std::string_view key, F&& read)
    -> std::optional<std::vector<decltype(read(std::declval<Fields&>()))>> {
  if (object_->is_object() && object_->find(key) == object_->end()) return std::nullopt;
  return list(key, std::forward<F>(read));
}

}  // namespace ac::proto::typed
