// The fuzzer's data model on disk: protocol names, steps as JSON (payloads that are not UTF-8
// text travel as base64, so a reproducer holds the exact bytes), and reproducer documents.
#include <fstream>
#include <sstream>

#include "harness/crypto/base64.hpp"
#include "harness/fuzz/fuzz.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/websocket/frame.hpp"

namespace ac::fuzz {
namespace {

const char* kind_name(Step::Kind k) {
  switch (k) {
    case Step::Kind::connect: return "connect";
    case Step::Kind::text: return "text";
    case Step::Kind::binary: return "binary";
    case Step::Kind::frames: return "frames";
    case Step::Kind::close: return "close";
  }
  return "text";
}

void put_bytes(Json& out, const std::string& bytes) {
  if (ws::is_valid_utf8(bytes)) {
    out["data"] = bytes;
  } else {
    out["data_b64"] = crypto::base64_encode(bytes);
  }
}

Expected<std::string, std::string> get_bytes(const Json& in) {
  if (auto it = in.find("data"); it != in.end()) {
    if (!it->is_string()) return unexpected(std::string("\"data\" must be a string"));
    return it->get<std::string>();
  }
  if (auto it = in.find("data_b64"); it != in.end()) {
    if (!it->is_string()) return unexpected(std::string("\"data_b64\" must be a string"));
    auto bytes = crypto::base64_decode(it->get<std::string>());
    if (!bytes) return unexpected("\"data_b64\": " + bytes.error().describe());
    return *bytes;
  }
  return std::string();
}

}  // namespace

Expected<Protocol, std::string> parse_protocol(std::string_view name) {
  if (name == "chopsticks") return Protocol::chopsticks;
  if (name == "agora") return Protocol::agora;
  return unexpected("the fuzzer covers chopsticks and agora so far, not \"" + std::string(name) + "\"");
}

std::string_view protocol_name(Protocol p) { return p == Protocol::chopsticks ? "chopsticks" : "agora"; }

std::size_t Session::frame_count() const {
  std::size_t n = 0;
  for (const auto& s : steps) n += s.kind == Step::Kind::frames ? s.frames.size() : s.kind == Step::Kind::connect ? 0 : 1;
  return n;
}

Json steps_to_json(const std::vector<Step>& steps) {
  Json out = Json::array();
  for (const auto& s : steps) {
    Json j{{"conn", s.conn}, {"action", kind_name(s.kind)}};
    if (s.kind == Step::Kind::frames) {
      j["frames"] = Json::array();
      for (const auto& f : s.frames) {
        Json fj{{"opcode", f.opcode}, {"fin", f.fin}, {"rsv", f.rsv}};
        put_bytes(fj, f.payload);
        j["frames"].push_back(std::move(fj));
      }
    } else if (s.kind != Step::Kind::close) {
      put_bytes(j, s.data);
    }
    out.push_back(std::move(j));
  }
  return out;
}

Expected<std::vector<Step>, std::string> steps_from_json(const Json& doc) {
  if (!doc.is_array()) return unexpected(std::string("\"steps\" must be an array"));
  if (doc.size() > 10000) return unexpected(std::string("too many steps"));
  std::vector<Step> out;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const Json& j = doc[i];
    const std::string where = "steps[" + std::to_string(i) + "]: ";
    if (!j.is_object() || !j.contains("conn") || !j["conn"].is_string() || !j.contains("action") || !j["action"].is_string()) {
      return unexpected(where + "needs string members \"conn\" and \"action\"");
    }
    Step s;
    s.conn = j["conn"].get<std::string>();
    const std::string action = j["action"].get<std::string>();
    if (action == "connect") s.kind = Step::Kind::connect;
    else if (action == "text") s.kind = Step::Kind::text;
    else if (action == "binary") s.kind = Step::Kind::binary;
    else if (action == "frames") s.kind = Step::Kind::frames;
    else if (action == "close") s.kind = Step::Kind::close;
    else return unexpected(where + "unknown action \"" + action + "\"");
    if (s.kind == Step::Kind::frames) {
      if (!j.contains("frames") || !j["frames"].is_array()) return unexpected(where + "\"frames\" must be an array");
      for (const auto& fj : j["frames"]) {
        if (!fj.is_object()) return unexpected(where + "each frame is an object");
        RawFrame f;
        const Json op = fj.value("opcode", Json(1));
        const Json rsv = fj.value("rsv", Json(0));
        if (!op.is_number_unsigned() || op.get<unsigned>() > 15 || !rsv.is_number_unsigned() || rsv.get<unsigned>() > 7) {
          return unexpected(where + "opcode must be 0..15 and rsv 0..7");
        }
        f.opcode = static_cast<std::uint8_t>(op.get<unsigned>());
        f.rsv = static_cast<std::uint8_t>(rsv.get<unsigned>());
        const Json fin = fj.value("fin", Json(true));
        if (!fin.is_boolean()) return unexpected(where + "fin must be a boolean");
        f.fin = fin.get<bool>();
        auto bytes = get_bytes(fj);
        if (!bytes) return unexpected(where + bytes.error());
        f.payload = std::move(*bytes);
        s.frames.push_back(std::move(f));
      }
    } else {
      auto bytes = get_bytes(j);
      if (!bytes) return unexpected(where + bytes.error());
      s.data = std::move(*bytes);
    }
    out.push_back(std::move(s));
  }
  return out;
}

Json reproducer_json(const FuzzOptions& options, const Finding& finding) {
  Json mutations = Json::array();
  for (const auto& m : finding.mutations) mutations.push_back(m);
  return Json{{"format", "agentconform-fuzz-reproducer/1"},
              {"protocol", protocol_name(options.protocol)},
              {"target", options.target_description},
              {"seed", options.seed},
              {"iteration", finding.iteration},
              {"oracle", finding.trip.oracle},
              {"signature", finding.trip.signature},
              {"detail", finding.trip.detail},
              {"mutations", mutations},
              {"placeholders", "${a} ${b} ${c} stand for agent ids made unique per execution"},
              {"steps", steps_to_json(finding.minimized)},
              {"original_steps", steps_to_json(finding.original)}};
}

Expected<Reproducer, std::string> load_reproducer(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return unexpected("cannot open " + file.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto doc = json::parse_strict(buffer.str());
  if (!doc) return unexpected(file.string() + ": " + doc.error().describe());
  const Json& d = *doc;
  if (!d.is_object() || d.value("format", Json()) != "agentconform-fuzz-reproducer/1") {
    return unexpected(file.string() + ": not an agentconform fuzz reproducer (format agentconform-fuzz-reproducer/1)");
  }
  Reproducer r;
  const Json proto = d.value("protocol", Json());
  if (!proto.is_string()) return unexpected(file.string() + ": \"protocol\" must be a string");
  auto p = parse_protocol(proto.get<std::string>());
  if (!p) return unexpected(file.string() + ": " + p.error());
  r.protocol = *p;
  r.target = d.value("target", Json::object());
  if (!r.target.is_object()) return unexpected(file.string() + ": \"target\" must be an object");
  const Json seed = d.value("seed", Json(0));
  r.seed = seed.is_number_unsigned() ? seed.get<std::uint64_t>() : 0;
  const Json oracle = d.value("oracle", Json(""));
  const Json signature = d.value("signature", Json(""));
  r.oracle = oracle.is_string() ? oracle.get<std::string>() : "";
  r.signature = signature.is_string() ? signature.get<std::string>() : "";
  auto steps = steps_from_json(d.value("steps", Json()));
  if (!steps) return unexpected(file.string() + ": " + steps.error());
  r.steps = std::move(*steps);
  return r;
}

}  // namespace ac::fuzz
