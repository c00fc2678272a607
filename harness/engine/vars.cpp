#include "harness/engine/vars.hpp"

#include "harness/protocols/typed/stamp.hpp"

namespace ac::engine {

Vars::Vars(const Vars& other) {
  std::lock_guard lock(other.mutex_);
  values_ = other.values_;
}

Vars& Vars::operator=(const Vars& other) {
  if (this != &other) {
    std::scoped_lock lock(mutex_, other.mutex_);
    values_ = other.values_;
  }
  return *this;
}

void Vars::set(const std::string& name, Json value) {
  std::lock_guard lock(mutex_);
  values_[name] = std::move(value);
}

bool Vars::has(const std::string& name) const {
  std::lock_guard lock(mutex_);
  return values_.count(name) != 0;
}

Expected<Json, std::string> Vars::get(const std::string& name) const {
  if (name == "uuid") return Json(proto::typed::new_uuid_v4());
  if (name == "now") return Json(proto::typed::utc_now());
  std::lock_guard lock(mutex_);
  auto it = values_.find(name);
  if (it == values_.end()) return unexpected("unknown variable ${" + name + "}");
  return it->second;
}

Expected<std::string, std::string> Vars::substitute_string(const std::string& text) const {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "${") == 0) {
      const auto end = text.find('}', i + 2);
      if (end == std::string::npos) return unexpected("unterminated ${ in \"" + text + "\"");
      auto value = get(text.substr(i + 2, end - i - 2));
      if (!value) return unexpected(value.error());
      out += value->is_string() ? value->get<std::string>() : value->dump();
      i = end + 1;
      continue;
    }
    out += text[i++];
  }
  return out;
}

Expected<Json, std::string> Vars::substitute(const Json& templ) const {
  if (templ.is_string()) {
    const auto& s = templ.get_ref<const std::string&>();
    // A whole-string reference keeps the variable's type.
    if (s.size() > 3 && s.starts_with("${") && s.back() == '}' && s.find('}') == s.size() - 1) {
      return get(s.substr(2, s.size() - 3));
    }
    if (s.find("${") == std::string::npos) return templ;
    auto r = substitute_string(s);
    if (!r) return unexpected(r.error());
    return Json(std::move(*r));
  }
  if (templ.is_array()) {
    Json out = Json::array();
    for (const auto& e : templ) {
      auto r = substitute(e);
      if (!r) return r;
      out.push_back(std::move(*r));
    }
    return out;
  }
  if (templ.is_object()) {
    Json out = Json::object();
    for (const auto& [k, v] : templ.items()) {
      auto key = k.find("${") == std::string::npos ? Expected<std::string, std::string>(k) : substitute_string(k);
      if (!key) return unexpected(key.error());
      auto r = substitute(v);
      if (!r) return r;
      out[*key] = std::move(*r);
    }
    return out;
  }
  return templ;
}

}  // namespace ac::engine
