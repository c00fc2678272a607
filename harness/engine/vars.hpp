// Case variables and template substitution. In any string of a step, `${name}` is replaced:
// a string that is exactly "${name}" becomes the variable's JSON value (any type); inside a
// longer string the value is interpolated (strings as-is, other values as compact JSON).
// Names are dotted ("a.id", "a.token", "session"); `$${` escapes a literal "${".
// Dynamic names: ${uuid} (a fresh UUIDv4 each time), ${now} (RFC 3339 UTC).
// An unknown name is an error (a broken case is a harness error, not a target failure).
#pragma once

#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/util/expected.hpp"

namespace ac::engine {

using Json = nlohmann::json;

class Vars {
 public:
  Vars() = default;
  Vars(const Vars& other);
  Vars& operator=(const Vars& other);

  void set(const std::string& name, Json value);
  bool has(const std::string& name) const;
  Expected<Json, std::string> get(const std::string& name) const;

  // Substitutes every ${...} in the strings (and object keys) of a template.
  Expected<Json, std::string> substitute(const Json& templ) const;
  Expected<std::string, std::string> substitute_string(const std::string& text) const;

 private:
  mutable std::mutex mutex_;  // parallel branches of one case share the variables
  std::map<std::string, Json> values_;
};

}  // namespace ac::engine
