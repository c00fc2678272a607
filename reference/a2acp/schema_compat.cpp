// Structural schema compatibility (see schema_compat.hpp).
#include "reference/a2acp/schema_compat.hpp"

#include <set>

namespace ac::ref::a2acp {
namespace {

using Json = nlohmann::json;
constexpr int kMaxDepth = 16;

// The declared types of a schema; empty = unconstrained.
std::set<std::string> types_of(const Json& schema) {
  std::set<std::string> out;
  if (!schema.is_object()) return out;
  auto it = schema.find("type");
  if (it == schema.end()) return out;
  if (it->is_string()) out.insert(it->get<std::string>());
  if (it->is_array()) {
    for (const auto& t : *it) {
      if (t.is_string()) out.insert(t.get<std::string>());
    }
  }
  return out;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& t : s) out += (out.empty() ? "" : "|") + t;
  return out;
}

bool type_allowed(const std::string& t, const std::set<std::string>& allowed) {
  return allowed.count(t) != 0 || (t == "integer" && allowed.count("number") != 0);
}

const Json* member(const Json& schema, const char* key) {
  if (!schema.is_object()) return nullptr;
  auto it = schema.find(key);
  return it == schema.end() ? nullptr : &*it;
}

bool in_required(const Json& schema, const std::string& name) {
  const Json* req = member(schema, "required");
  if (req == nullptr || !req->is_array()) return false;
  for (const auto& r : *req) {
    if (r.is_string() && r.get_ref<const std::string&>() == name) return true;
  }
  return false;
}

bool declares(const Json& schema, const std::string& name) {
  const Json* props = member(schema, "properties");
  return (props != nullptr && props->is_object() && props->contains(name)) || in_required(schema, name);
}

std::string escape(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<Incompatibility> check(const Json& provided, const Json& expected, const std::string& at, int depth) {
  if (depth > kMaxDepth) return std::nullopt;
  const auto pt = types_of(provided), et = types_of(expected);
  if (!pt.empty() && !et.empty()) {
    for (const auto& t : pt) {
      if (!type_allowed(t, et)) return Incompatibility{at.empty() ? "/" : at, "type " + join(pt) + " is not accepted where " + join(et) + " is expected"};
    }
  }
  if (!provided.is_object() || !expected.is_object()) return std::nullopt;

  if (const Json* req = member(expected, "required"); req != nullptr && req->is_array()) {
    for (const auto& r : *req) {
      if (!r.is_string()) continue;
      const std::string& name = r.get_ref<const std::string&>();
      if (!declares(provided, name)) {
        return Incompatibility{at + "/properties/" + escape(name), "property \"" + name + "\" is required by the target but not provided by the source"};
      }
    }
  }
  const Json* pprops = member(provided, "properties");
  const Json* eprops = member(expected, "properties");
  const Json* additional = member(expected, "additionalProperties");
  if (pprops == nullptr || !pprops->is_object()) return std::nullopt;
  for (const auto& [name, sub] : pprops->items()) {
    const bool known = eprops != nullptr && eprops->is_object() && eprops->contains(name);
    if (!known) {
      if (additional != nullptr && additional->is_boolean() && !additional->get<bool>()) {
        return Incompatibility{at + "/properties/" + escape(name), "property \"" + name + "\" is sent by the source but not allowed by the target"};
      }
      if (additional != nullptr && additional->is_object()) {
        if (auto bad = check(sub, *additional, at + "/properties/" + escape(name), depth + 1)) return bad;
      }
      continue;
    }
    if (auto bad = check(sub, eprops->at(name), at + "/properties/" + escape(name), depth + 1)) return bad;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Incompatibility> check_compatible(const Json& provided, const Json& expected) {
  return check(provided, expected, "", 0);
}

Json type_summary(const Json& schema) {
  Json out = Json::object();
  const Json* props = member(schema, "properties");
  if (props != nullptr && props->is_object()) {
    for (const auto& [name, sub] : props->items()) {
      const auto t = types_of(sub);
      out[name] = t.empty() ? "any" : join(t);
    }
  }
  if (const Json* req = member(schema, "required"); req != nullptr && req->is_array()) {
    for (const auto& r : *req) {
      if (r.is_string() && !out.contains(r.get<std::string>())) out[r.get<std::string>()] = "any";
    }
  }
  return out;
}

}  // namespace ac::ref::a2acp
