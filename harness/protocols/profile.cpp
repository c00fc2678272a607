#include "harness/protocols/profile.hpp"

#include <algorithm>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "harness/util/data_dir.hpp"

namespace ac::proto {
namespace {

const Json* at_pointer(const Json& value, const std::string& pointer) {
  try {
    const Json::json_pointer p(pointer);
    if (!value.contains(p)) return nullptr;
    return &value.at(p);
  } catch (const std::exception&) {
    return nullptr;
  }
}

std::string string_or(const Json& obj, const char* key, std::string fallback = {}) {
  if (auto it = obj.find(key); it != obj.end() && it->is_string()) return it->get<std::string>();
  return fallback;
}

Expected<Json, std::string> read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return unexpected("cannot open " + path.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto doc = json::parse_strict(buffer.str());
  if (!doc) return unexpected(path.string() + ": " + doc.error().describe());
  return std::move(*doc);
}

Expected<MessageSpec, std::string> spec_from(const std::string& protocol, const std::string& key, const Json& entry,
                                             const schema::SchemaStore& store) {
  if (!entry.is_object()) return unexpected(protocol + "/index.json: entry " + key + " must be an object");
  MessageSpec spec;
  spec.key = key;
  spec.schema = protocol + "/" + string_or(entry, "schema");
  spec.section = string_or(entry, "section");
  spec.direction = string_or(entry, "direction");
  spec.compiled = store.find(spec.schema);
  if (spec.compiled == nullptr) return unexpected(protocol + "/index.json: " + key + ": no schema " + spec.schema);
  return spec;
}

}  // namespace

std::optional<std::string> Profile::key_of(const Json& message) const {
  std::string key;
  std::optional<std::string> best;
  for (const auto& pointer : discriminator_) {
    const Json* v = at_pointer(message, pointer);
    if (v == nullptr || !v->is_string()) break;
    if (!key.empty()) key += '.';
    key += v->get_ref<const std::string&>();
    if (messages_.count(key) != 0) best = key;
  }
  if (best) return best;
  // The first discriminator value alone, even when unknown, so the caller can name it.
  if (const Json* v = discriminator_.empty() ? nullptr : at_pointer(message, discriminator_.front()); v && v->is_string()) {
    return v->get<std::string>();
  }
  return std::nullopt;
}

const MessageSpec* Profile::message(std::string_view key) const {
  auto it = messages_.find(key);
  return it == messages_.end() ? nullptr : &it->second;
}

const MessageSpec* Profile::document(std::string_view name) const {
  auto it = documents_.find(name);
  return it == documents_.end() ? nullptr : &it->second;
}

std::string Profile::encode(const Json& message) {
  return message.dump(-1, ' ', false, Json::error_handler_t::strict);
}

CodecError Profile::make_error(std::string code, std::string pointer, std::string rule, std::string section,
                               std::string message) const {
  CodecError e;
  e.code = std::move(code);
  e.pointer = std::move(pointer);
  e.rule = std::move(rule);
  e.section = section.empty() ? spec_file_ : spec_file_ + " " + section;
  e.message = std::move(message);
  return e;
}

std::string Profile::code_for(const schema::Violation& v) const {
  for (const auto& [prefix, code] : code_by_pointer_) {
    if (v.pointer == prefix || v.pointer.starts_with(prefix + "/")) return code;
  }
  if (auto it = code_by_rule_.find(v.rule); it != code_by_rule_.end()) return it->second;
  return code_default_;
}

std::string Profile::section_for(const MessageSpec* spec, const std::string& pointer) const {
  if (envelope_ && !payload_pointer_.empty() && !(pointer == payload_pointer_ || pointer.starts_with(payload_pointer_ + "/"))) {
    return envelope_->section;
  }
  return spec ? spec->section : std::string();
}

// With several discriminators (Chopsticks ["/type", "/event"]) the first values may name a
// family of messages ("event": "event.released", "event.add") that no message key matches on
// its own. The problem is then the next discriminator member, missing, mistyped or unknown, and
// the error must point there rather than call a known "type" unknown.
std::optional<CodecError> Profile::subtype_error(const Json& message) const {
  auto family_of = [this](const std::string& prefix) -> const MessageSpec* {
    auto it = messages_.lower_bound(prefix + ".");
    return it != messages_.end() && it->first.starts_with(prefix + ".") ? &it->second : nullptr;
  };
  std::string prefix;
  for (std::size_t i = 0; i < discriminator_.size(); ++i) {
    const std::string& pointer = discriminator_[i];
    const Json* v = at_pointer(message, pointer);
    const MessageSpec* family = i > 0 ? family_of(prefix) : nullptr;
    if (v == nullptr || !v->is_string()) {
      if (family == nullptr) return std::nullopt;
      if (v == nullptr) {
        return make_error(code_missing_discriminator_, pointer, "required", family->section,
                          "a \"" + prefix + "\" message needs a " + pointer + " member");
      }
      return make_error(code_default_, pointer, "type", family->section, pointer + " must be a string");
    }
    std::string next = i == 0 ? v->get<std::string>() : prefix + "." + v->get<std::string>();
    if (family != nullptr && messages_.count(next) == 0 && family_of(next) == nullptr) {
      return make_error(code_unknown_type_, pointer, "enum", family->section,
                        "unknown " + pointer + " \"" + v->get<std::string>() + "\" for a \"" + prefix + "\" message");
    }
    prefix = std::move(next);
  }
  return std::nullopt;
}

Expected<Decoded, CodecError> Profile::decode(std::string_view bytes, const json::ReadLimits& limits) const {
  auto parsed = json::parse_strict(bytes, limits);
  if (!parsed) {
    const auto& je = parsed.error();
    CodecError e = make_error(code_malformed_json_, je.pointer, "json." + std::string(json::rule_name(je.rule)), "",
                              je.message);
    e.section = "RFC 8259 (JSON), strict reading";
    e.offset = je.offset;
    return unexpected(std::move(e));
  }
  return check(std::move(*parsed));
}

Expected<Decoded, CodecError> Profile::check(Json message) const {
  std::string message_id;
  if (!message_id_pointer_.empty()) {
    if (const Json* id = at_pointer(message, message_id_pointer_); id && id->is_string()) message_id = id->get<std::string>();
  }
  auto fail = [&](CodecError e) {
    e.message_id = message_id;
    return unexpected(std::move(e));
  };

  if (!message.is_object()) {
    return fail(make_error(code_not_object_, "", "type", envelope_ ? envelope_->section : "",
                           "a message must be a JSON object, got " + std::string(message.type_name())));
  }

  const auto key = key_of(message);
  const MessageSpec* spec = key ? this->message(*key) : nullptr;
  if (spec == nullptr) {
    // Envelope problems (a missing or mistyped field) are reported before an unknown type, so the
    // error names the real cause.
    if (envelope_) {
      auto violations = envelope_->compiled->validate(message, 1);
      if (!violations.empty()) {
        const auto& v = violations.front();
        return fail(make_error(code_for(v), v.pointer, v.rule, envelope_->section, v.message));
      }
    }
    if (auto e = subtype_error(message)) return fail(std::move(*e));
    const std::string& dp = discriminator_.empty() ? std::string() : discriminator_.front();
    if (!key) {
      const Json* d = at_pointer(message, dp);
      return fail(make_error(d == nullptr ? code_missing_discriminator_ : code_default_, dp, d == nullptr ? "required" : "type",
                             envelope_ ? envelope_->section : "",
                             d == nullptr ? "the message has no " + dp + " member" : dp + " must be a string"));
    }
    return fail(make_error(code_unknown_type_, dp, "enum", envelope_ ? envelope_->section : "",
                           "unknown message type \"" + *key + "\""));
  }

  auto violations = spec->compiled->validate(message, 1);
  if (!violations.empty()) {
    const auto& v = violations.front();
    return fail(make_error(code_for(v), v.pointer, v.rule, section_for(spec, v.pointer), v.message));
  }
  return Decoded{spec->key, std::move(message), spec};
}

std::vector<CodecError> Profile::diagnose(const Json& message, std::size_t max_errors) const {
  std::vector<CodecError> out;
  auto first = check(message);
  if (first) return out;
  const auto key = key_of(message);
  const MessageSpec* spec = key ? this->message(*key) : nullptr;
  if (spec == nullptr || max_errors <= 1) {
    out.push_back(std::move(first).error());
    return out;
  }
  for (auto& v : spec->compiled->validate(message, max_errors)) {
    CodecError e = make_error(code_for(v), v.pointer, v.rule, section_for(spec, v.pointer), v.message);
    e.message_id = first.error().message_id;
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<CodecError> Profile::check_document(std::string_view name, const Json& document) const {
  const MessageSpec* spec = this->document(name);
  if (spec == nullptr) {
    return make_error("INTERNAL", "", "document", "", "no document schema named " + std::string(name));
  }
  auto violations = spec->compiled->validate(document, 1);
  if (violations.empty()) return std::nullopt;
  const auto& v = violations.front();
  return make_error(code_for(v), v.pointer, v.rule, spec->section, v.message);
}

Expected<std::shared_ptr<const Catalog>, std::string> Catalog::load(const std::filesystem::path& schemas_root) {
  auto store = schema::SchemaStore::load_directory(schemas_root);
  if (!store) return unexpected(store.error());
  auto catalog = std::make_shared<Catalog>();
  catalog->store_ = *store;
  for (ProtocolId id : kAllProtocols) {
    const std::string proto(name(id));
    auto index = read_json_file(schemas_root / proto / "index.json");
    if (!index) return unexpected(index.error());
    const Json& ix = *index;
    Profile p;
    p.id_ = id;
    p.title_ = string_or(ix, "title");
    p.version_ = string_or(ix, "version");
    p.spec_file_ = string_or(ix, "spec");
    p.message_id_pointer_ = string_or(ix, "message_id");
    if (auto d = ix.find("discriminator"); d != ix.end() && d->is_array()) {
      for (const auto& s : *d) {
        if (s.is_string()) p.discriminator_.push_back(s.get<std::string>());
      }
    }
    if (p.discriminator_.empty()) return unexpected(proto + "/index.json: discriminator missing");
    if (auto m = ix.find("messages"); m != ix.end() && m->is_object()) {
      for (const auto& [key, entry] : m->items()) {
        auto spec = spec_from(proto, key, entry, **store);
        if (!spec) return unexpected(spec.error());
        p.messages_.emplace(key, std::move(*spec));
      }
    }
    if (auto m = ix.find("documents"); m != ix.end() && m->is_object()) {
      for (const auto& [key, entry] : m->items()) {
        auto spec = spec_from(proto, key, entry, **store);
        if (!spec) return unexpected(spec.error());
        p.documents_.emplace(key, std::move(*spec));
      }
    }
    if (auto e = ix.find("envelope"); e != ix.end() && e->is_object()) {
      auto spec = spec_from(proto, "envelope", *e, **store);
      if (!spec) return unexpected(spec.error());
      p.envelope_ = std::move(*spec);
      p.payload_pointer_ = string_or(*e, "payload");
    }
    const Json codes = ix.value("error_codes", Json::object());
    p.code_default_ = string_or(codes, "default", "INVALID_MESSAGE");
    p.code_malformed_json_ = string_or(codes, "malformed_json", p.code_default_);
    p.code_not_object_ = string_or(codes, "not_an_object", p.code_default_);
    p.code_missing_discriminator_ = string_or(codes, "missing_discriminator", p.code_default_);
    p.code_unknown_type_ = string_or(codes, "unknown_type", p.code_default_);
    if (auto r = codes.find("rules"); r != codes.end() && r->is_object()) {
      for (const auto& [rule, code] : r->items()) {
        if (code.is_string()) p.code_by_rule_.emplace(rule, code.get<std::string>());
      }
    }
    if (auto r = codes.find("pointers"); r != codes.end() && r->is_object()) {
      for (const auto& [ptr, code] : r->items()) {
        if (code.is_string()) p.code_by_pointer_.emplace_back(ptr, code.get<std::string>());
      }
      std::sort(p.code_by_pointer_.begin(), p.code_by_pointer_.end(),
                [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    }
    catalog->profiles_.push_back(std::move(p));
  }
  return std::shared_ptr<const Catalog>(std::move(catalog));
}

const Catalog& Catalog::builtin() {
  static const std::shared_ptr<const Catalog> catalog = [] {
    auto loaded = Catalog::load(data_dir() / "schemas");
    if (!loaded) throw std::runtime_error("cannot load the shipped schemas: " + loaded.error());
    return *loaded;
  }();
  return *catalog;
}

}  // namespace ac::proto
