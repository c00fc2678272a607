// The generator (see generate.hpp for the families). Field mutations first look up the schema
// of the message being mutated (schemas/<protocol>/index.json maps its type to a schema file)
// and break exactly what the schema says at the chosen member; members the schema says nothing
// about get generic damage.
#include "harness/fuzz/generate.hpp"

#include <cctype>
#include <limits>

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

std::string mutate_field(Rng& rng, Protocol protocol, Json doc, std::string& what) {
  std::vector<Json::json_pointer> pointers;
  collect_pointers(doc, Json::json_pointer(), pointers);
  // Prefer members over the root: the root only gets an extra member.
  const Json::json_pointer at = pointers.size() > 1 ? pointers[1 + pick(rng, pointers.size() - 1)] : pointers[0];
  if (at.empty()) {
    if (doc.is_object()) doc["x-fuzz-" + std::to_string(pick(rng, 100))] = swap_type(rng);
    what = "extra member";
    return doc.dump();
  }
  // Schema-guided, most of the time.
  if (chance(rng, 0.6)) {
    const Json* parent_schema = schema_at(protocol, doc, at.parent_pointer());
    const auto required = required_of(parent_schema);
    if (!required.empty() && chance(rng, 0.3)) {
      const std::string name = required[pick(rng, required.size())];
      Json& parent = doc[at.parent_pointer()];
      if (parent.is_object() && parent.contains(name)) {
        parent.erase(name);
        what = "required member " + (at.parent_pointer() / name).to_string() + " removed";
        return doc.dump();
      }
    }
    if (const Json* node = schema_at(protocol, doc, at)) {
      Json broken = break_schema(rng, *node, doc[at]);
      if (!broken.is_discarded()) {
        doc[at] = std::move(broken);
        what = "schema rule broken at " + at.to_string();
        return doc.dump();
      }
    }
  }
  what = "member " + at.to_string() + " damaged";
  Json& node = doc[at];
  if (node.is_string()) {
    switch (pick(rng, 10)) {
      case 0: case 1: node = ""; break;
      case 2: node = std::string(64 * 1024, 'A'); break;
      case 3: node = node.get<std::string>() + unicode_edge(rng); break;
      case 4: node = std::string("a\0b", 3); break;
      case 5: {
        static const char* suffixes[] = {"x", ".0", "-beta", " ", "\n"};
        node = node.get<std::string>() + suffixes[pick(rng, std::size(suffixes))];
        break;
      }
      case 6: node = node.get<std::string>() + std::string(1, '\0'); break;
      case 7: node = swap_type(rng); break;
      case 8: remove_at(doc, at); break;
      default: node = deep_nesting(rng); break;
    }
    return doc.dump();
  }
  switch (pick(rng, 6)) {
    case 0: node = swap_type(rng); break;
    case 1: node = boundary_number(rng); break;
    case 2: node = deep_nesting(rng); break;
    case 3:
      if (node.is_object()) node["x-extra"] = "extra";
      else node = Json::object({{"x-extra", true}});
      break;
    case 4: remove_at(doc, at); break;
    default: node = ""; break;
  }
  return doc.dump();
}

// Damage only raw text can carry: duplicate keys, truncation, trailing garbage, a BOM.
std::string mutate_raw(Rng& rng, std::string data) {
  switch (pick(rng, 4)) {
    case 0:
      if (!data.empty() && data.front() == '{') {
        // A member repeated with another value: two parsers may read different messages.
        const auto colon = data.find("\":");
        const auto quote = data.find('"');
        if (colon != std::string::npos && quote != std::string::npos && quote < colon) {
          data.insert(1, data.substr(quote, colon + 2 - quote) + "\"dup\",");
        }
      }
      return data;
    case 1: return data.substr(0, pick(rng, data.size()));
    case 2: {
      static const std::string tails[] = {"}", " x", ",", "\n{}", std::string("\0", 1)};
      return data + tails[pick(rng, std::size(tails))];
    }
    default: return "\xEF\xBB\xBF" + data;
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

Session generate(Protocol protocol, std::uint64_t seed, std::uint64_t index, const Families& families) {
  // SplitMix64 of (seed, index): independent, well-mixed streams per session.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  Rng rng(z ^ (z >> 31));
  return generate(protocol, rng, families);
}

std::string mutate_message(Rng& rng, Protocol protocol, const Json& message, std::string& what) {
  if (chance(rng, 0.2)) {
    what = "raw text damage";
    return mutate_raw(rng, message.dump());
  }
  return mutate_field(rng, protocol, message, what);
}

Session generate(Protocol protocol, Rng& rng, const Families& families) {
  const Profile& profile = profile_for(protocol);
  const double weights[] = {families.field ? 0.40 : 0, families.structure ? 0.22 : 0, families.framing ? 0.13 : 0,
                            families.timing ? 0.10 : 0, families.auth ? 0.15 : 0};
  double total = 0;
  for (double w : weights) total += w;
  Session s;
  s.steps = profile.seed_flow(rng);
  const std::size_t count = 1 + pick(rng, 3);
  for (std::size_t m = 0; m < count && total > 0; ++m) {
    double draw = std::uniform_real_distribution<double>(0.0, 1.0)(rng) * total;
    std::size_t family = 0;
    while (family + 1 < std::size(weights) && draw >= weights[family]) draw -= weights[family++];
    std::string what;
    switch (family) {
      case 0: {
        auto texts = steps_of(s.steps, Step::Kind::text);
        if (texts.empty()) break;
        const std::size_t i = texts[pick(rng, texts.size())];
        Json doc = Json::parse(s.steps[i].data, nullptr, false);
        if (doc.is_discarded() || chance(rng, 0.15)) {
          s.steps[i].data = mutate_raw(rng, std::move(s.steps[i].data));
          what = "field: raw text damage in step " + std::to_string(i);
        } else {
          std::string detail;
          s.steps[i].data = mutate_field(rng, protocol, std::move(doc), detail);
          what = "field: " + detail + " in step " + std::to_string(i);
        }
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
    if (!what.empty()) s.mutations.push_back(std::move(what));
  }
  return s;
}

}  // namespace ac::fuzz
