// The suite linter (see lint.hpp). Two sources of truth drive it: the JSON Schemas (which keys
// each object and each step kind admits, types, enums) and each protocol's variables.json (what
// its driver reads). Schema violations are rewritten into a problem a case author can act on
// (the key that is unknown and the nearest valid one, the type or values expected); the rest are
// the rules a schema cannot state, checked by walking each case in step order.
#include "harness/engine/lint.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include <re2/re2.h>

#include "harness/engine/matcher.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/protocols/protocol_id.hpp"
#include "harness/schema/schema_store.hpp"
#include "harness/util/data_dir.hpp"
#include "harness/util/closest_name.hpp"

namespace ac::engine {

std::string Problem::describe() const {
  std::string out = file;
  if (!pointer.empty()) out += " " + pointer;
  if (line != 0) out += " (line " + std::to_string(line) + ", column " + std::to_string(column) + ")";
  return out + ": " + message;
}

Json Problem::to_json() const {
  Json j = {{"file", file}, {"pointer", pointer}, {"message", message}};
  if (line != 0) {
    j["line"] = line;
    j["column"] = column;
  }
  return j;
}

std::string describe_problems(const std::vector<Problem>& problems) {
  std::string out;
  for (const auto& p : problems) out += p.describe() + "\n";
  if (!out.empty()) out.pop_back();
  return out;
}

std::string LintResult::summary() const {
  std::string out = std::to_string(cases) + (cases == 1 ? " case in " : " cases in ") + std::to_string(suite_files) +
                    (suite_files == 1 ? " suite file, " : " suite files, ") + std::to_string(catalogues) +
                    (catalogues == 1 ? " requirement catalogue (" : " requirement catalogues (") + std::to_string(requirements) +
                    " requirements): ";
  if (problems.empty()) return out + "no problems";
  return out + std::to_string(problems.size()) + (problems.size() == 1 ? " problem" : " problems");
}

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxFileBytes = 16u * 1024u * 1024u;

std::string seg(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::vector<std::string> split_pointer(const std::string& pointer) {
  std::vector<std::string> out;
  if (pointer.empty()) return out;
  std::size_t i = 1;
  for (;;) {
    const auto j = pointer.find('/', i);
    std::string token = pointer.substr(i, j == std::string::npos ? std::string::npos : j - i);
    std::string unescaped;
    for (std::size_t k = 0; k < token.size(); ++k) {
      if (token[k] == '~' && k + 1 < token.size()) {
        unescaped += token[k + 1] == '1' ? '/' : '~';
        ++k;
      } else {
        unescaped += token[k];
      }
    }
    out.push_back(std::move(unescaped));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

std::string parent_of(const std::string& pointer) {
  const auto slash = pointer.rfind('/');
  return slash == std::string::npos ? std::string() : pointer.substr(0, slash);
}

// a is b or inside b
bool within(const std::string& a, const std::string& b) { return a == b || (a.size() > b.size() && a.starts_with(b) && a[b.size()] == '/'); }

std::string show(const Json& v, std::size_t limit = 80) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  return s.size() > limit ? s.substr(0, limit - 3) + "..." : s;
}

std::string type_name(const Json& v) {
  switch (v.type()) {
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::null: return "null";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    default: return "a number";
  }
}

std::string schema_type_word(const std::string& t) {
  if (t == "object") return "an object";
  if (t == "array") return "an array";
  if (t == "string") return "a string";
  if (t == "boolean") return "a boolean";
  if (t == "integer") return "an integer";
  if (t == "number") return "a number";
  return t;
}

template <typename Range>
std::string join(const Range& names, std::size_t limit = 24) {
  std::string out;
  std::size_t n = 0;
  for (const auto& name : names) {
    if (n++ == limit) return out + ", ...";
    out += (out.empty() ? "" : ", ") + std::string(name);
  }
  return out;
}

// "an expect", "a send"
std::string article(const std::string& word) {
  return (std::string("aeiou").find(word.empty() ? 'x' : word[0]) != std::string::npos ? "an " : "a ") + word;
}

std::pair<std::size_t, std::size_t> line_column(const std::string& text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

const std::vector<std::string>& protocols() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (auto id : proto::kAllProtocols) out.emplace_back(proto::name(id));
    return out;
  }();
  return v;
}

bool is_protocol(const std::string& name) { return std::find(protocols().begin(), protocols().end(), name) != protocols().end(); }

bool has_json_files(const fs::path& dir) {
  std::error_code ec;
  std::size_t seen = 0;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (++seen > 10000) return true;
    if (it->is_regular_file(ec) && it->path().extension() == ".json") return true;
  }
  return false;
}

// --- The schema that applies at an instance pointer (for did-you-mean and "expected ...") ------

class SchemaView {
 public:
  explicit SchemaView(const Json* root) : root_(root) {}

  // The subschemas that apply to the whole instance.
  std::vector<const Json*> root(const Json& instance) const {
    std::vector<const Json*> nodes;
    if (root_ != nullptr) expand(root_, instance, nodes, 0);
    return nodes;
  }

  // The subschemas that apply to `child`, member or element `token` of a value `nodes` apply to.
  std::vector<const Json*> child(const std::vector<const Json*>& nodes, const Json& value, const std::string& token, const Json& child) const {
    std::vector<const Json*> next;
    for (const Json* n : nodes) {
      if (value.is_object()) {
        if (auto p = n->find("properties"); p != n->end() && p->is_object() && p->contains(token)) {
          expand(&(*p)[token], child, next, 0);
        } else if (auto a = n->find("additionalProperties"); a != n->end() && a->is_object()) {
          expand(&*a, child, next, 0);
        }
      } else if (value.is_array()) {
        if (auto items = n->find("items"); items != n->end() && items->is_object()) expand(&*items, child, next, 0);
      }
    }
    return next;
  }

  // Every subschema that applies to the instance value at `pointer` (properties, items,
  // additionalProperties, $ref, allOf, anyOf/oneOf branches, and if/then when the `if` holds).
  std::vector<const Json*> at(const Json& instance, const std::string& pointer) const {
    std::vector<const Json*> nodes = root(instance);
    const Json* value = &instance;
    for (const auto& token : split_pointer(pointer)) {
      const Json* c = nullptr;
      if (value->is_object()) {
        if (auto it = value->find(token); it != value->end()) c = &*it;
      } else if (value->is_array() && !token.empty() && std::all_of(token.begin(), token.end(), ::isdigit) && token.size() < 9) {
        const auto i = static_cast<std::size_t>(std::stoul(token));
        if (i < value->size()) c = &(*value)[i];
      }
      static const Json missing;
      nodes = child(nodes, *value, token, c ? *c : missing);
      if (c == nullptr) break;
      value = c;
    }
    return nodes;
  }

  // The schema a `propertyNames` (or any subschema) stands for, $refs followed.
  const Json* resolve(const Json* node) const { return deref(node); }

  static std::set<std::string> property_names(const std::vector<const Json*>& nodes) {
    std::set<std::string> out;
    for (const Json* n : nodes) {
      if (auto p = n->find("properties"); p != n->end() && p->is_object()) {
        for (const auto& [k, v] : p->items()) {
          if (k != "$schema") out.insert(k);
        }
      }
    }
    return out;
  }

  // "an integer or an array", "one of \"a\", \"b\"": what the nodes accept, "" when unknown.
  static std::string expected(const std::vector<const Json*>& nodes) {
    std::vector<std::string> types, values;
    auto add = [](std::vector<std::string>& v, std::string s) {
      if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(std::move(s));
    };
    for (const Json* n : nodes) {
      if (auto t = n->find("type"); t != n->end()) {
        if (t->is_string()) add(types, schema_type_word(t->get<std::string>()));
        if (t->is_array()) {
          for (const auto& e : *t) {
            if (e.is_string()) add(types, schema_type_word(e.get<std::string>()));
          }
        }
      }
      if (auto e = n->find("enum"); e != n->end() && e->is_array()) {
        for (const auto& v : *e) add(values, show(v));
      }
      if (auto c = n->find("const"); c != n->end()) add(values, show(*c));
    }
    std::string out;
    for (const auto& t : types) out += (out.empty() ? "" : " or ") + t;
    if (!values.empty()) out += std::string(out.empty() ? "" : " or ") + "one of " + join(values);
    return out;
  }

  static std::vector<std::string> enum_strings(const std::vector<const Json*>& nodes) {
    std::vector<std::string> out;
    for (const Json* n : nodes) {
      if (auto e = n->find("enum"); e != n->end() && e->is_array()) {
        for (const auto& v : *e) {
          if (v.is_string()) out.push_back(v.get<std::string>());
        }
      }
      if (auto c = n->find("const"); c != n->end() && c->is_string()) out.push_back(c->get<std::string>());
    }
    return out;
  }

 private:
  const Json* deref(const Json* node) const {
    for (int hops = 0; hops < 16 && node->is_object() && node->contains("$ref"); ++hops) {
      const auto& ref = (*node)["$ref"];
      if (!ref.is_string()) break;
      const std::string r = ref.get<std::string>();
      const auto hash = r.find('#');
      if (hash == std::string::npos) break;
      try {
        const Json::json_pointer p(r.substr(hash + 1));
        if (!root_->contains(p)) break;
        node = &root_->at(p);
      } catch (const std::exception&) {
        break;
      }
    }
    return node;
  }

  static bool holds(const Json& cond, const Json& value) {
    if (!cond.is_object()) return false;
    if (auto req = cond.find("required"); req != cond.end() && req->is_array()) {
      if (!value.is_object()) return false;
      for (const auto& k : *req) {
        if (!k.is_string() || !value.contains(k.get<std::string>())) return false;
      }
    }
    if (auto props = cond.find("properties"); props != cond.end() && props->is_object()) {
      for (const auto& [k, sub] : props->items()) {
        if (!value.is_object() || !value.contains(k)) continue;
        if (sub.is_object() && sub.contains("const") && value[k] != sub["const"]) return false;
      }
    }
    return true;
  }

  void expand(const Json* node, const Json& value, std::vector<const Json*>& out, int depth) const {
    if (depth > 16 || node == nullptr) return;
    node = deref(node);
    if (!node->is_object()) return;
    out.push_back(node);
    auto cond = [&](const Json& n) {
      if (auto i = n.find("if"); i != n.end() && holds(*i, value)) {
        if (auto t = n.find("then"); t != n.end()) expand(&*t, value, out, depth + 1);
      }
    };
    cond(*node);
    if (auto all = node->find("allOf"); all != node->end() && all->is_array()) {
      for (const auto& sub : *all) {
        if (sub.is_object() && sub.contains("if")) cond(sub);
        else expand(&sub, value, out, depth + 1);
      }
    }
    for (const char* key : {"anyOf", "oneOf"}) {
      if (auto any = node->find(key); any != node->end() && any->is_array()) {
        for (const auto& sub : *any) expand(&sub, value, out, depth + 1);
      }
    }
  }

  const Json* root_;
};

// --- Files ----------------------------------------------------------------------------------

enum class Kind { suite, requirements, variables, target_settings };

struct File {
  fs::path path;
  std::string display;
  std::string protocol;
  Kind kind = Kind::suite;
  bool builtin = true;
  std::optional<Json> doc;
};

// What a protocol's driver offers cases (suites/<protocol>/variables.json).
struct Vocabulary {
  std::set<std::string> variables;  // "lobby_id", "<agent>.token"
  std::set<std::string> connect, send, triggers, agent_properties;
  // Message members a target may key state by: never a literal in a send step (${ns}, ${uuid}, ...).
  std::set<std::string> identifiers;
  std::string file;
};

struct Located {
  std::string file;
  std::string pointer;
  std::string where() const { return file + " " + pointer; }
};

// Variables defined at a point of a case, in step order.
struct Scope {
  std::set<std::string> defined;
  bool in_repeat = false;
};

// What lint knows about the case being walked.
struct CaseContext {
  const File* file = nullptr;
  std::string protocol;
  std::string id;
  std::set<std::string> agents;
  std::vector<std::string> requirements;
  const Vocabulary* vocab = nullptr;
  std::map<std::string, std::string> definitions;  // every set/capture of the case -> where
};

class Linter {
 public:
  explicit Linter(LintOptions o) : o_(std::move(o)) {}

  Expected<LintResult, std::string> run() {
    const fs::path builtin = o_.builtin_dir.empty() ? data_dir() / "suites" : o_.builtin_dir;
    const fs::path dir = o_.dir.empty() ? builtin : o_.dir;
    const fs::path schemas = o_.schema_dir.empty() ? data_dir() / "schemas" : o_.schema_dir;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return unexpected(dir.string() + ": no such directory");
    if (!fs::is_directory(builtin, ec)) return unexpected(builtin.string() + ": the built-in suites directory is missing");
    result_.custom = !fs::equivalent(dir, builtin, ec);
    if (ec) return unexpected(dir.string() + ": " + ec.message());

    auto store = schema::SchemaStore::load_directory(schemas);
    if (!store) return unexpected("cannot load the schemas: " + store.error());
    store_ = *store;
    for (const char* name : {"scenario.schema.json", "requirements.schema.json", "variables.schema.json"}) {
      if (store_->find(name) == nullptr) return unexpected((schemas / name).string() + " is missing");
    }

    result_.catalogue_dirs.push_back(builtin);
    enumerate(builtin, "suites", true);
    if (result_.custom) {
      std::string display = o_.display;
      if (display.empty()) {
        display = o_.dir.generic_string();
        while (display.size() > 1 && display.back() == '/') display.pop_back();
      }
      result_.catalogue_dirs.push_back(dir);
      enumerate(dir, display, false);
    }
    for (auto& f : files_) read(f);

    for (auto& f : files_) {
      if (f.kind == Kind::variables) lint_variables(f);
    }
    driver_options();
    for (const auto& p : protocols()) declare_features(p);
    for (auto& f : files_) {
      if (f.kind == Kind::requirements) lint_catalogue(f);
    }
    for (auto& f : files_) {
      if (f.kind == Kind::suite) lint_suite(f);
    }
    for (auto& f : files_) {
      if (f.kind == Kind::suite && f.doc) result_.suites.push_back({f.protocol, f.display, f.builtin, std::move(*f.doc)});
    }
    return std::move(result_);
  }

 private:
  // --- reporting ---

  void problem(const std::string& file, std::string pointer, std::string message) {
    if (!seen_.insert(file + '\n' + pointer + '\n' + message).second) return;
    reported_[file].push_back(pointer);
    result_.problems.push_back({file, std::move(pointer), std::move(message)});
  }
  void problem(const File& f, std::string pointer, std::string message) { problem(f.display, std::move(pointer), std::move(message)); }

  // --- files ---

  void enumerate(const fs::path& dir, const std::string& display, bool builtin) {
    std::vector<fs::directory_entry> entries;
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) entries.push_back(*it);
    if (ec) {
      problem(display, "", "cannot list the directory: " + ec.message());
      return;
    }
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
    for (const auto& e : entries) {
      const std::string name = e.path().filename().string();
      const std::string shown = display + "/" + name;
      if (e.is_directory(ec)) {
        if (is_protocol(name)) {
          enumerate_protocol(e.path(), shown, name, builtin);
        } else if (has_json_files(e.path())) {
          problem(shown, "", "not a protocol directory, its files are not read" + closest_name_suffix(name, protocols()) +
                                 ": suite files go into " + display + "/<protocol>/ with <protocol> one of " + join(protocols()));
        }
      } else if (e.path().extension() == ".json") {
        problem(shown, "", "not read: suite files go into " + display + "/<protocol>/<name>.json, with <protocol> one of " + join(protocols()));
      }
    }
  }

  void enumerate_protocol(const fs::path& dir, const std::string& display, const std::string& protocol, bool builtin) {
    std::vector<fs::directory_entry> entries;
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) entries.push_back(*it);
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
    for (const auto& e : entries) {
      const std::string name = e.path().filename().string();
      const std::string shown = display + "/" + name;
      if (e.is_directory(ec)) {
        // suites/<protocol>/generated/: the schema-derived cases scripts/generate_negative.py
        // writes (docs/generated-cases.md); suite files only, built-in directory only.
        if (builtin && name == "generated") {
          enumerate_generated(e.path(), shown, protocol);
        } else if (has_json_files(e.path())) {
          problem(shown, "", "subdirectories are not read: move its suite files into " + display + "/");
        }
        continue;
      }
      if (e.path().extension() != ".json") continue;
      File f{e.path(), shown, protocol, Kind::suite, builtin, std::nullopt};
      if (name == "requirements.json") f.kind = Kind::requirements;
      if (name == "variables.json") f.kind = Kind::variables;
      if (name == "target-settings.json") f.kind = Kind::target_settings;
      if (!builtin && (f.kind == Kind::variables || f.kind == Kind::target_settings)) {
        problem(shown, "", "a custom suite directory holds suite files and requirements.json only; " + name +
                               " is read from the built-in suites/" + protocol + "/ (remove this file)");
        continue;
      }
      files_.push_back(std::move(f));
    }
  }

  void enumerate_generated(const fs::path& dir, const std::string& display, const std::string& protocol) {
    std::vector<fs::directory_entry> entries;
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) entries.push_back(*it);
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
    for (const auto& e : entries) {
      const std::string name = e.path().filename().string();
      if (e.is_directory(ec) || e.path().extension() != ".json") continue;
      if (name == "requirements.json" || name == "variables.json" || name == "target-settings.json") {
        problem(display + "/" + name, "", "generated/ holds generated suite files only; " + name + " belongs in the protocol directory");
        continue;
      }
      files_.push_back(File{e.path(), display + "/" + name, protocol, Kind::suite, true, std::nullopt});
    }
  }

  void read(File& f) {
    std::ifstream in(f.path, std::ios::binary);
    if (!in) {
      problem(f, "", "cannot read the file");
      return;
    }
    std::error_code ec;
    const auto size = fs::file_size(f.path, ec);
    if (!ec && size > kMaxFileBytes) {
      problem(f, "", "larger than " + std::to_string(kMaxFileBytes / (1024 * 1024)) + " MiB: split it into several suite files");
      return;
    }
    std::string text;
    text.resize(ec ? kMaxFileBytes + 1 : static_cast<std::size_t>(size) + 1);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes) {
      problem(f, "", "larger than " + std::to_string(kMaxFileBytes / (1024 * 1024)) + " MiB: split it into several suite files");
      return;
    }
    auto doc = json::parse_strict(text);
    if (!doc) {
      const auto& e = doc.error();
      const auto [line, column] = line_column(text, e.offset);
      result_.problems.push_back({f.display, e.pointer, "invalid JSON (" + std::string(json::rule_name(e.rule)) + "): " + e.message, line, column});
      return;
    }
    f.doc = std::move(*doc);
  }

  // --- schema violations, rewritten for a case author ---

  // propertyNames: valijson reports a failing name with no error of its own (only summaries of
  // its parents), so the names are checked here, object by object.
  void property_names(const File& f, const SchemaView& view, const Json& value, const std::string& at,
                      const std::vector<const Json*>& nodes) {
    if (value.is_object()) {
      for (const Json* n : nodes) {
        auto pn = n->find("propertyNames");
        if (pn == n->end()) continue;
        const Json* rule = view.resolve(&*pn);
        for (const auto& [key, v] : value.items()) {
          if (auto why = bad_name(*rule, key)) problem(f, at + "/" + seg(key), "key '" + key + "' is not allowed: expected " + *why);
        }
      }
      for (const auto& [key, v] : value.items()) property_names(f, view, v, at + "/" + seg(key), view.child(nodes, value, key, v));
    } else if (value.is_array()) {
      for (std::size_t i = 0; i < value.size(); ++i) {
        property_names(f, view, value[i], at + "/" + std::to_string(i), view.child(nodes, value, std::to_string(i), value[i]));
      }
    }
  }

  std::optional<std::string> bad_name(const Json& rule, const std::string& key) {
    if (!rule.is_object()) return std::nullopt;
    const std::string what = rule.contains("$comment") && rule["$comment"].is_string() ? rule["$comment"].get<std::string>() : std::string();
    if (auto p = rule.find("pattern"); p != rule.end() && p->is_string()) {
      auto& re = regexes_[p->get<std::string>()];
      if (!re) {
        re2::RE2::Options o;
        o.set_log_errors(false);
        re = std::make_unique<re2::RE2>(p->get<std::string>(), o);
      }
      if (re->ok() && !re2::RE2::PartialMatch(key, *re)) return what.empty() ? "a key matching " + p->get<std::string>() : what;
    }
    if (auto m = rule.find("maxLength"); m != rule.end() && m->is_number_unsigned() && key.size() > m->get<std::size_t>()) {
      return "at most " + std::to_string(m->get<std::size_t>()) + " characters" + (what.empty() ? "" : " (" + what + ")");
    }
    if (auto e = rule.find("enum"); e != rule.end() && e->is_array() && std::find(e->begin(), e->end(), Json(key)) == e->end()) {
      std::vector<std::string> names;
      for (const auto& n : *e) {
        if (n.is_string()) names.push_back(n.get<std::string>());
      }
      return "one of " + join(names) + closest_name_suffix(key, names);
    }
    return std::nullopt;
  }

  // `skip(pointer, rule)`: the walker reports this one itself.
  void schema_check(const File& f, const char* schema_name, const std::function<bool(const std::string&, const std::string&)>& skip) {
    const schema::CompiledSchema* compiled = store_->find(schema_name);
    if (compiled == nullptr || !f.doc) return;
    const SchemaView view(store_->document(schema_name));
    property_names(f, view, *f.doc, "", view.root(*f.doc));
    std::set<std::string> pointers_done;
    for (const auto& v : compiled->validate(*f.doc, 500)) {
      const bool key_rule = v.rule == "required" || v.rule == "additionalProperties";
      const std::string at = key_rule ? parent_of(v.pointer) : v.pointer;
      if (skip && skip(at, v.rule)) continue;
      if (!key_rule && !pointers_done.insert(v.pointer).second) continue;  // one explanation per value
      // A summary at an ancestor of something already reported says nothing more.
      bool ancestor = false;
      for (const auto& p : reported_[f.display]) ancestor |= within(p, at) && p != at;
      if (ancestor && !key_rule) continue;
      const auto tokens = split_pointer(v.pointer);
      const std::string name = key_rule && !tokens.empty() ? tokens.back() : std::string();
      const Json* value = nullptr;
      try {
        const Json::json_pointer jp(v.pointer);
        if (f.doc->contains(jp)) value = &f.doc->at(jp);
      } catch (const std::exception&) {
      }
      std::string message;
      if (v.rule == "required") {
        message = "missing required key '" + name + "'";
      } else if (v.rule == "additionalProperties") {
        const auto allowed = SchemaView::property_names(view.at(*f.doc, at));
        message = "unknown key '" + name + "'";
        if (auto near = closest_name(name, allowed)) {
          message += " (did you mean '" + *near + "'?)";
        } else if (!allowed.empty()) {
          message += ": the keys here are " + join(allowed);
        }
      } else if ((v.rule == "type" || v.rule == "enum" || v.rule == "const") && value != nullptr) {
        const auto nodes = view.at(*f.doc, v.pointer);
        const std::string want = SchemaView::expected(nodes);
        message = "expected " + (want.empty() ? std::string("another value") : want) + ", not " +
                  (v.rule == "type" ? type_name(*value) + " " : std::string()) + show(*value);
        if (value->is_string()) message += closest_name_suffix(value->get<std::string>(), SchemaView::enum_strings(nodes), "\"");
      } else if (v.rule == "pattern" && value != nullptr) {
        std::string what;
        for (const Json* n : view.at(*f.doc, v.pointer)) {
          if (n->contains("pattern") && n->contains("$comment") && (*n)["$comment"].is_string()) what = (*n)["$comment"].get<std::string>();
        }
        message = what.empty() ? v.message + " (value " + show(*value) + ")" : "expected " + what + ", not " + show(*value);
      } else if (value != nullptr && v.rule != "oneOf" && v.rule != "anyOf" && v.rule != "schema" && v.rule != "if-then-else") {
        message = v.message + " (" + v.rule + "; value " + show(*value) + ")";
      } else {
        message = v.message;
      }
      problem(f, at, message);
    }
  }

  // --- variables.json ---

  void lint_variables(File& f) {
    if (!f.doc) return;
    const Json& d = *f.doc;
    if (d.is_object() && d.contains("protocol") && d["protocol"] != f.protocol) {
      problem(f, "/protocol", "protocol " + show(d["protocol"]) + " does not match its directory '" + f.protocol + "'");
    }
    schema_check(f, "variables.schema.json", nullptr);
    if (!d.is_object()) return;
    Vocabulary v;  // what is readable of it, even with problems: cases are checked against it
    v.file = f.display;
    auto names = [&](const char* key, std::set<std::string>& out) {
      if (auto it = d.find(key); it != d.end() && it->is_object()) {
        for (const auto& [k, text] : it->items()) out.insert(k);
      }
    };
    names("variables", v.variables);
    names("connect", v.connect);
    names("send", v.send);
    names("triggers", v.triggers);
    names("agent_properties", v.agent_properties);
    if (auto it = d.find("identifiers"); it != d.end() && it->is_array()) {
      for (const auto& id : *it) {
        if (id.is_string()) v.identifiers.insert(id.get<std::string>());
      }
    }
    vocab_[f.protocol] = std::move(v);
  }

  // The union of every driver's connect/send options: keys the schema admits for some driver.
  void driver_options() {
    for (const auto& [p, v] : vocab_) {
      connect_options_.insert(v.connect.begin(), v.connect.end());
      send_options_.insert(v.send.begin(), v.send.end());
    }
    std::set<std::string> with_suites;
    for (const auto& f : files_) {
      if (f.builtin && f.kind == Kind::suite) with_suites.insert(f.protocol);
    }
    std::set<std::string> have_variables;
    for (const auto& f : files_) {
      if (f.builtin && f.kind == Kind::variables) have_variables.insert(f.protocol);
    }
    for (const auto& p : with_suites) {
      if (have_variables.count(p) == 0) {
        problem("suites/" + p + "/variables.json", "",
                "missing: every protocol with suites declares its driver's variables, connect/send options, triggers and agent "
                "properties there (schemas/variables.schema.json)");
      }
    }
  }

  // --- features ---

  // The features a target can claim: suites/<protocol>/target-settings.json (a catalogue has no
  // features of its own; schemas/requirements.schema.json refuses the key).
  void declare_features(const std::string& protocol) {
    for (auto& f : files_) {
      if (!f.builtin || f.protocol != protocol || f.kind != Kind::target_settings || !f.doc) continue;
      if (store_->find("target-settings.schema.json") != nullptr) schema_check(f, "target-settings.schema.json", nullptr);
      if (auto it = f.doc->find("features"); it != f.doc->end() && it->is_object()) {
        for (const auto& [name, v] : it->items()) features_[protocol].insert(name);
        features_source_[protocol] = f.display;
        return;
      }
    }
  }

  std::string undeclared_feature(const std::string& protocol, const std::string& name) {
    const auto& declared = features_[protocol];
    std::string message = "feature '" + name + "' is not declared" + closest_name_suffix(name, declared);
    if (features_source_.count(protocol) != 0) message += "; the features of " + protocol + " are declared in " + features_source_[protocol];
    if (!declared.empty()) message += " (" + join(declared) + ")";
    return message;
  }

  // --- requirement catalogues ---

  void lint_catalogue(File& f) {
    if (!f.doc) return;
    const Json& d = *f.doc;
    ++result_.catalogues;
    if (!d.is_object()) {
      schema_check(f, "requirements.schema.json", nullptr);
      return;
    }
    if (d.contains("protocol") && d["protocol"] != f.protocol) {
      problem(f, "/protocol", "protocol " + show(d["protocol"]) + " does not match its directory '" + f.protocol + "'");
    }
    catalogues_.insert(f.protocol);
    if (!f.builtin) {
      const File* base = nullptr;
      for (const auto& b : files_) {
        if (b.builtin && b.kind == Kind::requirements && b.protocol == f.protocol && b.doc && b.doc->is_object()) base = &b;
      }
      for (const char* key : {"spec", "spec_version"}) {
        if (base != nullptr && d.contains(key) && base->doc->contains(key) && d[key] != (*base->doc)[key]) {
          problem(f, std::string("/") + key, std::string(key) + " " + show(d[key]) + " differs from the built-in catalogue's " +
                                                 show((*base->doc)[key]) + " (" + base->display + ")");
        }
      }
    }
    if (auto reqs = d.find("requirements"); reqs != d.end() && reqs->is_array()) {
      for (std::size_t i = 0; i < reqs->size(); ++i) {
        const Json& r = (*reqs)[i];
        const std::string at = "/requirements/" + std::to_string(i);
        ++result_.requirements;
        if (!r.is_object()) continue;
        if (auto id = r.find("id"); id != r.end() && id->is_string()) {
          const std::string rid = id->get<std::string>();
          auto [it, fresh] = requirement_at_.emplace(rid, Located{f.display, at});
          if (!fresh) {
            problem(f, at + "/id", "duplicate requirement id '" + rid + "' (also at " + it->second.where() + "): requirement ids are unique across all catalogues");
          } else {
            requirement_protocol_[rid] = f.protocol;
            requirement_ids_[f.protocol].push_back(rid);
          }
        }
        if (auto feature = r.find("feature"); feature != r.end() && feature->is_string()) {
          const std::string name = feature->get<std::string>();
          if (features_[f.protocol].count(name) == 0) problem(f, at + "/feature", undeclared_feature(f.protocol, name));
        }
      }
    }
    schema_check(f, "requirements.schema.json", nullptr);
  }

  // --- suites ---

  const Json* scenario_definition(const std::string& name) {
    const Json* doc = store_->document("scenario.schema.json");
    if (doc == nullptr) return nullptr;
    auto defs = doc->find("definitions");
    if (defs == doc->end() || !defs->contains(name)) return nullptr;
    return &(*defs)[name];
  }

  const std::vector<std::string>& actions() {
    if (actions_.empty()) {
      if (const Json* step = scenario_definition("step"); step != nullptr && step->contains("anyOf")) {
        for (const auto& branch : (*step)["anyOf"]) {
          if (branch.contains("required") && !branch["required"].empty()) actions_.push_back(branch["required"][0].get<std::string>());
        }
      }
    }
    return actions_;
  }

  // A built-in suite file when a custom directory is checked: its case ids only.
  void builtin_case_ids(const File& f) {
    const Json& d = *f.doc;
    if (!d.is_object() || !d.contains("cases") || !d["cases"].is_array()) return;
    for (std::size_t i = 0; i < d["cases"].size(); ++i) {
      const Json& c = d["cases"][i];
      if (c.is_object() && c.contains("id") && c["id"].is_string()) {
        case_at_.emplace(c["id"].get<std::string>(), Located{f.display, "/cases/" + std::to_string(i)});
      }
    }
  }

  void lint_suite(File& f) {
    if (!f.doc) return;
    if (f.builtin && result_.custom && !o_.check_builtin_suites) return builtin_case_ids(f);
    const bool checked_dir = f.builtin != result_.custom;
    if (checked_dir) ++result_.suite_files;
    const Json& d = *f.doc;
    step_pointers_.clear();
    step_actions_.clear();
    covered_.clear();
    if (d.is_object()) {
      if (d.contains("protocol") && d["protocol"].is_string() && d["protocol"] != f.protocol) {
        problem(f, "/protocol", "protocol " + show(d["protocol"]) + " does not match its directory '" + f.protocol +
                                    "': a suite file goes into <dir>/<protocol>/");
      } else if (catalogues_.count(f.protocol) == 0) {
        problem(f, "", "no requirement catalogue for " + f.protocol + " (suites/" + f.protocol + "/requirements.json)");
      }
      if (auto cases = d.find("cases"); cases != d.end() && cases->is_array()) {
        for (std::size_t i = 0; i < cases->size(); ++i) {
          if (checked_dir) ++result_.cases;
          lint_case(f, (*cases)[i], "/cases/" + std::to_string(i));
        }
      }
    }
    schema_check(f, "scenario.schema.json", [this, &d](const std::string& at, const std::string& rule) {
      for (const auto& c : covered_) {
        if (within(at, c)) return true;
      }
      if (substituted_placeholder(d, at)) return true;
      // The walker checks every step's keys and its action.
      if (step_pointers_.count(at) != 0 && (rule == "required" || rule == "additionalProperties" || rule == "anyOf" || rule == "if-then-else")) {
        return true;
      }
      return false;
    });
  }

  // A value that is exactly "${x}" where the runner substitutes before it reads the value (the
  // whole of a connect or send step, an http request) takes the variable's type: its schema
  // type is not known before the run.
  bool substituted_placeholder(const Json& doc, const std::string& at) const {
    const Json* value = nullptr;
    try {
      const Json::json_pointer p(at);
      if (doc.contains(p)) value = &doc.at(p);
    } catch (const std::exception&) {
      return false;
    }
    if (value == nullptr || !value->is_string()) return false;
    const auto& text = value->get_ref<const std::string&>();
    if (text.size() < 4 || !text.starts_with("${") || text.find('}') != text.size() - 1) return false;
    for (const auto& [step, action] : step_actions_) {
      if (!within(at, step) || at == step) continue;
      if (action == "connect" || action == "send" || within(at, step + "/http")) return true;
    }
    return false;
  }

  void lint_case(const File& f, const Json& c, const std::string& at) {
    if (!c.is_object()) return;
    CaseContext k;
    k.file = &f;
    k.protocol = f.protocol;
    auto vocab = vocab_.find(f.protocol);
    static const Vocabulary none;
    k.vocab = vocab == vocab_.end() ? &none : &vocab->second;

    if (auto id = c.find("id"); id != c.end() && id->is_string()) {
      k.id = id->get<std::string>();
      auto [it, fresh] = case_at_.emplace(k.id, Located{f.display, at});
      if (!fresh) {
        if (!f.builtin && it->second.file.starts_with("suites/")) {
          problem(f, at + "/id", "case id '" + k.id + "' is a built-in case's (" + it->second.where() +
                                     "): custom cases need ids of their own, e.g. with your own prefix ('ACME-" + k.id + "')");
        } else {
          problem(f, at + "/id", "duplicate case id '" + k.id + "' (also at " + it->second.where() + "): case ids are unique across all suites");
        }
      }
    }
    if (auto reqs = c.find("requirements"); reqs != c.end() && reqs->is_array()) {
      for (std::size_t j = 0; j < reqs->size(); ++j) {
        if (!(*reqs)[j].is_string()) continue;
        const std::string rid = (*reqs)[j].get<std::string>();
        k.requirements.push_back(rid);
        auto owner = requirement_protocol_.find(rid);
        if (owner == requirement_protocol_.end()) {
          if (catalogues_.count(f.protocol) == 0) continue;  // reported once for the file
          problem(f, at + "/requirements/" + std::to_string(j),
                  "unknown requirement id '" + rid + "'" + closest_name_suffix(rid, requirement_ids_[f.protocol]) + ": the " + f.protocol +
                      " catalogue (suites/" + f.protocol + "/requirements.json; `agentconform requirements --protocol " + f.protocol +
                      "`) has no such requirement");
        } else if (owner->second != f.protocol) {
          problem(f, at + "/requirements/" + std::to_string(j),
                  "requirement '" + rid + "' belongs to " + owner->second + ", not " + f.protocol + ": a case names requirements of its own protocol");
        }
      }
    }
    if (auto features = c.find("features"); features != c.end() && features->is_array()) {
      for (std::size_t j = 0; j < features->size(); ++j) {
        const Json& name = (*features)[j];
        if (name.is_string() && features_[f.protocol].count(name.get<std::string>()) == 0) {
          problem(f, at + "/features/" + std::to_string(j), undeclared_feature(f.protocol, name.get<std::string>()));
        }
      }
    }
    if (auto agents = c.find("agents"); agents != c.end() && agents->is_object()) {
      for (const auto& [name, props] : agents->items()) {
        k.agents.insert(name);
        if (!props.is_object()) continue;
        for (const auto& [key, value] : props.items()) {
          if (key == "id" || k.vocab->agent_properties.count(key) != 0) continue;
          std::string message = "the " + f.protocol + " driver reads no agent property '" + key + "'";
          if (auto near = closest_name(key, k.vocab->agent_properties)) {
            message += " (did you mean '" + *near + "'?)";
          } else {
            message += k.vocab->agent_properties.empty() ? std::string(" (it reads only id)") : " (it reads id, " + join(k.vocab->agent_properties) + ")";
          }
          problem(f, at + "/agents/" + seg(name) + "/" + seg(key), message);
        }
      }
    }
    if (auto ignore = c.find("ignore"); ignore != c.end() && ignore->is_array()) {
      for (std::size_t j = 0; j < ignore->size(); ++j) {
        const std::string p = at + "/ignore/" + std::to_string(j);
        patterns(f, (*ignore)[j], p);
        if ((*ignore)[j].dump().find("${") != std::string::npos) {
          problem(f, p, "ignore patterns are not substituted: a ${...} placeholder here would be compared literally");
        }
      }
    }
    if (auto steps = c.find("steps"); steps != c.end() && steps->is_array()) {
      collect_definitions(*steps, at + "/steps", k.definitions);
      Scope scope;
      walk(k, *steps, at + "/steps", scope);
    }
  }

  static void collect_definitions(const Json& steps, const std::string& at, std::map<std::string, std::string>& out) {
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const Json& s = steps[i];
      const std::string p = at + "/" + std::to_string(i);
      if (!s.is_object()) continue;
      for (const char* key : {"set", "capture"}) {
        if (auto it = s.find(key); it != s.end() && it->is_object()) {
          for (const auto& [name, v] : it->items()) out.emplace(name, p + "/" + key);
        }
      }
      if (auto it = s.find("steps"); it != s.end() && it->is_array()) collect_definitions(*it, p + "/steps", out);
      if (auto it = s.find("parallel"); it != s.end() && it->is_array()) {
        for (std::size_t b = 0; b < it->size(); ++b) {
          if ((*it)[b].is_array()) collect_definitions((*it)[b], p + "/parallel/" + std::to_string(b), out);
        }
      }
    }
  }

  void walk(const CaseContext& k, const Json& steps, const std::string& at, Scope& scope) {
    for (std::size_t i = 0; i < steps.size(); ++i) step(k, steps[i], at + "/" + std::to_string(i), scope);
  }

  void patterns(const File& f, const Json& pattern, const std::string& at) {
    for (const auto& p : check_pattern(pattern)) problem(f, at + p.pointer, p.message);
  }

  bool names_agent(const CaseContext& k, const Json& value, const std::string& at, const std::set<std::string>& also = {}) {
    if (!value.is_string()) return false;
    const std::string name = value.get<std::string>();
    if (k.agents.count(name) != 0 || also.count(name) != 0) return true;
    std::set<std::string> candidates = k.agents;
    candidates.insert(also.begin(), also.end());
    problem(*k.file, at, "the case declares no agent '" + name + "'" + closest_name_suffix(name, candidates) +
                             (k.agents.empty() ? std::string(": its agents map is empty") : " (agents: " + join(k.agents) + ")"));
    return false;
  }

  void step(const CaseContext& k, const Json& s, const std::string& at, Scope& scope) {
    if (!s.is_object()) return;
    step_pointers_.insert(at);
    const File& f = *k.file;
    std::vector<std::string> present;
    for (const auto& a : actions()) {
      if (s.contains(a)) present.push_back(a);
    }
    if (present.size() != 1) {
      covered_.insert(at);
      if (present.size() > 1) {
        problem(f, at, "one action per step, this one has " + join(present) + ": split it into one step per action");
        return;
      }
      std::string message;
      for (const auto& [key, v] : s.items()) {
        if (auto near = closest_name(key, actions())) {
          message = "unknown key '" + key + "' (did you mean '" + *near + "'?)";
          break;
        }
      }
      if (message.empty()) message = "a step needs one action key: " + join(actions());
      problem(f, at, message);
      return;
    }
    const std::string action = present.front();
    step_actions_[at] = action;
    const Json* def = scenario_definition("step_" + action);
    auto [cached, fresh] = step_keys_.try_emplace(action);
    if (fresh && def != nullptr && def->contains("properties")) {
      for (const auto& [key, v] : (*def)["properties"].items()) cached->second.insert(key);
    }
    const std::set<std::string>& allowed = cached->second;
    // Driver options: the schema admits every driver's; this protocol's driver reads its own.
    const std::set<std::string>* options = action == "connect" ? &connect_options_ : action == "send" ? &send_options_ : nullptr;
    const std::set<std::string>* own = action == "connect" ? &k.vocab->connect : action == "send" ? &k.vocab->send : nullptr;
    std::set<std::string> admitted;
    for (const auto& key : allowed) {
      if (options == nullptr || options->count(key) == 0 || own->count(key) != 0) admitted.insert(key);
    }
    for (const auto& [key, v] : s.items()) {
      if (admitted.count(key) != 0) continue;
      if (allowed.count(key) != 0) {
        std::set<std::string> reads;
        for (const auto& o : *own) reads.insert(o);
        problem(f, at, "the " + k.protocol + " driver reads no '" + key + "' in " + article(action) + " step" +
                           (reads.empty() ? std::string(" (it reads no " + action + " options)") : " (it reads " + join(reads) + ")") +
                           "; see " + (k.vocab->file.empty() ? "suites/" + k.protocol + "/variables.json" : k.vocab->file));
        continue;
      }
      std::string message = "unknown key '" + key + "'";
      if (auto near = closest_name(key, admitted)) {
        message += " (did you mean '" + *near + "'?)";
      } else if (auto act = closest_name(key, actions())) {
        message += " (did you mean '" + *act + "'? a step has one action)";
      } else {
        message += ": " + article(action) + " step takes " + join(admitted);
      }
      problem(f, at, message);
    }
    if (def != nullptr && def->contains("required")) {
      for (const auto& key : (*def)["required"]) {
        if (!s.contains(key.get<std::string>())) problem(f, at, article(action) + " step needs '" + key.get<std::string>() + "'");
      }
    }

    // checks: requirements of this case only.
    if (auto checks = s.find("checks"); checks != s.end() && checks->is_array()) {
      for (std::size_t j = 0; j < checks->size(); ++j) {
        if (!(*checks)[j].is_string()) continue;
        const std::string rid = (*checks)[j].get<std::string>();
        if (std::find(k.requirements.begin(), k.requirements.end(), rid) != k.requirements.end()) continue;
        problem(f, at + "/checks/" + std::to_string(j),
                "'" + rid + "' is not one of the case's requirements" + closest_name_suffix(rid, k.requirements) + " (" +
                    join(k.requirements) + "): a step blames only requirements its case names; add it to the case's requirements or fix the id");
      }
    }

    // The agent a step acts on.
    static const std::set<std::string> on_agent = {"connect", "send", "expect", "disconnect", "abort", "accept", "hangup", "expect_http"};
    if (on_agent.count(action) != 0) names_agent(k, s[action], at + "/" + action);
    if (action == "connect" && s.contains("token_of")) names_agent(k, s["token_of"], at + "/token_of");
    if (action == "send" && s.contains("to")) names_agent(k, s["to"], at + "/to", {"broker"});

    // Per action.
    if (action == "connect") {
      if (s.contains("body") && !s.contains("status")) problem(f, at, "'body' is the refusal body a connect expects with 'status': add status, or remove body");
      if (s.contains("body")) patterns(f, s["body"], at + "/body");
    } else if (action == "send") {
      std::vector<std::string> payloads;
      for (const char* key : {"message", "raw", "binary_base64", "frame"}) {
        if (s.contains(key)) payloads.emplace_back(key);
      }
      if (payloads.size() > 1) problem(f, at, "a send step sends one of message, raw, binary_base64 or frame; this one has " + join(payloads));
      if (s.contains("message")) literal_identifiers(k, s["message"], at + "/message");
      if (payloads.size() == 1 && payloads.front() != "message") {
        for (const auto& [key, v] : s.items()) {
          if (key == "fill" || key == "remove" || key == "patch" || key == "capture" || own->count(key) != 0) {
            problem(f, at + "/" + seg(key), "'" + key + "' applies to a message template; it is ignored with " + payloads.front());
          }
        }
      }
    } else if (action == "expect") {
      std::vector<std::string> modes;
      for (const char* key : {"message", "close", "silence_ms", "no_message"}) {
        if (s.contains(key)) modes.emplace_back(key);
      }
      if (modes.empty()) problem(f, at, "an expect step needs one of message, close, silence_ms or no_message");
      if (modes.size() > 1) problem(f, at, "an expect step checks one of message, close, silence_ms or no_message; this one has " + join(modes) + ": split it");
      if (s.contains("within_ms") && !s.contains("no_message")) problem(f, at + "/within_ms", "within_ms is the window of no_message; use timeout_ms, or silence_ms for silence");
      const bool waits_for_one = s.contains("message") || s.contains("close");
      if (s.contains("skip_unmatched") && !waits_for_one) problem(f, at + "/skip_unmatched", "skip_unmatched applies to message and close only");
      if (s.contains("capture") && !s.contains("message")) problem(f, at + "/capture", "capture reads from the expected message: it needs message");
      if (s.contains("or_silence_ms") && !s.contains("close")) problem(f, at + "/or_silence_ms", "or_silence_ms is the other outcome of a close: it needs close");
      if (s.contains("message")) patterns(f, s["message"], at + "/message");
      if (s.contains("no_message")) patterns(f, s["no_message"], at + "/no_message");
    } else if (action == "http") {
      if (s["http"].is_object() && s["http"].contains("body") && s["http"].contains("raw_body")) {
        problem(f, at + "/http", "an HTTP request has body or raw_body, not both");
      }
      if (auto then = s.find("then"); then != s.end() && then->is_object()) {
        if (then->contains("body")) patterns(f, (*then)["body"], at + "/then/body");
        if (auto h = then->find("headers"); h != then->end() && h->is_object()) {
          for (const auto& [name, p] : h->items()) patterns(f, p, at + "/then/headers/" + seg(name));
        }
      }
    } else if (action == "trigger") {
      if (s["trigger"].is_string() && k.vocab->triggers.count(s["trigger"].get<std::string>()) == 0) {
        const std::string name = s["trigger"].get<std::string>();
        problem(f, at + "/trigger", "the " + k.protocol + " driver has no trigger '" + name + "'" +
                                        (k.vocab->triggers.empty() ? std::string(" (it has none)")
                                                                   : closest_name_suffix(name, k.vocab->triggers) + " (it has " + join(k.vocab->triggers) + ")"));
      }
      if (s.contains("result")) patterns(f, s["result"], at + "/result");
    } else if (action == "accept") {
      if (s.contains("body") && !s.contains("refuse")) problem(f, at + "/body", "body is the refusal body sent with 'refuse': add refuse, or remove body");
      if (s.contains("query") && s.contains("refuse")) problem(f, at + "/query", "query is matched on an accepted connection, and 'refuse' accepts none: remove one");
      if (s.contains("query")) patterns(f, s["query"], at + "/query");
    } else if (action == "expect_http") {
      if (s.contains("body")) patterns(f, s["body"], at + "/body");
    }

    // Placeholders, then what this step defines.
    std::optional<std::set<std::string>> names;  // computed at the first placeholder
    for (const auto& [key, v] : s.items()) {
      if (key == "steps" || key == "parallel") continue;
      if (action == "expect_http" && key == "respond" && s.contains("capture") && s["capture"].is_object()) {
        Scope answered = scope;  // the answer is built after the request was captured
        for (const auto& [name, ptr] : s["capture"].items()) answered.defined.insert(name);
        std::optional<std::set<std::string>> answered_names;
        placeholders(k, v, at + "/" + seg(key), answered, answered_names);
        continue;
      }
      placeholders(k, v, at + "/" + seg(key), scope, names);
    }
    if (auto inner_steps = s.find("steps"); action == "repeat" && inner_steps != s.end() && inner_steps->is_array()) {
      Scope inner = scope;
      inner.in_repeat = true;
      walk(k, *inner_steps, at + "/steps", inner);
      scope.defined.insert(inner.defined.begin(), inner.defined.end());  // a repeat runs at least once
    }
    if (action == "parallel" && s["parallel"].is_array()) {
      std::set<std::string> after = scope.defined;
      for (std::size_t b = 0; b < s["parallel"].size(); ++b) {
        if (!s["parallel"][b].is_array()) continue;
        Scope branch = scope;  // a branch sees what was defined before the parallel, and its own
        walk(k, s["parallel"][b], at + "/parallel/" + std::to_string(b), branch);
        after.insert(branch.defined.begin(), branch.defined.end());
      }
      scope.defined = std::move(after);
    }
    for (const char* key : {"set", "capture"}) {
      if (auto it = s.find(key); it != s.end() && it->is_object()) {
        for (const auto& [name, v] : it->items()) scope.defined.insert(name);
      }
    }
  }

  // --- identifiers ---

  // A literal identifier in a sent message is shared by every run of the case and, copied, by
  // other cases: a target that keys state by it (sessions by guild and channel, a registry that
  // refuses a reused id) mixes cases that run in parallel. Each must come from a placeholder.
  void literal_identifiers(const CaseContext& k, const Json& v, const std::string& at) {
    if (k.vocab == nullptr || k.vocab->identifiers.empty()) return;
    if (v.is_object()) {
      for (const auto& [key, e] : v.items()) {
        const bool literal_string = e.is_string() && !e.get_ref<const std::string&>().empty() && e.get_ref<const std::string&>().find("${") == std::string::npos;
        const bool literal_list = e.is_array() && std::any_of(e.begin(), e.end(), [](const Json& x) {
          return x.is_string() && !x.get_ref<const std::string&>().empty() && x.get_ref<const std::string&>().find("${") == std::string::npos;
        });
        if (k.vocab->identifiers.count(key) != 0 && (literal_string || literal_list)) {
          problem(*k.file, at + "/" + seg(key),
                  "literal identifier " + show(e) + " in " + key + ": parallel cases would share it (a target may key state by it); write it from the "
                  "case's namespace, e.g. \"${ns}-1\" (or ${uuid}, ${<agent>.id}); " + k.vocab->file + " lists the members under \"identifiers\"");
          continue;
        }
        literal_identifiers(k, e, at + "/" + seg(key));
      }
    } else if (v.is_array()) {
      for (std::size_t i = 0; i < v.size(); ++i) literal_identifiers(k, v[i], at + "/" + std::to_string(i));
    }
  }

  // --- placeholders ---

  std::set<std::string> visible(const CaseContext& k, const Scope& scope) const {
    std::set<std::string> out = scope.defined;
    out.insert("uuid");
    out.insert("now");
    out.insert("ns");
    if (scope.in_repeat) out.insert("i");
    for (const auto& a : k.agents) {
      out.insert(a + ".id");
      for (const auto& v : k.vocab->variables) {
        if (v.starts_with("<agent>.")) out.insert(a + v.substr(7));
      }
    }
    if (!k.agents.empty()) {
      for (const auto& v : k.vocab->variables) {
        if (!v.starts_with("<agent>.")) out.insert(v);
      }
    }
    return out;
  }

  void placeholders(const CaseContext& k, const Json& v, const std::string& at, const Scope& scope,
                    std::optional<std::set<std::string>>& names) {
    if (v.is_object()) {
      for (const auto& [key, e] : v.items()) {
        text_placeholders(k, key, at, scope, names);
        placeholders(k, e, at + "/" + seg(key), scope, names);
      }
    } else if (v.is_array()) {
      for (std::size_t i = 0; i < v.size(); ++i) placeholders(k, v[i], at + "/" + std::to_string(i), scope, names);
    } else if (v.is_string()) {
      text_placeholders(k, v.get_ref<const std::string&>(), at, scope, names);
    }
  }

  void text_placeholders(const CaseContext& k, const std::string& text, const std::string& at, const Scope& scope,
                         std::optional<std::set<std::string>>& names) {
    if (text.find("${") == std::string::npos) return;
    std::size_t i = 0;
    while (i < text.size()) {
      if (text.compare(i, 3, "$${") == 0) {
        i += 3;
        continue;
      }
      if (text.compare(i, 2, "${") != 0) {
        ++i;
        continue;
      }
      const auto end = text.find('}', i + 2);
      if (end == std::string::npos) {
        problem(*k.file, at, "unterminated ${ in " + show(Json(text)) + ": close it with }, or write $${ for a literal ${");
        return;
      }
      const std::string name = text.substr(i + 2, end - i - 2);
      i = end + 1;
      if (!names) names = visible(k, scope);
      if (names->count(name) != 0) continue;
      problem(*k.file, at, undefined(k, name, *names, scope));
    }
  }

  std::string undefined(const CaseContext& k, const std::string& name, const std::set<std::string>& names, const Scope& scope) const {
    std::string message = "undefined placeholder ${" + name + "}";
    const auto dot = name.find('.');
    if (name == "i" && !scope.in_repeat) return message + ": ${i} is defined only inside a repeat step";
    if (auto later = k.definitions.find(name); later != k.definitions.end()) {
      return message + ": it is defined only by " + later->second + ", which does not run before this step (in step order; a capture inside a parallel branch counts after the parallel)";
    }
    if (dot != std::string::npos) {
      const std::string agent = name.substr(0, dot), suffix = name.substr(dot);
      const bool agent_variable = suffix == ".id" || k.vocab->variables.count("<agent>" + suffix) != 0;
      if (agent_variable && k.agents.count(agent) == 0) {
        return message + ": the case declares no agent '" + agent + "'" + closest_name_suffix(agent, k.agents);
      }
    }
    if (k.agents.empty() && (k.vocab->variables.count(name) != 0)) {
      return message + ": the " + k.protocol + " driver defines it only in cases that declare an agent";
    }
    std::vector<std::string> candidates(names.begin(), names.end());
    if (auto near = closest_name(name, candidates)) return message + " (did you mean ${" + *near + "}?)";
    return message + ": define it with an earlier set or capture step; the built-ins are ${uuid}, ${now}, ${ns}, ${i} (in repeat), ${<agent>.id}, and the " +
           k.protocol + " driver's variables are in " + (k.vocab->file.empty() ? "suites/" + k.protocol + "/variables.json" : k.vocab->file);
  }

  LintOptions o_;
  LintResult result_;
  std::shared_ptr<schema::SchemaStore> store_;
  std::vector<File> files_;
  std::map<std::string, Vocabulary> vocab_;
  std::set<std::string> connect_options_, send_options_;
  std::map<std::string, std::set<std::string>> features_;
  std::map<std::string, std::string> features_source_;
  std::set<std::string> catalogues_;
  std::map<std::string, Located> requirement_at_;
  std::map<std::string, std::string> requirement_protocol_;
  std::map<std::string, std::vector<std::string>> requirement_ids_;
  std::map<std::string, Located> case_at_;
  std::map<std::string, std::vector<std::string>> reported_;  // file -> pointers with a problem
  std::set<std::string> seen_;                                // file, pointer and message of each problem
  std::set<std::string> step_pointers_;  // of the suite file being checked
  std::map<std::string, std::string> step_actions_;  // step pointer -> its action
  std::set<std::string> covered_;        // pointers whose schema violations the walker explained
  std::vector<std::string> actions_;
  std::map<std::string, std::set<std::string>> step_keys_;  // action -> the keys its schema admits
  std::map<std::string, std::unique_ptr<re2::RE2>> regexes_;  // propertyNames patterns, compiled once
};

}  // namespace

Expected<LintResult, std::string> lint_suites(const LintOptions& options) { return Linter(options).run(); }

}  // namespace ac::engine
