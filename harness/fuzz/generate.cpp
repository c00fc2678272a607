// Session generation: a valid flow of the protocol (the seed), then 1-3 mutations drawn from
// three families: field (type swaps, missing/extra members, empty/huge strings, unicode edge
// cases, NUL, deep nesting, boundary numbers, duplicate keys and broken JSON as raw text),
// structure (steps dropped, duplicated, swapped; wrong versions, unknown recipients and stream
// ids) and framing (binary instead of text, invalid UTF-8, fragmentation with a ping inside,
// reserved opcodes and RSV bits, oversized frames). Only the PRNG decides, so a seed fixes the
// whole sequence.
#include <cstdint>
#include <limits>

#include "harness/fuzz/fuzz.hpp"

namespace ac::fuzz {
namespace {

using Rng = std::mt19937_64;

std::size_t pick(Rng& rng, std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); }
bool chance(Rng& rng, double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < p; }

Step connect(std::string conn, std::string path) { return Step{Step::Kind::connect, std::move(conn), std::move(path), {}}; }
Step text(std::string conn, const Json& j) { return Step{Step::Kind::text, std::move(conn), j.dump(), {}}; }

// ----------------------------------------------------------------------------------------------
// Seed flows (valid sessions)

std::vector<Step> chopsticks_flow(Rng& rng) {
  auto hello = [](const std::string& who) {
    return Json{{"type", "hello"}, {"protocolVersion", "1.0.0"}, {"agentId", "${" + who + "}"}, {"botUserId", nullptr},
                {"tag", nullptr}, {"ready", true}, {"guildIds", Json::array({"g1"})}, {"poolId", "pool-1"}};
  };
  std::vector<Step> s{connect("a", "/chopsticks/ws"), text("a", hello("a")),
                      text("a", Json{{"type", "guilds"}, {"guildIds", Json::array({"g1", "g2"})}})};
  if (chance(rng, 0.5)) {
    s.push_back(text("a", Json{{"type", "event"}, {"event", "add"}, {"agentId", "${a}"}, {"guildId", "g1"},
                               {"voiceChannelId", "v1"}, {"channelId", "v1"}, {"kind", "music"}, {"ok", true}}));
  }
  s.push_back(text("a", hello("a")));  // a heartbeat
  if (chance(rng, 0.5)) {
    s.push_back(connect("b", "/chopsticks/ws"));
    s.push_back(text("b", hello("b")));
  }
  return s;
}

std::vector<Step> agora_flow(Rng& rng) {
  std::vector<Step> s{connect("a", "/agora/ws?agent_id=${a}"), connect("b", "/agora/ws?agent_id=${b}"),
                      connect("c", "/agora/ws?agent_id=${c}")};  // c: a bystander nobody addresses
  s.push_back(text("a", Json{{"type", "send"}, {"to", "${b}"}, {"stream", true}, {"stream_id", "s1"},
                             {"payload", {{"text", "hello"}}}}));
  const std::size_t chunks = 2 + pick(rng, 2);
  for (std::size_t i = 0; i < chunks; ++i) {
    s.push_back(text("a", Json{{"type", "send_chunk"}, {"to", "${b}"}, {"stream_id", "s1"}, {"chunk", "part " + std::to_string(i)}}));
  }
  s.push_back(text("a", Json{{"type", "send_end"}, {"to", "${b}"}, {"stream_id", "s1"}}));
  s.push_back(text("b", Json{{"type", "reply"}, {"to", "${a}"}, {"payload", {{"text", "thanks"}}}}));
  return s;
}

// ----------------------------------------------------------------------------------------------
// Field mutations

void collect_pointers(const Json& j, const Json::json_pointer& at, std::vector<Json::json_pointer>& out) {
  if (out.size() >= 64) return;
  out.push_back(at);
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) collect_pointers(it.value(), at / it.key(), out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) collect_pointers(j[i], at / i, out);
  }
}

Json swap_type(Rng& rng) {
  static const Json values[] = {42, -1, 1.5, true, false, nullptr, "str", Json::array(), Json::object()};
  return values[pick(rng, std::size(values))];
}

Json boundary_number(Rng& rng) {
  switch (pick(rng, 7)) {
    case 0: return 1e308;
    case 1: return -1e308;
    case 2: return -0.0;
    case 3: return std::int64_t{9007199254740993};
    case 4: return std::numeric_limits<std::int64_t>::min();
    case 5: return std::numeric_limits<std::uint64_t>::max();
    default: return 5e-324;
  }
}

std::string unicode_edge(Rng& rng) {
  static const char* values[] = {"\xE2\x80\xAE", "\xF0\x9F\x98\x80", "\xEF\xBF\xBF", "e\xCC\x81", "\xE2\x80\x8B",
                                 "\xEF\xBB\xBF", "\xF4\x8F\xBF\xBF", "\xC2\x85"};
  return values[pick(rng, std::size(values))];
}

Json deep_nesting(Rng& rng) {
  static const std::size_t depths[] = {32, 127, 129, 200, 1000};
  Json j = Json::array();
  const std::size_t depth = depths[pick(rng, std::size(depths))];
  for (std::size_t i = 1; i < depth; ++i) j = Json::array({std::move(j)});
  return j;
}

std::string mutate_field(Rng& rng, Json doc) {
  std::vector<Json::json_pointer> pointers;
  collect_pointers(doc, Json::json_pointer(), pointers);
  // Prefer members over the root: the root only gets an extra member.
  const Json::json_pointer at = pointers.size() > 1 ? pointers[1 + pick(rng, pointers.size() - 1)] : pointers[0];
  if (at.empty()) {
    if (doc.is_object()) doc["x-fuzz-" + std::to_string(pick(rng, 100))] = swap_type(rng);
    return doc.dump();
  }
  Json& node = doc[at];
  if (node.is_string()) {
    // String leaves get string-shaped damage most of the time.
    switch (pick(rng, 10)) {
      case 0: case 1: node = ""; break;
      case 2: node = std::string(64 * 1024, 'A'); break;
      case 3: node = node.get<std::string>() + unicode_edge(rng); break;
      case 4: node = std::string("a\0b", 3); break;
      case 5: {
        static const char* suffixes[] = {"x", ".0", "-beta", " "};
        node = node.get<std::string>() + suffixes[pick(rng, std::size(suffixes))];
        break;
      }
      case 6: node = node.get<std::string>() + std::string(1, '\0'); break;
      case 7: node = swap_type(rng); break;
      case 8: {
        Json& parent = doc[at.parent_pointer()];
        if (parent.is_object()) parent.erase(at.back());
        else node = nullptr;
        break;
      }
      default: node = deep_nesting(rng); break;
    }
    return doc.dump();
  }
  switch (pick(rng, 6)) {
    case 0: node = swap_type(rng); break;
    case 1: node = boundary_number(rng); break;
    case 2: node = deep_nesting(rng); break;
    case 3:
      if (node.is_object()) {
        node["x-extra"] = "extra";
      } else {
        node = Json::object({{"x-extra", true}});
      }
      break;
    case 4: {
      Json& parent = doc[at.parent_pointer()];
      if (parent.is_object()) parent.erase(at.back());
      else node = nullptr;
      break;
    }
    default: node = ""; break;
  }
  return doc.dump();
}

// Damage only raw text can carry: duplicate keys, truncation, trailing garbage.
std::string mutate_raw(Rng& rng, std::string data) {
  switch (pick(rng, 3)) {
    case 0:
      if (!data.empty() && data.front() == '{') {
        static const char* members[] = {"\"type\":\"dup\",", "\"to\":\"${c}\",", "\"protocolVersion\":\"9.9.9\",", "\"agentId\":\"${b}\","};
        data.insert(1, members[pick(rng, std::size(members))]);
      }
      return data;
    case 1: return data.substr(0, pick(rng, data.size()));
    default: {
      static const char* tails[] = {"}", " x", ",", "\n{}"};
      return data + tails[pick(rng, std::size(tails))];
    }
  }
}

// ----------------------------------------------------------------------------------------------
// Structure and framing

std::vector<std::size_t> steps_of(const std::vector<Step>& s, Step::Kind kind) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i].kind == kind) out.push_back(i);
  }
  return out;
}

// Sets a member of a JSON text step (if it parses); false when it does not apply.
bool set_member(Step& step, const char* key, const Json& value, bool only_if_present) {
  Json doc = Json::parse(step.data, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || (only_if_present && !doc.contains(key))) return false;
  if (value.is_discarded()) {
    doc.erase(key);
  } else {
    doc[key] = value;
  }
  step.data = doc.dump();
  return true;
}

std::string structure(Rng& rng, Protocol protocol, std::vector<Step>& s) {
  auto texts = steps_of(s, Step::Kind::text);
  if (texts.empty()) return "structure: nothing to do";
  const std::size_t i = texts[pick(rng, texts.size())];
  switch (pick(rng, 5)) {
    case 0: s.erase(s.begin() + static_cast<std::ptrdiff_t>(i)); return "structure: drop step " + std::to_string(i);
    case 1: s.insert(s.begin() + static_cast<std::ptrdiff_t>(i), s[i]); return "structure: duplicate step " + std::to_string(i);
    case 2: {
      const std::size_t j = texts[pick(rng, texts.size())];
      std::swap(s[i], s[j]);
      return "structure: swap steps " + std::to_string(i) + " and " + std::to_string(j);
    }
    default: break;
  }
  if (protocol == Protocol::chopsticks) {
    static const Json versions[] = {"0.9.0", "2.0.0", "1.0", "", "v1.0.0", 1, nullptr, Json::array({"1.0.0"}),
                                    "1.0.0x", "1.0.0.0", std::string("1.0.0\0", 6), "1.0.0-beta"};
    const bool drop = chance(rng, 0.1);
    const Json v = drop ? Json(Json::value_t::discarded) : versions[pick(rng, std::size(versions))];
    if (set_member(s[i], "protocolVersion", v, true)) return "structure: wrong protocolVersion in step " + std::to_string(i);
    return "structure: (no hello at step " + std::to_string(i) + ")";
  }
  if (chance(rng, 0.5)) {
    set_member(s[i], "to", "nobody-" + std::to_string(pick(rng, 1000)), true);
    return "structure: unknown recipient in step " + std::to_string(i);
  }
  set_member(s[i], "stream_id", "unknown-" + std::to_string(pick(rng, 1000)), true);
  return "structure: unknown stream_id in step " + std::to_string(i);
}

std::string framing(Rng& rng, std::vector<Step>& s) {
  auto texts = steps_of(s, Step::Kind::text);
  if (texts.empty()) return "framing: nothing to do";
  Step& step = s[texts[pick(rng, texts.size())]];
  switch (pick(rng, 12)) {
    case 0: case 1: case 2: step.kind = Step::Kind::binary; return "framing: binary instead of text";
    case 3: case 4: {
      static const char* bad[] = {"\xC3\x28", "\xFF", "\xED\xA0\x80", "\xF8\x88\x80\x80\x80", "\xC0\xAF"};
      step.data.insert(pick(rng, step.data.size() + 1), bad[pick(rng, std::size(bad))]);
      return "framing: invalid UTF-8 in a text frame";
    }
    case 5: case 6: case 7: case 8: {
      const std::size_t parts = 2 + pick(rng, 3);
      const bool ping_inside = chance(rng, 0.4);
      std::vector<RawFrame> frames;
      const std::size_t size = step.data.size();
      std::size_t from = 0;
      for (std::size_t p = 0; p < parts; ++p) {
        const std::size_t to = p + 1 == parts ? size : std::min(size, from + pick(rng, size - from + 1));
        frames.push_back(RawFrame{static_cast<std::uint8_t>(p == 0 ? 0x1 : 0x0), p + 1 == parts, 0, step.data.substr(from, to - from)});
        if (ping_inside && p == 0) frames.push_back(RawFrame{0x9, true, 0, "fuzz"});
        from = to;
      }
      step.kind = Step::Kind::frames;
      step.frames = std::move(frames);
      step.data.clear();
      return ping_inside ? "framing: fragmented, a ping between fragments" : "framing: fragmented";
    }
    case 9:
      step.kind = Step::Kind::frames;
      step.frames = {RawFrame{static_cast<std::uint8_t>(chance(rng, 0.5) ? 0x3 : 0xB), true, 0, step.data}};
      step.data.clear();
      return "framing: reserved opcode";
    case 10:
      step.kind = Step::Kind::frames;
      step.frames = {RawFrame{0x1, true, static_cast<std::uint8_t>(1 + pick(rng, 7)), step.data}};
      step.data.clear();
      return "framing: RSV bits set";
    default:
      step.data += std::string(1100 * 1024, ' ');  // beyond the reference's 1 MiB message limit
      return "framing: oversized frame";
  }
}

}  // namespace

Session generate(Protocol protocol, std::mt19937_64& rng) {
  Session s;
  s.steps = protocol == Protocol::chopsticks ? chopsticks_flow(rng) : agora_flow(rng);
  const std::size_t count = 1 + pick(rng, 3);
  for (std::size_t m = 0; m < count; ++m) {
    const double family = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    if (family < 0.55) {
      auto texts = steps_of(s.steps, Step::Kind::text);
      if (texts.empty()) continue;
      const std::size_t i = texts[pick(rng, texts.size())];
      Json doc = Json::parse(s.steps[i].data, nullptr, false);
      if (doc.is_discarded() || chance(rng, 0.15)) {
        s.steps[i].data = mutate_raw(rng, std::move(s.steps[i].data));
        s.mutations.push_back("field: raw text damage in step " + std::to_string(i));
      } else {
        s.steps[i].data = mutate_field(rng, std::move(doc));
        s.mutations.push_back("field: member mutated in step " + std::to_string(i));
      }
    } else if (family < 0.8) {
      s.mutations.push_back(structure(rng, protocol, s.steps));
    } else {
      s.mutations.push_back(framing(rng, s.steps));
    }
  }
  return s;
}

}  // namespace ac::fuzz
