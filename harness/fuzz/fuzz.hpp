// The live protocol fuzzer (issue 6, docs/fuzzing.md): sessions generated from valid protocol
// flows and mutated (field, structure, framing), sent to a target over the harness's WebSocket
// client, and judged by oracles (liveness, protocol, isolation). Findings are deduplicated by
// (oracle, signature), minimized by dropping steps while the same oracle still trips, and saved
// as replayable reproducers.
//
// Determinism: generation depends only on the seed (never on what the target answers), so the
// same seed always yields the same sessions; agent ids are written as placeholders (${a}, ${b},
// ${c}) that the executor replaces with ids unique to each execution, so re-running a session
// (minimization, replay) never collides with a registration the previous run left behind.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/util/expected.hpp"

namespace ac::net {
class Runtime;
}

namespace ac::fuzz {

using Json = nlohmann::json;

enum class Protocol { chopsticks, agora };
Expected<Protocol, std::string> parse_protocol(std::string_view name);
std::string_view protocol_name(Protocol p);

// One WebSocket frame sent as-is (framing mutations: fragments, odd opcodes, RSV bits).
struct RawFrame {
  std::uint8_t opcode = 1;
  bool fin = true;
  std::uint8_t rsv = 0;
  std::string payload;
};

struct Step {
  enum class Kind { connect, text, binary, frames, close };
  Kind kind = Kind::text;
  std::string conn;             // connection label: "a", "b", "c"
  std::string data;             // connect: path and query; text/binary: the payload
  std::vector<RawFrame> frames; // Kind::frames
  bool operator==(const Step& o) const {
    if (kind != o.kind || conn != o.conn || data != o.data || frames.size() != o.frames.size()) return false;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const auto &x = frames[i], &y = o.frames[i];
      if (x.opcode != y.opcode || x.fin != y.fin || x.rsv != y.rsv || x.payload != y.payload) return false;
    }
    return true;
  }
};

struct Session {
  std::vector<Step> steps;
  std::vector<std::string> mutations;  // what was done to the seed flow (informative)
  std::size_t frame_count() const;
};

// Reproducer form of steps: payloads that are not UTF-8 are stored as base64 ("data_b64").
Json steps_to_json(const std::vector<Step>& steps);
Expected<std::vector<Step>, std::string> steps_from_json(const Json& doc);

// A mutated session; a pure function of the generator's state.
Session generate(Protocol protocol, std::mt19937_64& rng);

struct Target {
  std::string http_base;  // http://host:port
  std::string ws_base;    // ws://host:port
};

struct Trip {
  std::string oracle;     // liveness | protocol | isolation
  std::string signature;  // stable text for deduplication (no ids, no values)
  std::string detail;     // what exactly happened
};

struct ExecOptions {
  int quiet_ms = 25;          // a session is over when nothing arrived for this long...
  int deadline_ms = 1500;     // ...and every expectation is met, or at this deadline
  bool probe = true;          // run the liveness probe after the session
};

// Runs sessions against one target. Not thread-safe; one executor per thread.
class Executor {
 public:
  Executor(net::Runtime& runtime, Target target, Protocol protocol, ExecOptions options = {});
  // Executes the steps, then checks the oracles. nullopt: nothing tripped.
  std::optional<Trip> run(const std::vector<Step>& steps);
  std::uint64_t frames_sent() const { return frames_sent_; }

 private:
  std::optional<Trip> probe();
  net::Runtime& runtime_;
  Target target_;
  Protocol protocol_;
  ExecOptions options_;
  std::string salt_;
  std::uint64_t run_counter_ = 0;
  std::uint64_t frames_sent_ = 0;
};

struct Finding {
  Trip trip;
  std::uint64_t iteration = 0;
  std::vector<Step> original;
  std::vector<Step> minimized;
  std::vector<std::string> mutations;
  std::filesystem::path file;  // the reproducer written, when an output directory was given
};

struct FuzzOptions {
  Protocol protocol = Protocol::chopsticks;
  Target target;
  Json target_description = Json::object();  // {"kind": "embedded"|"url", "url", "faults"}
  std::uint64_t seed = 0;
  std::uint64_t iterations = 0;  // 0: bounded by duration_s only
  double duration_s = 0;         // 0: bounded by iterations only
  std::filesystem::path out_dir; // empty: reproducers are not written
  bool minimize = true;
  std::size_t max_findings = 0;  // stop after this many distinct findings (0: run the whole budget)
  ExecOptions exec;
  std::function<void(const std::string&)> progress;  // periodic plain lines; may be empty
};

struct FuzzReport {
  std::uint64_t sessions = 0;
  std::uint64_t frames = 0;
  double seconds = 0;
  std::vector<Finding> findings;
};

FuzzReport run_fuzz(net::Runtime& runtime, const FuzzOptions& options);

// Drops steps one at a time (last to first, repeated until nothing more can go) while the
// session still trips the same oracle with the same signature.
std::vector<Step> minimize(Executor& executor, std::vector<Step> steps, const Trip& trip);

// A reproducer document (format "agentconform-fuzz-reproducer/1").
Json reproducer_json(const FuzzOptions& options, const Finding& finding);

struct Reproducer {
  Protocol protocol = Protocol::chopsticks;
  Json target = Json::object();
  std::uint64_t seed = 0;
  std::string oracle;
  std::string signature;
  std::vector<Step> steps;
};
Expected<Reproducer, std::string> load_reproducer(const std::filesystem::path& file);

}  // namespace ac::fuzz
