#include "harness/schema/schema_store.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include <re2/re2.h>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "harness/json/strict_reader.hpp"

// ---------------------------------------------------------------------------------------------
// Replacements for two valijson visitors. valijson is header-only and this is the only
// translation unit that instantiates ValidationVisitor<NlohmannJsonAdapter>, so these explicit
// specializations are the definitions every validation in the program uses.
// ---------------------------------------------------------------------------------------------
namespace {

// Compiled RE2 per pattern, per thread (RE2 objects are immutable once built; a per-thread
// cache avoids a lock on the hot path). Bounded so that peers sending ever-new patterns in
// capability schemas cannot grow it without limit.
const re2::RE2* cached_regex(const std::string& pattern) {
  thread_local std::unordered_map<std::string, std::unique_ptr<re2::RE2>> cache;
  auto it = cache.find(pattern);
  if (it != cache.end()) return it->second.get();
  if (cache.size() >= 512) cache.clear();
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_unique<re2::RE2>(pattern, options);
  if (!re->ok()) return nullptr;
  return cache.emplace(pattern, std::move(re)).first->second.get();
}

}  // namespace

namespace valijson {

template <>
bool ValidationVisitor<adapters::NlohmannJsonAdapter>::visit(const constraints::PatternConstraint& constraint) {
  if ((m_strictTypes && !m_target.isString()) || !m_target.maybeString()) return true;
  const std::string pattern(constraint.getPattern<std::string::allocator_type>());
  const re2::RE2* re = cached_regex(pattern);
  if (re == nullptr || !re2::RE2::PartialMatch(m_target.asString(), *re)) {
    if (m_results) {
      m_results->pushError(m_context, re == nullptr ? "Pattern '" + pattern + "' is not a supported regular expression."
                                                    : "Failed to match regex specified by 'pattern' constraint: " + pattern);
    }
    return false;
  }
  return true;
}

// valijson measures strings with strlen(), so an embedded NUL cut them short ("\u0000" counted
// as 0 characters, letting maxLength be bypassed). Count code points over the whole string.
namespace {
std::uint64_t code_points(const std::string& s) {
  std::uint64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}
}  // namespace

template <>
bool ValidationVisitor<adapters::NlohmannJsonAdapter>::visit(const constraints::MaxLengthConstraint& constraint) {
  if ((m_strictTypes && !m_target.isString()) || !m_target.maybeString()) return true;
  const std::uint64_t max = constraint.getMaxLength();
  if (code_points(m_target.asString()) <= max) return true;
  if (m_results) m_results->pushError(m_context, "String should be no more than " + std::to_string(max) + " characters in length.");
  return false;
}

template <>
bool ValidationVisitor<adapters::NlohmannJsonAdapter>::visit(const constraints::MinLengthConstraint& constraint) {
  if ((m_strictTypes && !m_target.isString()) || !m_target.maybeString()) return true;
  const std::uint64_t min = constraint.getMinLength();
  if (code_points(m_target.asString()) >= min) return true;
  if (m_results) m_results->pushError(m_context, "String should be no fewer than " + std::to_string(min) + " characters in length.");
  return false;
}

template <>
bool ValidationVisitor<adapters::NlohmannJsonAdapter>::visit(const constraints::FormatConstraint& constraint) {
  // `format` applies to strings only (draft-07 §7.1); other types pass.
  if (!m_target.isString()) return true;
  const std::string s = m_target.asString();
  const std::string& format = constraint.getFormat();
  bool ok = true;
  if (format == "uuid") ok = ac::schema::is_uuid(s);
  else if (format == "date-time") ok = ac::schema::is_date_time(s);
  else if (format == "date") ok = ac::schema::is_date(s);
  else if (format == "time") ok = ac::schema::is_time(s);
  if (!ok && m_results) m_results->pushError(m_context, "String is not a valid '" + format + "' (format).");
  return ok;
}

// `properties` / `additionalProperties`: the same verdicts and error texts as valijson's own
// visit(PropertiesConstraint), at a fraction of the cost (it dominated parse+validate profiles):
//   - when no results are collected (the fast path of ValijsonSchema::validate), children get an
//     empty context instead of a copy of the parent's plus "[name]": contexts only feed error
//     messages, and copying them cost a vector and string allocation per member;
//   - matched names go in a small vector instead of a std::set<std::string>;
//   - members left to an additionalProperties that accepts anything (valijson's empty subschema,
//     used when the keyword is absent or `true`) are not visited one by one;
//   - without results, the first failure ends the visit (valijson would only stop later).
template <>
bool ValidationVisitor<adapters::NlohmannJsonAdapter>::visit(const constraints::PropertiesConstraint& constraint) {
  if ((m_strictTypes && !m_target.isObject()) || !m_target.maybeObject()) return true;
  const bool collect = m_results != nullptr;
  const typename adapters::NlohmannJsonAdapter::Object object = m_target.asObject();
  auto child_context = [&](const std::string& name) {
    std::vector<std::string> context;
    if (collect) {
      context = m_context;
      context.push_back("[" + name + "]");
    }
    return context;
  };

  bool validated = true;
  std::vector<std::string> matched;
  constraint.applyToProperties([&](const auto& property_name, const Subschema* subschema) -> bool {
    const std::string name(property_name.c_str());
    const auto itr = object.find(name);
    if (itr == object.end()) return true;
    matched.push_back(name);
    ValidationVisitor child(itr->second, child_context(name), m_strictTypes, m_results, m_regexesCache);
    if (child.validateSchema(*subschema)) return true;
    if (m_results) {
      m_results->pushError(m_context, "Failed to validate against schema associated with property name '" + name + "'.");
    }
    validated = false;
    return collect;
  });
  if (!validated && !collect) return false;

  // patternProperties are refused when schemas are loaded (lint()); should one appear anyway,
  // valijson's own functor handles it.
  bool has_patterns = false;
  constraint.applyToPatternProperties([&](const auto&, const Subschema*) {
    has_patterns = true;
    return false;
  });
  if (has_patterns) {
    std::set<std::string> matched_set(matched.begin(), matched.end());
    constraint.applyToPatternProperties(ValidatePatternPropertySubschemas(
        object, m_context, true, false, true, m_strictTypes, m_results, &matched_set, &validated, m_regexesCache));
    matched.assign(matched_set.begin(), matched_set.end());
  }
  auto is_matched = [&matched](const std::string& name) {
    return std::find(matched.begin(), matched.end(), name) != matched.end();
  };

  const Subschema* additional = constraint.getAdditionalPropertiesSubschema();
  if (additional == nullptr) {  // additionalProperties: false
    if (matched.size() != m_target.getObjectSize()) {
      if (m_results) {
        std::string unwanted;
        for (const typename adapters::NlohmannJsonAdapter::ObjectMember m : object) {
          if (!is_matched(m.first)) {
            unwanted = m.first;
            break;
          }
        }
        m_results->pushError(m_context,
                             "Object contains a property that could not be validated using 'properties' or "
                             "'additionalProperties' constraints: '" + unwanted + "'.");
      }
      return false;
    }
    return validated;
  }
  bool accepts_anything = !additional->getAlwaysInvalid();
  Subschema::ApplyFunction any_constraint = [&accepts_anything](const constraints::Constraint&) {
    accepts_anything = false;
    return false;
  };
  additional->applyStrict(any_constraint);
  if (accepts_anything) return validated;

  for (const typename adapters::NlohmannJsonAdapter::ObjectMember m : object) {
    if (is_matched(m.first)) continue;
    ValidationVisitor child(m.second, child_context(m.first), m_strictTypes, m_results, m_regexesCache);
    if (!child.validateSchema(*additional)) {
      if (!collect) return false;
      m_results->pushError(m_context, "Failed to validate against additional properties schema");
      validated = false;
    }
  }
  return validated;
}

}  // namespace valijson

namespace ac::schema {
namespace {

using Adapter = valijson::adapters::NlohmannJsonAdapter;

// valijson context ["<root>", "[payload]", "[0]"] -> JSON Pointer "/payload/0".
std::string to_pointer(const std::vector<std::string>& context) {
  std::string out;
  for (std::size_t i = 1; i < context.size(); ++i) {
    std::string_view seg = context[i];
    if (seg.size() >= 2 && seg.front() == '[' && seg.back() == ']') seg = seg.substr(1, seg.size() - 2);
    out += '/';
    for (char c : seg) {
      if (c == '~') out += "~0";
      else if (c == '/') out += "~1";
      else out += c;
    }
  }
  return out;
}

std::string quoted_name(std::string_view description) {
  const auto first = description.find('\'');
  const auto last = description.rfind('\'');
  if (first == std::string_view::npos || last <= first) return {};
  return std::string(description.substr(first + 1, last - first - 1));
}

std::string escape_segment(std::string_view seg) {
  std::string out;
  for (char c : seg) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// Summary errors that valijson pushes for a parent after a child failed; they carry no
// information of their own when a more specific error exists.
bool is_summary(std::string_view d) {
  return d.starts_with("Failed to validate against schema associated with") ||
         d.starts_with("Failed to validate item #") || d.starts_with("Failed to validate against child schema") ||
         d.starts_with("Failed to validate against additional") ||
         d.starts_with("Failed to validate against any schemas allowed by anyOf") ||
         d.starts_with("Failed to validate against any child schemas allowed by oneOf") ||
         d.starts_with("Failed to validate against exactly one child schema") ||
         d.starts_with("Failed to validate against a conditional schema") ||
         d.starts_with("Failed to validate against dependent schema") ||
         d.starts_with("Cannot validate item #");
}

constexpr std::string_view kUnwantedProperty =
    "Object contains a property that could not be validated using 'properties' or 'additionalProperties' constraints: '";

Violation to_violation(const valijson::ValidationResults::Error& e) {
  Violation v;
  v.pointer = to_pointer(e.context);
  v.message = e.description;
  const std::string_view d = e.description;
  if (d.starts_with("Missing required property")) {
    v.rule = "required";
    v.pointer += "/" + escape_segment(quoted_name(d));
  } else if (d.starts_with(kUnwantedProperty) && d.ends_with("'.")) {
    // The message itself quotes 'properties', so the name is cut by the fixed prefix and suffix.
    v.rule = "additionalProperties";
    v.pointer += "/" + escape_segment(d.substr(kUnwantedProperty.size(), d.size() - kUnwantedProperty.size() - 2));
  } else if (d.starts_with("Value type not permitted")) {
    v.rule = "type";
  } else if (d.find("'pattern'") != std::string_view::npos || d.starts_with("Pattern '")) {
    v.rule = "pattern";
  } else if (d.find("(format)") != std::string_view::npos) {
    v.rule = "format";
  } else if (d.starts_with("Failed to match against any enum")) {
    v.rule = "enum";
  } else if (d.find("'const'") != std::string_view::npos) {
    v.rule = "const";
  } else if (d.starts_with("String should be no more")) {
    v.rule = "maxLength";
  } else if (d.starts_with("String should be no fewer")) {
    v.rule = "minLength";
  } else if (d.starts_with("Array should contain no more")) {
    v.rule = "maxItems";
  } else if (d.starts_with("Array should contain no fewer")) {
    v.rule = "minItems";
  } else if (d.starts_with("Object should have no more")) {
    v.rule = "maxProperties";
  } else if (d.starts_with("Object should have no fewer")) {
    v.rule = "minProperties";
  } else if (d.starts_with("Expected number less")) {
    v.rule = "maximum";
  } else if (d.starts_with("Expected number greater")) {
    v.rule = "minimum";
  } else if (d.find("multiple of") != std::string_view::npos) {
    v.rule = "multipleOf";
  } else if (d.find("uniqueness") != std::string_view::npos) {
    v.rule = "uniqueItems";
  } else if (d.find("'not'") != std::string_view::npos) {
    v.rule = "not";
  } else if (d.find("oneOf") != std::string_view::npos || d.find("exactly one") != std::string_view::npos) {
    v.rule = "oneOf";
  } else if (d.find("anyOf") != std::string_view::npos) {
    v.rule = "anyOf";
  } else if (d.find("conditional") != std::string_view::npos) {
    v.rule = "if-then-else";
  } else if (d.find("Missing dependency") != std::string_view::npos) {
    v.rule = "dependencies";
  } else {
    v.rule = "schema";
  }
  return v;
}

// valijson's nlohmann adapter reads every integer as int64_t, so an unsigned integer above
// 2^63-1 (which nlohmann keeps exactly) would be seen wrapped negative: 2^63 would fail
// `minimum: 0`. Such instances are validated as a copy where those integers saturate at
// INT64_MAX: still integers, still above every bound below 2^63.
bool has_huge_unsigned(const Json& v) {
  switch (v.type()) {
    case Json::value_t::number_unsigned:
      return v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    case Json::value_t::array:
      for (const auto& e : v) {
        if (has_huge_unsigned(e)) return true;
      }
      return false;
    case Json::value_t::object:
      for (const auto& [k, e] : v.items()) {
        if (has_huge_unsigned(e)) return true;
      }
      return false;
    default:
      return false;
  }
}

Json saturate(const Json& v) {
  if (v.is_number_unsigned() && has_huge_unsigned(v)) return Json(std::numeric_limits<std::int64_t>::max());
  if (v.is_array()) {
    Json out = Json::array();
    for (const auto& e : v) out.push_back(saturate(e));
    return out;
  }
  if (v.is_object()) {
    Json out = Json::object();
    for (const auto& [k, e] : v.items()) out[k] = saturate(e);
    return out;
  }
  return v;
}

class ValijsonSchema final : public CompiledSchema {
 public:
  explicit ValijsonSchema(std::string comment) : comment_(std::move(comment)) {}

  bool is_valid(const Json& instance) const override {
    try {
      valijson::Validator validator;
      const Json* target = &instance;
      std::optional<Json> saturated;
      if (has_huge_unsigned(instance)) target = &saturated.emplace(saturate(instance));
      return validator.validate(schema_, Adapter(*target), nullptr);
    } catch (const std::exception&) {
      return false;
    }
  }

  std::vector<Violation> validate(const Json& instance, std::size_t max_violations) const override {
    std::vector<Violation> out;
    valijson::ValidationResults results;
    try {
      valijson::Validator validator;
      const Json* target = &instance;
      std::optional<Json> saturated;
      if (has_huge_unsigned(instance)) target = &saturated.emplace(saturate(instance));
      // Fast path: most instances are valid, and without a results object valijson stops at the
      // first failure and builds no contexts or error texts. Only an invalid instance pays for the
      // second, explaining pass.
      if (validator.validate(schema_, Adapter(*target), nullptr)) return out;
      if (validator.validate(schema_, Adapter(*target), &results)) return out;
    } catch (const std::exception& ex) {
      out.push_back({"", "schema", std::string("validation aborted: ") + ex.what()});
      return out;
    }
    std::vector<Violation> summaries;
    for (const auto& e : results) {
      if (is_summary(e.description)) {
        summaries.push_back(to_violation(e));
        continue;
      }
      Violation v = to_violation(e);
      const bool dup = std::any_of(out.begin(), out.end(), [&](const Violation& o) {
        return o.pointer == v.pointer && o.rule == v.rule;
      });
      if (!dup) out.push_back(std::move(v));
    }
    if (out.empty()) out = std::move(summaries);
    // Deepest pointer first: the most specific explanation leads.
    std::stable_sort(out.begin(), out.end(), [](const Violation& a, const Violation& b) {
      return std::count(a.pointer.begin(), a.pointer.end(), '/') > std::count(b.pointer.begin(), b.pointer.end(), '/');
    });
    if (out.size() > max_violations) out.resize(max_violations);
    if (out.empty()) out.push_back({"", "schema", "instance does not match the schema"});
    return out;
  }

  const std::string& comment() const override { return comment_; }
  valijson::Schema& schema() { return schema_; }

 private:
  valijson::Schema schema_;
  std::string comment_;
};

// Visits every subschema of a draft-07 schema (only schema positions: keywords whose values
// are data, such as const, enum, default and examples, are not descended into).
template <typename Fn>
std::string for_each_subschema(const Json& node, const std::string& where, int depth, int max_depth, Fn&& fn) {
  if (depth > max_depth) return where + ": schema nested deeper than " + std::to_string(max_depth) + " levels";
  if (!node.is_object()) return {};
  if (auto msg = fn(node, where); !msg.empty()) return msg;
  static const char* const kSchemaValued[] = {"items", "additionalItems", "additionalProperties", "contains",
                                              "propertyNames", "if", "then", "else", "not"};
  static const char* const kSchemaArrays[] = {"allOf", "anyOf", "oneOf", "items"};
  static const char* const kSchemaMaps[] = {"properties", "definitions", "dependencies", "patternProperties"};
  for (const char* k : kSchemaValued) {
    if (auto it = node.find(k); it != node.end() && it->is_object()) {
      if (auto msg = for_each_subschema(*it, where + "/" + k, depth + 1, max_depth, fn); !msg.empty()) return msg;
    }
  }
  for (const char* k : kSchemaArrays) {
    if (auto it = node.find(k); it != node.end() && it->is_array()) {
      for (std::size_t i = 0; i < it->size(); ++i) {
        auto msg = for_each_subschema((*it)[i], where + "/" + k + "/" + std::to_string(i), depth + 1, max_depth, fn);
        if (!msg.empty()) return msg;
      }
    }
  }
  for (const char* k : kSchemaMaps) {
    if (auto it = node.find(k); it != node.end() && it->is_object()) {
      for (const auto& [name, sub] : it->items()) {
        auto msg = for_each_subschema(sub, where + "/" + k + "/" + escape_segment(name), depth + 1, max_depth, fn);
        if (!msg.empty()) return msg;
      }
    }
  }
  return {};
}

// Refuses constructs we cannot validate safely: patternProperties (valijson runs it on
// std::regex) and patterns RE2 cannot compile.
std::string lint(const Json& schema, const std::string& where, int max_depth) {
  return for_each_subschema(schema, where, 0, max_depth, [](const Json& node, const std::string& at) -> std::string {
    if (node.contains("patternProperties")) return at + ": 'patternProperties' is not supported";
    if (auto it = node.find("pattern"); it != node.end()) {
      if (!it->is_string()) return at + "/pattern: must be a string";
      re2::RE2::Options options;
      options.set_log_errors(false);
      re2::RE2 re(it->get<std::string>(), options);
      if (!re.ok()) return at + "/pattern: unsupported regular expression: " + re.error();
    }
    return {};
  });
}

bool has_remote_ref(const Json& schema) {
  auto msg = for_each_subschema(schema, "#", 0, 64, [](const Json& node, const std::string& at) -> std::string {
    if (auto it = node.find("$ref"); it != node.end()) {
      if (!it->is_string() || !it->get_ref<const std::string&>().starts_with("#")) return at;
    }
    return {};
  });
  return !msg.empty();
}

// valijson scopes references by draft-04 `id` only and ignores `$id`, so a relative `$ref`
// ("envelope.schema.json#/definitions/uuid") would be fetched verbatim, and a local one ("#/x")
// inside a referenced document would share a cache key with every other document's "#/x".
// Rewriting each `$ref` of a document that has an `$id` to an absolute URI (RFC 3986 §5.2 for the
// two forms we use: fragment-only and a path relative to the `$id`'s directory) makes every
// reference resolve against its own document's `$id`, as draft-07 §8 says.
void absolutize_refs(Json& node, const std::string& id) {
  if (node.is_array()) {
    for (auto& item : node) absolutize_refs(item, id);
    return;
  }
  if (!node.is_object()) return;
  for (auto& [key, value] : node.items()) {
    if (key == "$ref" && value.is_string()) {
      const std::string ref = value.get<std::string>();
      if (ref.starts_with("#")) {
        value = id + ref;
      } else if (ref.find(':') == std::string::npos && !ref.starts_with("/")) {
        value = id.substr(0, id.rfind('/') + 1) + ref;
      }
    } else if (key != "const" && key != "enum" && key != "default" && key != "examples") {
      absolutize_refs(value, id);  // data-valued keywords are not schemas
    }
  }
}

std::string comment_of(const Json& doc) {
  if (doc.is_object()) {
    if (auto it = doc.find("$comment"); it != doc.end() && it->is_string()) return it->get<std::string>();
  }
  return {};
}

}  // namespace

struct SchemaStore::Impl {
  std::map<std::string, Json> documents;                        // relative path -> document
  std::map<std::string, std::string> id_to_path;                // $id -> relative path
  std::map<std::string, std::unique_ptr<ValijsonSchema>> compiled;  // relative path -> schema

  const std::string* resolve(std::string_view key) const {
    if (auto it = documents.find(std::string(key)); it != documents.end()) return &it->first;
    std::string k(key);
    if (auto hash = k.find('#'); hash != std::string::npos) k.resize(hash);
    if (auto it = id_to_path.find(k); it != id_to_path.end()) return &it->second;
    return nullptr;
  }
};

Expected<std::shared_ptr<SchemaStore>, std::string> SchemaStore::load_directory(const std::filesystem::path& root) {
  auto impl = std::make_shared<Impl>();
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) return unexpected("schema directory not found: " + root.string());

  for (auto it = std::filesystem::recursive_directory_iterator(root, ec); it != std::filesystem::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec) return unexpected("cannot list " + root.string() + ": " + ec.message());
    const auto& path = it->path();
    if (!it->is_regular_file() || !path.filename().string().ends_with(".schema.json")) continue;
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string rel = std::filesystem::relative(path, root).generic_string();
    auto doc = json::parse_strict(buffer.str());
    if (!doc) return unexpected(rel + ": " + doc.error().describe());
    if (auto msg = lint(*doc, rel + "#", 64); !msg.empty()) return unexpected(msg);
    if (doc->is_object()) {
      if (auto id = doc->find("$id"); id != doc->end() && id->is_string()) {
        std::string sid = id->get<std::string>();
        if (auto hash = sid.find('#'); hash != std::string::npos) sid.resize(hash);
        if (!impl->id_to_path.emplace(sid, rel).second) return unexpected(rel + ": duplicate $id " + sid);
        absolutize_refs(*doc, sid);
      }
    }
    impl->documents.emplace(rel, std::move(*doc));
  }

  for (const auto& [rel, doc] : impl->documents) {
    auto compiled = std::make_unique<ValijsonSchema>(comment_of(doc));
    std::string fetch_error;
    auto fetch = [&impl, &fetch_error](const std::string& uri) -> const Json* {
      if (const std::string* path = impl->resolve(uri)) return &impl->documents.at(*path);
      fetch_error = "unresolved $ref to " + uri;
      return nullptr;
    };
    auto free_doc = [](const Json*) {};
    try {
      valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
      parser.populateSchema(Adapter(doc), compiled->schema(), fetch, free_doc);
    } catch (const std::exception& ex) {
      return unexpected(rel + ": " + (fetch_error.empty() ? std::string(ex.what()) : fetch_error));
    }
    impl->compiled.emplace(rel, std::move(compiled));
  }

  auto store = std::make_shared<SchemaStore>();
  store->impl_ = std::move(impl);
  return store;
}

const CompiledSchema* SchemaStore::find(std::string_view key) const {
  if (const std::string* path = impl_->resolve(key)) return impl_->compiled.at(*path).get();
  return nullptr;
}

const Json* SchemaStore::document(std::string_view key) const {
  if (const std::string* path = impl_->resolve(key)) return &impl_->documents.at(*path);
  return nullptr;
}

std::vector<std::string> SchemaStore::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : impl_->documents) out.push_back(k);
  return out;
}

Expected<std::shared_ptr<const CompiledSchema>, std::string> compile_untrusted(const Json& schema) {
  if (!schema.is_object() && !schema.is_boolean()) return unexpected(std::string("a schema must be an object or a boolean"));
  if (auto msg = lint(schema, "#", 32); !msg.empty()) return unexpected(msg);
  if (has_remote_ref(schema)) return unexpected(std::string("only local references ('#...') are allowed in a peer's schema"));
  auto compiled = std::make_shared<ValijsonSchema>(comment_of(schema));
  try {
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    parser.populateSchema(Adapter(schema), compiled->schema());
  } catch (const std::exception& ex) {
    return unexpected(std::string("invalid schema: ") + ex.what());
  }
  return std::shared_ptr<const CompiledSchema>(std::move(compiled));
}

}  // namespace ac::schema
