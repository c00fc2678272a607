// A protocol's part of the live fuzzer (harness/fuzz/profiles/<protocol>.cpp): the valid seed
// flow, the mutations only that protocol knows (wrong versions, unknown stream or collaboration
// ids, forged tokens, bad signatures), what each frame sent obliges the target to do (the
// protocol and isolation oracles), and the liveness probe. The executor and the generator are
// generic; they call these hooks.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/crypto/ed25519.hpp"
#include "harness/engine/target.hpp"
#include "harness/fuzz/session.hpp"
#include "harness/net/client.hpp"

namespace ac::fuzz {

using Rng = std::mt19937_64;

std::size_t pick(Rng& rng, std::size_t n);  // uniform in [0, n), 0 when n == 0
bool chance(Rng& rng, double p);

// What an oracle found. The signature is a fixed sentence without ids or values, so the same
// bug found twice deduplicates.
struct Trip {
  std::string oracle;     // liveness | crash | hang | protocol | isolation | memory
  std::string signature;
  std::string detail;
  // How a target that went away was seen to go (crash, hang): "refused" (nothing accepts
  // connections), "reset" (connections cut without a close frame), "silent" (connections accepted,
  // nothing answered), "hung" (an open connection stopped answering pings), "exited" (the process
  // monitor saw it end), "killed" (hung, and the monitor killed it). Empty for the other oracles.
  std::string observed;
};

// A received event, with its JSON object once an oracle asked for it (event_object): the oracles
// read every event of a session several times (satisfied() after each drain, then judge()), and
// parsing it again each time was a tenth of an A2ACP campaign (perf, issue 16).
struct Received : net::WsEvent {
  Received(net::WsEvent e) : net::WsEvent(std::move(e)) {}  // NOLINT: every WsEvent is one, as received
  mutable std::optional<std::optional<Json>> object;        // outer: parsed yet; inner: an object
};

// One connection of an execution, as the oracles see it.
struct ConnRecord {
  std::string label;
  std::string id;                        // the agent id the label stands for
  std::shared_ptr<net::WsClient> ws;
  bool clean = true;        // sent nothing the target may legitimately fail the connection for
  bool closed = false;      // a close event (or the end of the transport) was seen
  bool sent_close = false;  // the session closed or dropped it
  bool reset = false;       // the transport ended without a close frame from the target
  bool http = false;        // not a WebSocket: each text step is an HTTP POST to http_path, its answer an event
  std::string http_path;
  std::shared_ptr<net::HttpConnection> http_connection;  // the POSTs' connection, kept alive between them
  std::uint16_t close_code = 0;
  bool refused = false;     // the upgrade was answered with a non-101 status
  int refused_status = 0;
  std::vector<Received> events;      // text, binary and close events received (bounded, below)
  std::size_t events_bytes = 0;      // their data
  std::uint64_t events_dropped = 0;  // past kMaxConnEvents / kMaxConnEventBytes: counted, not kept
  std::vector<std::string> sent;     // payloads sent (text and binary frames, raw frames joined), after substitution and signing
  Json expect = Json::object();      // the profile's bookkeeping for this connection

  // Accepted, and neither ended by the target nor closed or dropped by the session.
  bool open() const { return ws && !closed && !sent_close; }
};

// What one connection of a session keeps of what it received: a flooding target is counted,
// not stored (docs/limits.md). Close events are always kept.
inline constexpr std::size_t kMaxConnEvents = 4096;
inline constexpr std::size_t kMaxConnEventBytes = 8u << 20;

// One execution of a session.
struct Exec {
  std::string prefix;                          // unique per execution: "fz123-4-"
  std::map<std::string, std::string> vars;     // placeholder values
  // Every connection opened (a label reconnected gets a new record; the old one is kept for
  // the oracles), and each label's current one.
  std::vector<ConnRecord> conns;
  std::map<std::string, std::size_t> current;
  std::map<std::string, crypto::Ed25519PrivateKey> keys;  // AgentProtocol identities per label
  Json state = Json::object();                 // the profile's bookkeeping for the execution

  ConnRecord* conn(const std::string& label) {
    auto it = current.find(label);
    return it == current.end() ? nullptr : &conns[it->second];
  }
  const ConnRecord* conn(const std::string& label) const {
    auto it = current.find(label);
    return it == current.end() ? nullptr : &conns[it->second];
  }
  // The agent id a label stands for ("" when the profile gave it none).
  std::string id_of(const std::string& label) const {
    auto it = vars.find(label);
    return it == vars.end() ? std::string() : it->second;
  }
};

// What of its protocol the target plays (target.json "roles" and "transports", as `run` reads
// them; empty: all): an A2ACP auth service alone, a broker alone, AgentProtocol over HTTP only.
// Generation depends on it (a pure function of seed, index, families and scope).
struct Scope {
  std::set<std::string> roles, transports;
  bool plays(const std::string& role) const { return roles.empty() || roles.count(role) != 0; }
  bool offers(const std::string& transport) const { return transports.empty() || transports.count(transport) != 0; }
  static Scope of(const engine::TargetConfig& config) { return Scope{config.roles, config.transports}; }
};

// What the executor knows about the target.
struct TargetView {
  engine::TargetConfig config;  // paths, settings, http_base, ws_base, TLS
  net::Runtime* runtime = nullptr;
  std::chrono::milliseconds probe_timeout{5000};
};

class Profile {
 public:
  virtual ~Profile() = default;
  virtual Protocol protocol() const = 0;

  // ---- generation (pure functions of the generator)
  virtual std::vector<Step> seed_flow(Rng& rng, const Scope& scope) const = 0;
  // A mutation of the protocol's own structure ("" when it has none to offer).
  virtual std::string structure(Rng& rng, std::vector<Step>& steps) const;
  // An authentication / cryptography mutation ("" when the protocol has no such thing).
  virtual std::string auth(Rng& rng, std::vector<Step>& steps) const;
  // How many rounds of 1-3 mutations a seed flow takes: one, unless a profile makes long seed
  // flows (one handshake, many exchanges after it), where mutations keep their density.
  virtual std::size_t mutation_rounds(const std::vector<Step>& /*seed*/) const { return 1; }

  // ---- execution
  // Variables of the execution (agent ids per label, settings the placeholders name).
  virtual void begin(Exec& exec, const TargetView& target) const = 0;
  // Placeholders the generic ones do not cover (tokens, ...); nullopt leaves it as written.
  virtual std::optional<std::string> resolve(Exec& exec, const TargetView& target, const std::string& name) const;
  // A text payload just before it leaves: signing (AgentProtocol).
  virtual std::string finish_text(Exec& exec, const Step& step, std::string payload) const;
  // After a connect step: accepted (c.ws set) or refused.
  virtual void connected(Exec& exec, ConnRecord& c, const Step& step) const;
  // After a clean text frame left on c (payload as sent).
  virtual void sent(Exec& exec, ConnRecord& c, const std::string& payload) const;
  // Every expectation of the execution is met (the executor stops waiting early).
  virtual bool satisfied(const Exec& exec) const;
  // The protocol and isolation oracles.
  virtual std::optional<Trip> judge(const Exec& exec) const = 0;
  // Liveness: a known-good exchange on fresh connections. `salt` makes its ids unique. A target
  // that answers, but not as the spec says, gets a "protocol" trip: it is alive (see answers()),
  // and its cases, not a setup error, say what it breaks.
  virtual std::optional<Trip> probe(const TargetView& target, const std::string& salt) const = 0;
};

const Profile& profile_for(Protocol p);

// ---- helpers shared by the profiles
std::optional<Json> strict_object(const std::string& text);  // the project's strict reader
// A JSON object as the oracles hold a target to: valid by the strict reader and without a leading
// byte-order mark (RFC 8259 forbids sending one; a reader may skip it, so a frame with one is
// neither owed an answer nor tracked: refused, ignored or read, all are fine).
bool plain_json_object(const std::string& text);
std::optional<Json> plain_object(const std::string& text);  // that object (read once by sent())
// nlohmann's lenient reading, discarded when the text nests deeper than kLooseDepth: the fuzzer
// generates (and hostile targets send) nesting thousands deep, which nlohmann copies, compares and
// serializes recursively, deep enough to overflow a worker thread's stack.
inline constexpr std::size_t kLooseDepth = 256;
Json parse_loose(std::string_view text);
// A string member as a lenient reader would find it in text that is not plain JSON (a BOM, a
// number out of range, a lone surrogate): "" when there is none.
std::string lenient_member(const std::string& text, const char* key);
std::optional<Json> event_object(const net::WsEvent& e);       // a received text frame as an object
const Json* event_object(const Received& e);                    // the same, read once per event
std::string shorten(const std::string& s, std::size_t n = 200);  // cut at a UTF-8 character boundary
std::string dump_text(const Json& j);  // compact JSON, bytes that are not UTF-8 replaced (never throws)
std::string member_string(const Json& j, const char* key);     // "" when absent or not a string
// The value at a path of member names (null when any step is missing or not an object), and
// the string there ("" otherwise): reads of what a target sent, which never throw.
const Json& at_path(const Json& j, std::initializer_list<const char*> path);
std::string string_at(const Json& j, std::initializer_list<const char*> path);
// A probe's verdict on liveness: no trip, or a "protocol" one (an answer that breaks the spec).
inline bool answers(const std::optional<Trip>& probe) { return !probe || probe->oracle == "protocol"; }
// The probe's expected answer did not come on `ws`: `hang` if a ping is not answered either,
// else the same failure as a "protocol" trip (alive, answering otherwise than the spec says).
Trip probe_unanswered(net::WsClient& ws, const TargetView& target, Trip hang);
// Waits for an event the predicate accepts; false at a close or the deadline.
bool wait_for(net::WsClient& ws, const std::function<bool(const net::WsEvent&)>& want, std::chrono::milliseconds budget);
// A fresh probe connection (ws_base + path), or the failure as a liveness trip.
Expected<std::shared_ptr<net::WsClient>, Trip> probe_connect(const TargetView& target, const std::string& path_and_query,
                                                             net::Headers headers = {});
Expected<net::HttpResult, Trip> probe_http(const TargetView& target, const std::string& method, const std::string& path,
                                           const std::string& body, net::Headers headers = {});

// ---- owed errors: the protocol oracle of the request/answer protocols (A2ACP, AgentProtocol).
// A clean frame the target must refuse is "owed" an error on its connection, either a named
// one (the spec requires that code) or any error ("" code).
void owe_error(ConnRecord& c, const std::string& payload, const std::string& code = "", const std::string& why = "");
// The error messages the target sent on a connection, as the protocol recognizes them.
using ErrorsOf = std::function<std::vector<Json>(const ConnRecord&)>;
// Every clean open connection got at least as many errors as it is owed (the executor may stop waiting).
bool owed_errors_arrived(const Exec& exec, const ErrorsOf& errors_of);
// What the oracle judges: the first clean connection with fewer errors than owed (signature
// `missing`), or fewer errors whose code is one of `accepted` than frames owed `named` (signature
// `wrong_code`; the detail lists the codes that came).
struct OwedErrorRule {
  std::string missing;
  std::string named;
  std::set<std::string> accepted;
  std::string wrong_code;
};
std::optional<Trip> judge_owed_errors(const Exec& exec, const ErrorsOf& errors_of, const std::function<std::string(const Json&)>& code_of,
                                      const OwedErrorRule& rule);
// A frame some connection sent byte for byte that the profile's bookkeeping does not hold (an
// unclean connection's, or text that is not plain JSON): forwarded as is, the isolation oracle
// holds it to nothing. Profiles ask only after their tracked checks (recipient, relayed map).
bool sent_untracked(const Exec& exec, const std::string& frame);

}  // namespace ac::fuzz
