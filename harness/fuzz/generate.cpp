// The generator (see generate.hpp for the families). Field mutations first look up the schema
// of the message being mutated (schemas/<protocol>/index.json maps its type to a schema file)
// and break exactly what the schema says at the chosen member; members the schema says nothing
// about get generic damage.
#include "harness/fuzz/generate.hpp"

#include <cctype>
#include <limits>
#include <string>

#include "harness/fuzz/profiles/profiles.hpp"

namespace ac::fuzz {
namespace {

// ----------------------------------------------------------------------------------------------
// Schema lookup

// Follows $ref (absolute after loading, see SchemaStore::document) to the node it names.
const Json* resolve(const Json* node, int depth = 0) {
  const auto& store = proto::Catalog::builtin().store();
  while (node != nullptr && node->is_object() && node->contains("$ref") && depth++ < 16) {
    const auto& ref = (*node)["$ref"];
    if (!ref.is_string()) return nullptr;
    const std::string r = ref.get<std::string>();
    const auto hash = r.find('#');
    const Json* doc = store.document(r.substr(0, hash));
    if (doc == nullptr) return nullptr;
    if (hash == std::string::npos || hash + 1 >= r.size()) {
      node = doc;
      continue;
    }
    try {
      const Json::json_pointer p(r.substr(hash + 1));
      node = doc->contains(p) ? &(*doc)[p] : nullptr;
    } catch (const Json::exception&) {
      return nullptr;
    }
  }
  return node;
}

// The sub-schemas a node applies (itself and its allOf), resolved.
std::vector<const Json*> parts(const Json* node) {
  std::vector<const Json*> out;
  node = resolve(node);
  if (node == nullptr || !node->is_object()) return out;
  out.push_back(node);
  if (auto all = node->find("allOf"); all != node->end() && all->is_array()) {
    for (const auto& sub : *all) {
      for (const Json* p : parts(&sub)) out.push_back(p);
    }
  }
  return out;
}

const Json* child(const Json* node, const std::string& token) {
  for (const Json* p : parts(node)) {
    if (auto props = p->find("properties"); props != p->end() && props->is_object() && props->contains(token)) {
      return resolve(&(*props)[token]);
    }
    if (auto items = p->find("items"); items != p->end() && !token.empty() && std::isdigit(static_cast<unsigned char>(token[0]))) {
      return resolve(&*items);
    }
  }
  return nullptr;
}

// The schema node of the member at `pointer` of a message, or null.
const Json* schema_at(Protocol protocol, const Json& message, const Json::json_pointer& pointer) {
  const auto& codec = profile_of(protocol);
  auto key = codec.key_of(message);
  const proto::MessageSpec* spec = key ? codec.message(*key) : nullptr;
  if (spec == nullptr) return nullptr;
  const Json* node = proto::Catalog::builtin().store().document(spec->schema);
  std::string path = pointer.to_string();
  std::size_t at = 1;
  while (node != nullptr && at <= path.size() && !path.empty()) {
    const std::size_t slash = std::min(path.find('/', at), path.size());
    std::string token = path.substr(at, slash - at);
    for (std::size_t i; (i = token.find("~1")) != std::string::npos;) token.replace(i, 2, "/");
    for (std::size_t i; (i = token.find("~0")) != std::string::npos;) token.replace(i, 2, "~");
    node = child(node, token);
    at = slash + 1;
  }
  return resolve(node);
}

std::vector<std::string> required_of(const Json* node) {
  std::vector<std::string> out;
  for (const Json* p : parts(node)) {
    if (auto req = p->find("required"); req != p->end() && req->is_array()) {
      for (const auto& r : *req) {
        if (r.is_string()) out.push_back(r.get<std::string>());
      }
    }
  }
  return out;
}

// A value breaking what the schema node asks, or discarded when it asks nothing breakable.
Json break_schema(Rng& rng, const Json& node, const Json& current) {
  std::vector<Json> options;
  for (const Json* p : parts(&node)) {
    if (auto t = p->find("type"); t != p->end() && t->is_string()) {
      const std::string type = t->get<std::string>();
      if (type != "string") options.push_back("not-a-" + type);
      if (type != "object") options.push_back(Json::object());
      if (type != "integer" && type != "number") options.push_back(7);
      if (type == "integer") options.push_back(1.5);
      if (type != "array") options.push_back(Json::array({current}));
      if (type != "boolean") options.push_back(false);
    }
    if (auto e = p->find("enum"); e != p->end() && e->is_array() && !e->empty() && (*e)[0].is_string()) {
      options.push_back((*e)[0].get<std::string>() + "_X");
      const Json& member = (*e)[pick(rng, e->size())];
      if (member.is_string() && !member.get<std::string>().empty()) {
        std::string flipped = member.get<std::string>();  // the same word in another letter case
        flipped[0] = static_cast<char>(std::isupper(static_cast<unsigned char>(flipped[0])) ? std::tolower(flipped[0]) : std::toupper(flipped[0]));
        options.push_back(flipped);
      }
    }
    if (auto c = p->find("const"); c != p->end() && c->is_string()) options.push_back(c->get<std::string>() + " ");
    if (auto f = p->find("format"); f != p->end() && f->is_string()) {
      const std::string format = f->get<std::string>();
      if (format == "uuid") options.push_back("770g0600-g40d-63f6-c938-668877662222");
      else if (format == "date-time") options.push_back(chance(rng, 0.5) ? Json("2026-13-45T25:61:00Z") : Json("yesterday"));
      else options.push_back("not a " + format);
    }
    if (p->contains("pattern")) options.push_back(chance(rng, 0.5) ? Json("!!") : Json("1.2.3.4.5-"));
    if (auto m = p->find("maxLength"); m != p->end() && m->is_number_unsigned() && m->get<std::size_t>() < 100000) {
      options.push_back(std::string(m->get<std::size_t>() + 1, 'x'));
    }
    if (auto m = p->find("minLength"); m != p->end() && m->is_number_unsigned() && m->get<std::size_t>() > 0) options.push_back("");
    if (auto m = p->find("minimum"); m != p->end() && m->is_number()) options.push_back(m->get<double>() - 1);
    if (auto m = p->find("maximum"); m != p->end() && m->is_number()) options.push_back(m->get<double>() + 1);
    if (auto a = p->find("additionalProperties"); a != p->end() && a->is_boolean() && !a->get<bool>() && current.is_object()) {
      Json extended = current;
      extended["x_unknown_member"] = "not in the schema";
      options.push_back(std::move(extended));
    }
  }
  if (options.empty()) return Json(Json::value_t::discarded);
  return options[pick(rng, options.size())];
}

// ----------------------------------------------------------------------------------------------
// Generic field damage

void collect_pointers(const Json& j, const Json::json_pointer& at, std::vector<Json::json_pointer>& out) {
  if (out.size() >= 96) return;
  out.push_back(at);
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) collect_pointers(it.value(), at / it.key(), out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size() && i < 16; ++i) collect_pointers(j[i], at / i, out);
  }
}

Json swap_type(Rng& rng) {
  static const Json values[] = {42, -1, 1.5, true, false, nullptr, "str", Json::array(), Json::object()};
  return values[pick(rng, std::size(values))];
}

Json boundary_number(Rng& rng) {
  switch (pick(rng, 9)) {
    case 0: return 1e308;
    case 1: return -1e308;
    case 2: return -0.0;
    case 3: return std::int64_t{9007199254740993};
    case 4: return std::numeric_limits<std::int64_t>::min();
    case 5: return std::numeric_limits<std::uint64_t>::max();
    case 6: return 2147483648LL;
    case 7: return -1;
    default: return 5e-324;
  }
}

std::string unicode_edge(Rng& rng) {
  static const char* values[] = {"\xE2\x80\xAE", "\xF0\x9F\x98\x80", "\xEF\xBF\xBF", "e\xCC\x81", "\xE2\x80\x8B",
                                 "\xEF\xBB\xBF", "\xF4\x8F\xBF\xBF", "\xC2\x85", "\\u0000", "\xE2\x80\xA8"};
  return values[pick(rng, std::size(values))];
}

Json deep_nesting(Rng& rng) {
  static const std::size_t depths[] = {32, 127, 129, 200, 1000};
  Json j = Json::array();
  const std::size_t depth = depths[pick(rng, std::size(depths))];
  for (std::size_t i = 1; i < depth; ++i) j = Json::array({std::move(j)});
  return j;
}

void remove_at(Json& doc, const Json::json_pointer& at) {
  Json& parent = doc[at.parent_pointer()];
  if (parent.is_object()) parent.erase(at.back());
  else doc[at] = nullptr;
}

// ---- classic damage: what breaks parsers and the code behind them (issue 12), spliced into the
// message as raw text where a JSON value cannot carry it (numbers past a double, lone surrogates,
// bytes that are not UTF-8, nesting deeper than a serializer recurses).

struct Classic {
  std::string raw;   // the JSON text put in place of the value
  std::string kind;  // stable, for the culprit's signature: "NUL in a string", "deep nesting", ...
  std::string what;  // precise, for the session's description
};

std::string escape_json(const std::string& s) { return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace); }

// `current` with `insert` (raw JSON string content) at its start, middle or end, as a JSON string.
std::string with_raw(Rng& rng, const std::string& current, const std::string& insert) {
  std::string body = escape_json(current);
  body = body.substr(1, body.size() - 2);
  std::size_t at = 0;
  switch (pick(rng, 3)) {
    case 0: at = 0; break;
    case 1: at = body.size() / 2; break;
    default: at = body.size(); break;
  }
  while (at > 0 && at < body.size() && (body[at - 1] == '\\' || (static_cast<unsigned char>(body[at]) & 0xC0) == 0x80)) --at;
  return "\"" + body.substr(0, at) + insert + body.substr(at) + "\"";
}

Classic classic_string(Rng& rng, const std::string& current) {
  const double draw = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  if (draw < 0.35) return {with_raw(rng, current, "\\u0000"), "NUL in a string", "NUL (\\u0000) in a string"};
  if (draw < 0.50) {
    static const char* controls[] = {"\\u0001", "\\u001b[31m", "\\b", "\\f", "\\r\\n", "\\t", "\\u007f", "\\u0085", "\\u001f", "\\u2028"};
    const char* c = controls[pick(rng, std::size(controls))];
    return {with_raw(rng, current, c), "control character in a string", std::string("control character ") + c + " in a string"};
  }
  if (draw < 0.55) {
    // Unescaped: not JSON any more (a strict reader refuses it; a lenient one may not).
    static const char* raw[] = {"\x01", "\x1f", "\n", "\t", "\x7f"};
    return {with_raw(rng, current, raw[pick(rng, std::size(raw))]), "raw control byte in a string", "unescaped control byte in a string"};
  }
  if (draw < 0.68) {
    static const char* lone[] = {"\\ud800", "\\udfff", "\\udc00\\ud800", "\\ud83d", "\\ud800\\u0041"};
    const char* l = lone[pick(rng, std::size(lone))];
    return {with_raw(rng, current, l), "lone surrogate in a string", std::string("lone UTF-16 surrogate ") + l + " in a string"};
  }
  if (draw < 0.84) {
    // Bytes that are not UTF-8 inside a well-formed JSON string: overlong forms, CESU-8
    // surrogates, truncated sequences, bytes that never occur.
    static const char* bad[] = {"\xC0\xAF", "\xE0\x80\xAF", "\xF0\x80\x80\xAF", "\xC1\xBF", "\xED\xA0\x80", "\xED\xBF\xBF",
                                "\xE2\x82", "\xFF", "\xFE", "\xF8\x88\x80\x80\x80", "\xC0\x80"};
    return {with_raw(rng, current, bad[pick(rng, std::size(bad))]), "invalid UTF-8 in a string", "invalid or overlong UTF-8 in a string"};
  }
  if (draw < 0.88) {
    // (Strings near a 1 MiB frame limit are rare: the framing family sends oversized frames.)
    const std::size_t n = chance(rng, 0.95) ? 64 * 1024 : 900 * 1024;
    return {"\"" + std::string(n, 'A') + "\"", "huge string", std::to_string(n / 1024) + " KiB string"};
  }
  // Empty strings stay frequent (empty ids, chunks, names: a classic of their own).
  return {"\"\"", "empty string", "empty string"};
}

Classic classic_number(Rng& rng) {
  static const char* numbers[] = {"1e308",  "-1e308", "1e309",         "-1e309",  "1e-400", "5e-324", "-0", "-0.0",
                                  "9007199254740993", "18446744073709551616", "-9223372036854775809", "123456789012345678901234567890123456789",
                                  "1E+999999", "1.7976931348623157e308", "2147483648", "-2147483649", "4294967296", "0.1e1",
                                  "1e-7", "100000000000000000000000"};
  const char* n = numbers[pick(rng, std::size(numbers))];
  return {n, "extreme number", std::string("number ") + n};
}

Classic classic_nesting(Rng& rng) {
  // At and past the limits parsers and serializers commonly have (64, 100, 128, 256, 512, 1000,
  // 1024; a recursive serializer runs out of stack somewhere in the thousands).
  static const std::size_t depths[] = {64, 100, 128, 129, 256, 512, 1000, 1001, 1024, 5000, 10000};
  const std::size_t depth = depths[pick(rng, std::size(depths))];
  std::string raw;
  if (chance(rng, 0.5)) {
    raw = std::string(depth, '[') + std::string(depth, ']');
  } else {
    for (std::size_t i = 0; i < depth; ++i) raw += "{\"a\":";
    raw += "1" + std::string(depth, '}');
  }
  return {raw, "deep nesting", "nesting " + std::to_string(depth) + " deep"};
}

// The field path for the culprit's signature: array indexes as "*" (the same field in a shorter or
// longer list).
std::string field_path(const Json::json_pointer& at) {
  std::string p = at.to_string();
  std::string out;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '/' && i + 1 < p.size() && std::isdigit(static_cast<unsigned char>(p[i + 1]))) {
      std::size_t j = i + 1;
      while (j < p.size() && std::isdigit(static_cast<unsigned char>(p[j]))) ++j;
      if (j == p.size() || p[j] == '/') {
        out += "/*";
        i = j - 1;
        continue;
      }
    }
    out += p[i];
  }
  return out.empty() ? "/" : out;
}

std::string message_type_of(const Json& doc) {
  for (const char* key : {"type", "message_type", "intent"}) {
    if (doc.is_object() && doc.contains(key) && doc[key].is_string() && !doc[key].get<std::string>().empty()) return doc[key].get<std::string>();
  }
  return "message";
}

// Replaces the value at `at` with raw JSON text.
std::string splice(Json doc, const Json::json_pointer& at, const std::string& raw) {
  static const std::string marker = "\x01" "agentconform-splice" "\x01";
  doc[at] = marker;
  std::string text = doc.dump();
  const std::string quoted = Json(marker).dump();
  const auto pos = text.find(quoted);
  if (pos != std::string::npos) text.replace(pos, quoted.size(), raw);
  return text;
}

struct FieldDamage {
  std::string text;  // the damaged message
  std::string kind;  // stable kind of damage
  std::string what;  // precise description
};

// The same character damage in every string of the message at once (what a parser, a logger, a
// file name or a database does with it is then tried wherever the message carries text).
FieldDamage spray(Rng& rng, Json doc, const std::vector<Json::json_pointer>& strings) {
  static const char* inserts[][2] = {{"\\u0000", "NUL"}, {"\\u0000", "NUL"}, {"\\u001b", "control character"},
                                     {"\\ud800", "lone surrogate"}, {"\xC0\xAF", "invalid UTF-8"}};
  const auto& chosen = inserts[pick(rng, std::size(inserts))];
  const std::string type = message_type_of(doc);
  std::vector<std::pair<std::string, std::string>> marks;  // marker JSON text -> damaged JSON text
  for (std::size_t i = 0; i < strings.size(); ++i) {
    const std::string marker = "\x01agentconform-spray-" + std::to_string(i) + "\x01";
    marks.emplace_back(Json(marker).dump(), with_raw(rng, doc[strings[i]].get<std::string>(), chosen[0]));
    doc[strings[i]] = marker;
  }
  std::string text = doc.dump();
  for (const auto& [marker, raw] : marks) {
    if (const auto pos = text.find(marker); pos != std::string::npos) text.replace(pos, marker.size(), raw);
  }
  const std::string kind = std::string(chosen[1]) + " in every string";
  return {text, kind + " at " + type, kind};
}

FieldDamage classic(Rng& rng, const Json& doc, const std::vector<Json::json_pointer>& pointers) {
  // Strings get string damage most of the time; any member (a structure included) may become a
  // number or a deep structure.
  std::vector<Json::json_pointer> strings;
  for (const auto& p : pointers) {
    if (!p.empty() && doc[p].is_string()) strings.push_back(p);
  }
  if (strings.size() > 1 && chance(rng, 0.2)) return spray(rng, doc, strings);
  const double draw = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  Classic c;
  Json::json_pointer at;
  if (draw < 0.6 && !strings.empty()) {
    at = strings[pick(rng, strings.size())];
    c = classic_string(rng, doc[at].get<std::string>());
  } else {
    at = pointers.size() > 1 ? pointers[1 + pick(rng, pointers.size() - 1)] : pointers[0];
    if (at.empty()) return {doc.dump(), "", ""};
    c = chance(rng, 0.45) ? classic_number(rng) : classic_nesting(rng);
  }
  const std::string where = message_type_of(doc) + " " + field_path(at);
  return {splice(doc, at, c.raw), c.kind + " at " + where, c.what + " at " + at.to_string()};
}

FieldDamage mutate_field(Rng& rng, Protocol protocol, Json doc) {
  std::vector<Json::json_pointer> pointers;
  collect_pointers(doc, Json::json_pointer(), pointers);
  const std::string type = message_type_of(doc);
  if (pointers.size() > 1 && chance(rng, 0.5)) {
    auto c = classic(rng, doc, pointers);
    if (!c.kind.empty()) return c;
  }
  // Prefer members over the root: the root only gets an extra member.
  const Json::json_pointer at = pointers.size() > 1 ? pointers[1 + pick(rng, pointers.size() - 1)] : pointers[0];
  if (at.empty()) {
    if (doc.is_object()) doc["x-fuzz-" + std::to_string(pick(rng, 100))] = swap_type(rng);
    return {doc.dump(), "extra member at " + type, "extra member"};
  }
  const std::string where = " at " + type + " " + field_path(at);
  // Schema-guided, most of the time.
  if (chance(rng, 0.6)) {
    const Json* parent_schema = schema_at(protocol, doc, at.parent_pointer());
    const auto required = required_of(parent_schema);
    if (!required.empty() && chance(rng, 0.3)) {
      const std::string name = required[pick(rng, required.size())];
      Json& parent = doc[at.parent_pointer()];
      if (parent.is_object() && parent.contains(name)) {
        parent.erase(name);
        return {doc.dump(), "required member removed at " + type + " " + field_path(at.parent_pointer() / name),
                "required member " + (at.parent_pointer() / name).to_string() + " removed"};
      }
    }
    if (const Json* node = schema_at(protocol, doc, at)) {
      Json broken = break_schema(rng, *node, doc[at]);
      if (!broken.is_discarded()) {
        doc[at] = std::move(broken);
        return {doc.dump(), "schema rule broken" + where, "schema rule broken at " + at.to_string()};
      }
    }
  }
  Json& node = doc[at];
  std::string kind;
  if (node.is_string()) {
    switch (pick(rng, 10)) {
      case 0: case 1: node = ""; kind = "empty string"; break;
      case 2: node = std::string(64 * 1024, 'A'); kind = "huge string"; break;
      case 3: node = node.get<std::string>() + unicode_edge(rng); kind = "unicode edge in a string"; break;
      case 4: node = std::string("a\0b", 3); kind = "NUL in a string"; break;
      case 5: {
        static const char* suffixes[] = {"x", ".0", "-beta", " ", "\n"};
        node = node.get<std::string>() + suffixes[pick(rng, std::size(suffixes))];
        kind = "suffix on a string";
        break;
      }
      case 6: node = node.get<std::string>() + std::string(1, '\0'); kind = "NUL in a string"; break;
      case 7: node = swap_type(rng); kind = "type swapped"; break;
      case 8: remove_at(doc, at); kind = "member removed"; break;
      default: node = deep_nesting(rng); kind = "deep nesting"; break;
    }
    return {doc.dump(), kind + where, kind + " at " + at.to_string()};
  }
  switch (pick(rng, 6)) {
    case 0: node = swap_type(rng); kind = "type swapped"; break;
    case 1: node = boundary_number(rng); kind = "extreme number"; break;
    case 2: node = deep_nesting(rng); kind = "deep nesting"; break;
    case 3:
      if (node.is_object()) node["x-extra"] = "extra";
      else node = Json::object({{"x-extra", true}});
      kind = "extra member";
      break;
    case 4: remove_at(doc, at); kind = "member removed"; break;
    default: node = ""; kind = "empty string"; break;
  }
  return {doc.dump(), kind + where, kind + " at " + at.to_string()};
}

// Damage only raw text can carry: duplicate keys, truncation, trailing garbage, a BOM.
std::string mutate_raw(Rng& rng, std::string data, std::string& kind) {
  switch (pick(rng, 4)) {
    case 0:
      kind = "duplicate member";
      if (!data.empty() && data.front() == '{') {
        // A member repeated with another value: two parsers may read different messages.
        const auto colon = data.find("\":");
        const auto quote = data.find('"');
        if (colon != std::string::npos && quote != std::string::npos && quote < colon) {
          data.insert(1, data.substr(quote, colon + 2 - quote) + "\"dup\",");
        }
      }
      return data;
    case 1: kind = "truncated text"; return data.substr(0, pick(rng, data.size()));
    case 2: {
      static const std::string tails[] = {"}", " x", ",", "\n{}", std::string("\0", 1)};
      kind = "trailing garbage";
      return data + tails[pick(rng, std::size(tails))];
    }
    default: kind = "byte-order mark"; return "\xEF\xBB\xBF" + data;
  }
}

// A mutation's description without what varies from session to session (step numbers, counts):
// the tag its steps carry, which names the culprit of a crash or hang seen from outside.
std::string stable_kind(const std::string& what) {
  // " in step 4", " at step 4", " (step 4)", " step 4" go; other numbers become N.
  std::string out;
  for (std::size_t i = 0; i < what.size();) {
    bool cut = false;
    for (const char* p : {" (in step ", " (at step ", " (to step ", " in step ", " at step ", " to step ", " (step ", " step "}) {
      const std::size_t n = std::char_traits<char>::length(p);
      if (what.compare(i, n, p) != 0) continue;
      std::size_t j = i + n;
      if (j >= what.size() || !std::isdigit(static_cast<unsigned char>(what[j]))) continue;
      while (j < what.size() && std::isdigit(static_cast<unsigned char>(what[j]))) ++j;
      if (p[1] == '(' && j < what.size() && what[j] == ')') ++j;
      i = j;
      cut = true;
      break;
    }
    if (cut) continue;
    if (std::isdigit(static_cast<unsigned char>(what[i]))) {
      while (i < what.size() && std::isdigit(static_cast<unsigned char>(what[i]))) ++i;
      out += 'N';
      continue;
    }
    out += what[i++];
  }
  return out;
}

// Tags the steps a mutation made or changed (those with no equal step before it).
void tag_changes(const std::vector<Step>& before, std::vector<Step>& after, const std::string& kind) {
  std::vector<bool> used(before.size(), false);
  for (auto& step : after) {
    bool matched = false;
    for (std::size_t i = 0; i < before.size() && !matched; ++i) {
      if (!used[i] && before[i] == step) used[i] = matched = true;
    }
    if (!matched) tag(step, kind);
  }
}

// ----------------------------------------------------------------------------------------------
// Structure, framing, timing

std::vector<std::size_t> steps_of(const std::vector<Step>& s, Step::Kind kind) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i].kind == kind) out.push_back(i);
  }
  return out;
}

std::string generic_structure(Rng& rng, std::vector<Step>& s) {
  if (s.size() < 2) return "structure: nothing to do";
  const std::size_t i = pick(rng, s.size());
  const std::size_t j = pick(rng, s.size());
  const std::string at = std::to_string(i);
  switch (pick(rng, 4)) {
    case 0: s.erase(s.begin() + static_cast<std::ptrdiff_t>(i)); return "structure: drop step " + at;
    case 1: {
      Step copy = s[i];
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(std::max(i, j)), std::move(copy));
      return "structure: replay step " + at + " at " + std::to_string(std::max(i, j));
    }
    case 2: {
      Step moved = s[i];
      s.erase(s.begin() + static_cast<std::ptrdiff_t>(i));
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(std::min(j, s.size())), std::move(moved));
      return "structure: move step " + at + " to " + std::to_string(std::min(j, s.size()));
    }
    default: std::swap(s[i], s[j]); return "structure: swap steps " + at + " and " + std::to_string(j);
  }
}

std::string framing(Rng& rng, std::vector<Step>& s) {
  auto texts = steps_of(s, Step::Kind::text);
  if (texts.empty()) return "framing: nothing to do";
  Step& step = s[texts[pick(rng, texts.size())]];
  step.repeat = 1;
  switch (pick(rng, 12)) {
    case 0: case 1: step.kind = Step::Kind::binary; return "framing: binary instead of text";
    case 2: case 3: {
      static const char* bad[] = {"\xC3\x28", "\xFF", "\xED\xA0\x80", "\xF8\x88\x80\x80\x80", "\xC0\xAF"};
      step.data.insert(pick(rng, step.data.size() + 1), bad[pick(rng, std::size(bad))]);
      return "framing: invalid UTF-8 in a text frame";
    }
    case 4: case 5: case 6: case 7: {
      const std::size_t parts = 2 + pick(rng, 3);
      const int control = static_cast<int>(pick(rng, 4));  // 0, 1: none; 2: ping; 3: pong
      std::vector<RawFrame> frames;
      const std::size_t size = step.data.size();
      std::size_t from = 0;
      for (std::size_t p = 0; p < parts; ++p) {
        const std::size_t to = p + 1 == parts ? size : std::min(size, from + pick(rng, size - from + 1));
        frames.push_back(RawFrame{static_cast<std::uint8_t>(p == 0 ? 0x1 : 0x0), p + 1 == parts, 0, step.data.substr(from, to - from)});
        if (control >= 2 && p == 0) frames.push_back(RawFrame{static_cast<std::uint8_t>(control == 2 ? 0x9 : 0xA), true, 0, "fuzz"});
        from = to;
      }
      step.kind = Step::Kind::frames;
      step.frames = std::move(frames);
      step.data.clear();
      return control >= 2 ? "framing: fragmented, a control frame between fragments" : "framing: fragmented";
    }
    case 8:
      step.kind = Step::Kind::frames;
      step.frames = {RawFrame{static_cast<std::uint8_t>(chance(rng, 0.5) ? 0x3 : 0xB), true, 0, step.data}};
      step.data.clear();
      return "framing: reserved opcode";
    case 9:
      step.kind = Step::Kind::frames;
      step.frames = {RawFrame{0x1, true, static_cast<std::uint8_t>(1 + pick(rng, 7)), step.data}};
      step.data.clear();
      return "framing: RSV bits set";
    case 10:
      // A continuation frame with no message to continue, then the message itself.
      step.kind = Step::Kind::frames;
      step.frames = {RawFrame{0x0, true, 0, "orphan"}, RawFrame{0x1, true, 0, step.data}};
      step.data.clear();
      return "framing: continuation without a message";
    default:
      step.data += std::string(1100 * 1024, ' ');  // beyond the usual 1 MiB message limit
      return "framing: oversized frame";
  }
}

std::string timing(Rng& rng, std::vector<Step>& s) {
  auto texts = steps_of(s, Step::Kind::text);
  const auto labels = connection_labels(s);
  switch (pick(rng, 5)) {
    case 0: {
      // Slow drip: one message in small fragments with pauses.
      if (texts.empty()) return {};
      Step& step = s[texts[pick(rng, texts.size())]];
      const std::size_t n = std::min<std::size_t>(step.data.size(), 3 + pick(rng, 4));
      if (n < 2) return {};
      std::vector<RawFrame> frames;
      const std::size_t piece = (step.data.size() + n - 1) / n;
      for (std::size_t i = 0; i * piece < step.data.size(); ++i) {
        const bool last = (i + 1) * piece >= step.data.size();
        frames.push_back(RawFrame{static_cast<std::uint8_t>(i == 0 ? 0x1 : 0x0), last, 0, step.data.substr(i * piece, piece),
                                  static_cast<int>(1 + pick(rng, 8))});  // a few ms: TCP segments apart
      }
      step.kind = Step::Kind::frames;
      step.frames = std::move(frames);
      step.data.clear();
      step.repeat = 1;
      return "timing: slow drip";
    }
    case 1: {
      Step pause;
      pause.kind = Step::Kind::sleep;
      pause.conn = labels.empty() ? "a" : labels[0];
      pause.ms = static_cast<int>(1 + pick(rng, 25));
      const std::size_t at = pick(rng, s.size() + 1);
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), pause);
      return "timing: pause at step " + std::to_string(at);
    }
    case 2: {
      if (texts.empty()) return {};
      const std::size_t i = texts[pick(rng, texts.size())];
      s[i].repeat = static_cast<int>(10 + pick(rng, 90));
      return "timing: burst of " + std::to_string(s[i].repeat) + " at step " + std::to_string(i);
    }
    case 3: {
      if (labels.empty()) return {};
      Step cut;
      cut.kind = Step::Kind::drop;
      cut.conn = labels[pick(rng, labels.size())];
      const std::size_t at = pick(rng, s.size() + 1);
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), cut);
      return "timing: connection " + cut.conn + " cut at step " + std::to_string(at);
    }
    default: {
      if (labels.empty()) return {};
      static const std::uint16_t codes[] = {1000, 1001, 1002, 1003, 1005, 1006, 1011, 1015, 999, 0, 2999, 3000, 4999, 5000, 65535};
      const std::uint16_t code = codes[pick(rng, std::size(codes))];
      const std::size_t at = pick(rng, s.size() + 1);
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), close_step(labels[pick(rng, labels.size())], code));
      return "timing: close " + std::to_string(code) + " at step " + std::to_string(at);
    }
  }
}

}  // namespace

Expected<Families, std::string> parse_families(std::string_view list) {
  if (list == "all") return Families{};
  Families f{false, false, false, false, false};
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string_view name = list.substr(at, comma - at);
    if (name == "field") f.field = true;
    else if (name == "structure") f.structure = true;
    else if (name == "framing") f.framing = true;
    else if (name == "timing") f.timing = true;
    else if (name == "auth") f.auth = true;
    else return unexpected("unknown mutation family \"" + std::string(name) + "\" (field, structure, framing, timing, auth)");
    at = comma + 1;
  }
  return f;
}

std::string families_text(const Families& f) {
  std::string out;
  auto add = [&](bool on, const char* name) {
    if (!on) return;
    if (!out.empty()) out += ",";
    out += name;
  };
  add(f.field, "field");
  add(f.structure, "structure");
  add(f.framing, "framing");
  add(f.timing, "timing");
  add(f.auth, "auth");
  return out;
}

Session generate(Protocol protocol, std::uint64_t seed, std::uint64_t index, const Families& families, const Scope& scope) {
  // SplitMix64 of (seed, index): independent, well-mixed streams per session.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  Rng rng(z ^ (z >> 31));
  return generate(protocol, rng, families, scope);
}

std::string mutate_message(Rng& rng, Protocol protocol, const Json& message, std::string& what) {
  if (chance(rng, 0.2)) {
    std::string kind;
    std::string out = mutate_raw(rng, message.dump(), kind);
    what = "raw text damage: " + kind;
    return out;
  }
  auto damage = mutate_field(rng, protocol, message);
  what = damage.what;
  return damage.text;
}

Session generate(Protocol protocol, Rng& rng, const Families& families, const Scope& scope) {
  const Profile& profile = profile_for(protocol);
  const double weights[] = {families.field ? 0.40 : 0, families.structure ? 0.22 : 0, families.framing ? 0.13 : 0,
                            families.timing ? 0.10 : 0, families.auth ? 0.15 : 0};
  double total = 0;
  for (double w : weights) total += w;
  Session s;
  s.steps = profile.seed_flow(rng, scope);
  std::size_t count = 0;
  for (std::size_t round = profile.mutation_rounds(s.steps); round > 0; --round) count += 1 + pick(rng, 3);
  for (std::size_t m = 0; m < count && total > 0; ++m) {
    double draw = std::uniform_real_distribution<double>(0.0, 1.0)(rng) * total;
    std::size_t family = 0;
    while (family + 1 < std::size(weights) && draw >= weights[family]) draw -= weights[family++];
    std::string what, kind;
    const std::vector<Step> before = s.steps;
    switch (family) {
      case 0: {
        // Every message the session sends: WebSocket text frames, HTTP bodies (registration,
        // token requests, AgentProtocol over HTTP).
        auto texts = steps_of(s.steps, Step::Kind::text);
        for (auto i : steps_of(s.steps, Step::Kind::http)) {
          if (!s.steps[i].data.empty() && s.steps[i].data.front() == '{') texts.push_back(i);
        }
        if (texts.empty()) break;
        const std::size_t i = texts[pick(rng, texts.size())];
        Json doc = parse_loose(s.steps[i].data);
        if (doc.is_discarded() || chance(rng, 0.15)) {
          std::string raw_kind;
          s.steps[i].data = mutate_raw(rng, std::move(s.steps[i].data), raw_kind);
          what = "field: " + raw_kind + " in step " + std::to_string(i);
          kind = "field: " + raw_kind + " at " + (doc.is_discarded() ? std::string("message") : message_type_of(doc));
        } else {
          auto damage = mutate_field(rng, protocol, std::move(doc));
          s.steps[i].data = std::move(damage.text);
          what = "field: " + damage.what + " in step " + std::to_string(i);
          kind = "field: " + damage.kind;
        }
        tag(s.steps[i], kind);
        break;
      }
      case 1:
        what = chance(rng, 0.5) ? profile.structure(rng, s.steps) : std::string();
        if (what.empty()) what = generic_structure(rng, s.steps);
        break;
      case 2: what = framing(rng, s.steps); break;
      case 3: what = timing(rng, s.steps); break;
      default: what = profile.auth(rng, s.steps); break;
    }
    if (family != 0 && !what.empty()) tag_changes(before, s.steps, stable_kind(what));
    if (!what.empty()) s.mutations.push_back(std::move(what));
  }
  return s;
}

}  // namespace ac::fuzz
