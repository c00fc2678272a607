// What the live fuzzer sends: a session is a list of steps on labelled connections ("a", "b",
// "c", "p" for probes), written with placeholders the executor fills per execution, so the same
// session can be executed again (minimization, replay) without colliding with what an earlier
// execution left on the target:
//   ${a} ${b} ${c}      agent ids unique to the execution (AgentProtocol: the base64 public key
//                       of a key the job reuses every 32 sessions; A2ACP target agents: ids leased
//                       from the target's directory pools)
//   ${a.token}          a value an http step captured (ALP auth_token, A2ACP token, ...)
//   ${uuid:N}           the N-th fresh UUIDv4 of the execution (stable within it)
//   ${now}              the current time, ISO 8601 UTC
//   ${jwt:a>b}, ${jwt-expired:a>b}, ${jwt-none:a>b}, ${jwt-forged:a>b}, ${jwt-wrong-aud:a>b},
//   ${jwt-wrong-iss:a>b}, ${jwt-no-caps:a>b}
//                       A2ACP tokens for sub a, aud b: valid, or broken in one way
//   ${peer}             the target's own agent id (AgentProtocol reference agent, ALP lobby_id,
//                       A2ACP broker id)
// The reproducer format (agentconform-fuzz-reproducer/1) stores steps exactly: payloads that are
// not UTF-8 are base64 ("data_b64").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/util/expected.hpp"

namespace ac::fuzz {

using Json = nlohmann::json;

enum class Protocol { alp, agora, agentprotocol, a2acp, chopsticks };
inline constexpr Protocol kAllProtocols[] = {Protocol::alp, Protocol::agora, Protocol::agentprotocol, Protocol::a2acp,
                                             Protocol::chopsticks};
Expected<Protocol, std::string> parse_protocol(std::string_view name);
std::string_view protocol_name(Protocol p);

// One WebSocket frame sent as-is (framing mutations: fragments, odd opcodes, RSV bits), after
// waiting delay_ms (timing mutations: slow drip).
struct RawFrame {
  std::uint8_t opcode = 1;
  bool fin = true;
  std::uint8_t rsv = 0;
  std::string payload;
  int delay_ms = 0;
  bool operator==(const RawFrame&) const = default;
};

struct Step {
  enum class Kind {
    connect,  // open a WebSocket: data = path and query
    http,     // an HTTP request: method, path, headers, data = body; captures from a JSON answer
    text,     // a text frame (repeat times in a row)
    binary,   // a binary frame
    frames,   // raw frames
    close,    // a close frame with `code` (odd codes included)
    drop,     // the TCP connection cut without a close frame
    sleep,    // wait `ms`
    await,    // wait up to `ms` for a frame on conn containing `data`; captures from it
  };
  Kind kind = Kind::text;
  std::string conn;                            // connection label
  std::string data;                            // see Kind
  std::string method;                          // http
  std::string path;                            // http
  std::map<std::string, std::string> headers;  // http, connect
  std::map<std::string, std::string> capture;  // http, await: variable -> JSON pointer into the answer
  std::string sign;        // text, AgentProtocol: "" | valid | none | bad | other-key | tamper-after | noncanonical
  int repeat = 1;          // text: a burst
  int ms = 0;              // sleep, await
  std::uint16_t code = 1000;  // close
  std::vector<RawFrame> frames;
  // The mutation(s) that made or changed this step ("NUL in a string at send_chunk /stream_id"):
  // what the step is about when it turns out to be the culprit; minimization keeps it.
  std::string mutation;
  bool operator==(const Step&) const = default;
};

struct Session {
  std::vector<Step> steps;
  std::vector<std::string> mutations;  // what was done to the seed flow (informative)
  std::size_t frame_count() const;
};

// Reproducer form of steps, and back (bounded: at most 10,000 steps).
Json steps_to_json(const std::vector<Step>& steps);
// The mutation tags of some steps, each once, in order ("" when none).
std::vector<std::string> mutation_tags(const std::vector<Step>& steps);
// Adds a mutation tag to a step.
void tag(Step& step, const std::string& mutation);
Expected<std::vector<Step>, std::string> steps_from_json(const Json& doc);

// Step constructors for seed flows.
Step connect_step(std::string conn, std::string path_and_query, std::map<std::string, std::string> headers = {});
Step text_step(std::string conn, const Json& message, std::string sign = {});
Step http_step(std::string conn, std::string method, std::string path, const Json& body,
               std::map<std::string, std::string> capture = {}, std::map<std::string, std::string> headers = {});
Step close_step(std::string conn, std::uint16_t code = 1000);
// Waits for a frame containing `needle` (a reactive flow's sync point: the contract id of an
// A2ACP handshake, ...); what it captures is available to later steps.
Step await_step(std::string conn, std::string needle, std::map<std::string, std::string> capture = {}, int ms = 2000);

}  // namespace ac::fuzz
