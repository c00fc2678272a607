#include "reference/agora/relay.hpp"

#include <thread>

#include <type_traits>

#include "harness/protocols/agora/builders.hpp"
#include "harness/protocols/agora/codec.hpp"
#include "harness/json/strict_reader.hpp"
#include "reference/core/lenient_types.hpp"

namespace ac::ref::agora {
namespace {

namespace pa = proto::agora;
constexpr auto kAgora = proto::ProtocolId::agora;
// A fault that buffers chunks still never holds more than this many per stream.
constexpr std::size_t kFaultBufferCap = 4096;

// `to` of a sender-side frame (send*, reply*); nullptr for relay-side frames.
const std::string* to_of(const pa::Message& m) {
  return std::visit(
      [](const auto& b) -> const std::string* {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, pa::Send> || std::is_same_v<T, pa::SendChunk> || std::is_same_v<T, pa::SendEnd> ||
                      std::is_same_v<T, pa::Reply> || std::is_same_v<T, pa::ReplyChunk> || std::is_same_v<T, pa::ReplyEnd>) {
          return &b.to;
        } else {
          return nullptr;
        }
      },
      m.body);
}

// The `from` a client wrote into its own frame (only the agora.from.trust-client fault reads it).
std::optional<std::string> client_from(const pa::Message& m) {
  return std::visit(
      [](const auto& b) -> std::optional<std::string> {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, pa::Reply> || std::is_same_v<T, pa::ReplyChunk> || std::is_same_v<T, pa::ReplyEnd>) {
          return b.from;
        } else {
          auto it = b.extra.find("from");
          if (it != b.extra.end() && it->is_string() && !it->template get_ref<const std::string&>().empty()) {
            return it->template get<std::string>();
          }
          return std::nullopt;
        }
      },
      m.body);
}

void clear_extra(pa::Message& m) {
  std::visit([](auto& b) { b.extra = pa::Json::object(); }, m.body);
}

// agora.reply.as-message: what a relay that treats replies like sends would deliver.
pa::Message reply_as_message(pa::Message m) {
  if (auto* r = m.get<pa::Reply>()) return pa::Message{pa::Forward{*r->from, r->stream_id, r->stream, r->payload, r->extra}};
  if (auto* r = m.get<pa::ReplyChunk>()) return pa::Message{pa::ForwardChunk{*r->from, r->stream_id, r->chunk, r->extra}};
  if (auto* r = m.get<pa::ReplyEnd>()) return pa::Message{pa::ForwardEnd{*r->from, r->stream_id, r->extra}};
  return m;
}

bool json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A JSON string at s[i] ('"' ... '"') without escape sequences or control characters (so its
// bytes are its value); false for anything else. Advances i past the closing quote.
bool plain_string(std::string_view s, std::size_t& i, std::string_view& out) {
  if (i >= s.size() || s[i] != '"') return false;
  const std::size_t start = ++i;
  for (; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"') {
      out = s.substr(start, i - start);
      ++i;
      return true;
    }
    if (c == '\\' || c < 0x20) return false;
  }
  return false;
}

// The frame is {"type":"send_chunk","to":...,"stream_id":...,"chunk":...} in any member order,
// with JSON whitespace, each member once, every value a plain string (see plain_string), `to` and
// `stream_id` not empty: then a valid send_chunk (its schema asks no more) with no other member.
// Anything else returns false, and the codec path decides.
bool scan_send_chunk(std::string_view s, std::string_view& to, std::string_view& stream_id, std::string_view& chunk) {
  std::size_t i = 0;
  auto ws = [&] {
    while (i < s.size() && json_space(s[i])) ++i;
  };
  ws();
  if (i >= s.size() || s[i] != '{') return false;
  ++i;
  bool seen[4] = {false, false, false, false};
  std::string_view type;
  for (int member = 0; member < 4; ++member) {
    ws();
    std::string_view key, value;
    if (!plain_string(s, i, key)) return false;
    ws();
    if (i >= s.size() || s[i] != ':') return false;
    ++i;
    ws();
    if (!plain_string(s, i, value)) return false;
    int k = key == "type" ? 0 : key == "to" ? 1 : key == "stream_id" ? 2 : key == "chunk" ? 3 : -1;
    if (k < 0 || seen[k]) return false;
    seen[k] = true;
    (k == 0 ? type : k == 1 ? to : k == 2 ? stream_id : chunk) = value;
    ws();
    if (i >= s.size()) return false;
    if (s[i] == ',' && member < 3) {
      ++i;
      continue;
    }
    if (s[i] != '}' || member != 3) return false;
    ++i;
  }
  ws();
  return i == s.size() && type == "send_chunk" && !to.empty() && !stream_id.empty();
}

std::string frame_text(const std::optional<std::string>& stream_id) {
  return stream_id ? " (stream_id \"" + *stream_id + "\")" : std::string();
}

}  // namespace

Relay::Relay(HubContext& context, Settings settings) : context_(context), settings_(std::move(settings)) {
  limits_.max_bytes = settings_.max_frame_bytes;
  fast_path_ = settings_.fast_path && !settings_.faults.any;
}

// ---------------------------------------------------------------------------------------------
// Registration

std::string Relay::id_problem(const std::string& id) const {
  if (id.empty()) return "an agent id is required (a non-empty string, reading AG-8)";
  if (id.size() > settings_.max_agent_id_bytes) {
    return "the agent id is longer than " + std::to_string(settings_.max_agent_id_bytes) + " bytes";
  }
  json::Utf8Problem problem{};
  if (json::find_encoding_problem(id, problem, /*nul_is_error=*/true)) return "the agent id is not valid UTF-8 text";
  return "";
}

bool Relay::register_id(const ConnPtr& conn, const std::string& id) {
  conn->agent_id = id;
  auto it = registry_.find(id);
  const ConnPtr holder = it == registry_.end() ? nullptr : it->second.lock();
  if (holder && holder != conn && reachable(*holder) && !settings_.faults.registration_allow_hijack) {
    conn->refusal = "agent id \"" + id + "\" is bound to another live connection";
    return false;
  }
  registry_[id] = conn;
  conn->registered = true;
  conn->from_json = Json(id).dump(-1, ' ', false, Json::error_handler_t::replace);
  // Entries of connections whose upgrade failed after it was accepted expire without a close:
  // drop them once the registry has doubled since the last sweep, so it stays bounded.
  if (registry_.size() >= sweep_at_) {
    std::erase_if(registry_, [](const auto& entry) { return entry.second.expired(); });
    sweep_at_ = std::max<std::size_t>(1024, registry_.size() * 2);
  }
  return true;
}

net::UpgradeDecision Relay::on_upgrade(const net::HttpRequest& request) {
  auto conn = std::make_shared<Conn>(settings_.ended_streams_remembered);
  if (settings_.binding == Binding::query) {
    // Bound now, before the 101 is written: a client that got its handshake answer is reachable.
    const std::string id = request.query_value(settings_.query_parameter);
    if (std::string problem = id_problem(id); !problem.empty()) {
      context_.metrics.error(kAgora, "INVALID_AGENT_ID");
      return net::UpgradeDecision::refuse(
          400, Json{{"type", "error"}, {"code", "INVALID_AGENT_ID"},
                    {"message", problem + ": connect with ?" + settings_.query_parameter + "=<agent id>"}}.dump());
    }
    std::lock_guard lock(mutex_);
    register_id(conn, id);
  }
  return net::UpgradeDecision::allow(conn);
}

void Relay::handle_register(const ConnPtr& conn, std::string_view frame) {
  auto parsed = json::parse_strict(frame, limits_);
  std::lock_guard lock(mutex_);
  const Json* id = nullptr;
  if (parsed && parsed->is_object() && parsed->value("type", Json()) == "register") {
    auto it = parsed->find("agent_id");
    if (it != parsed->end() && it->is_string()) id = &*it;
  }
  if (id == nullptr) {
    return send_error(*conn, "NOT_REGISTERED",
                      "register first with {\"type\":\"register\",\"agent_id\":\"<agent id>\"}", std::nullopt);
  }
  if (std::string problem = id_problem(id->get<std::string>()); !problem.empty()) {
    return send_error(*conn, "INVALID_AGENT_ID", problem, std::nullopt);
  }
  if (!register_id(conn, id->get<std::string>())) {
    send_error(*conn, "AGENT_ID_TAKEN", conn->refusal, std::nullopt);
    if (conn->peer) conn->peer->close(net::close_code::policy_violation, "agent id taken");
    return;
  }
  deliver(*conn, Json{{"type", "registered"}, {"agent_id", conn->agent_id}}.dump());
}

// ---------------------------------------------------------------------------------------------
// Connection events

void Relay::on_open(const std::shared_ptr<net::Peer>& peer) {
  context_.metrics.connection_opened(kAgora);
  auto conn = std::static_pointer_cast<Conn>(peer->attachment);
  if (!conn) return peer->close(net::close_code::internal_error, "no connection state");
  std::lock_guard lock(mutex_);
  conn->peer = peer;
  conn->opened = true;
  if (!conn->refusal.empty()) {
    // Reading AG-1: the id stays with the first connection; this one is told why, then closed.
    send_error(*conn, "AGENT_ID_TAKEN", conn->refusal, std::nullopt);
    return peer->close(net::close_code::policy_violation, "agent id taken");
  }
  for (auto& frame : conn->early) peer->send_text(std::move(frame));
  conn->early.clear();
  if (conn->early_overflow) peer->close(net::close_code::policy_violation, "too many frames queued before the connection opened");
}

void Relay::on_close(const std::shared_ptr<net::Peer>& peer, const net::CloseInfo&) {
  context_.metrics.connection_closed(kAgora);
  auto conn = std::static_pointer_cast<Conn>(peer->attachment);
  if (!conn) return;
  std::lock_guard lock(mutex_);
  conn->closed = true;
  open_streams_ -= conn->streams.clear();  // its streams end without an end frame
  if (!conn->refusal.empty()) {
    if (settings_.faults.registration_refusal_unbinds) registry_.erase(conn->agent_id);
  } else if (conn->registered) {
    auto it = registry_.find(conn->agent_id);
    if (it != registry_.end() && it->second.lock() == conn) {
      if (settings_.faults.binding_keep_after_disconnect) {
        if (zombies_.size() < 10000) zombies_.push_back(conn);  // keeps the stale binding alive
      } else {
        registry_.erase(it);  // "remove from registry on disconnect"
      }
    }
  }
  conn->peer.reset();
  conn->early.clear();
}

void Relay::on_message(const std::shared_ptr<net::Peer>& peer, std::string_view frame, bool binary) {
  auto* conn_raw = static_cast<Conn*>(peer->attachment.get());
  if (conn_raw == nullptr) return;
  if (fast_path_ && !binary) {
    std::string_view to, stream_id, chunk;
    // from_json is written when the connection registers, which happens on this connection
    // before any of its frames is handled: it can be read before taking the lock.
    if (!conn_raw->from_json.empty() && scan_send_chunk(frame, to, stream_id, chunk)) {
      // The codec path's bytes: ForwardChunk as JSON, members sorted (chunk, from, stream_id, type),
      // built before the lock is taken.
      std::string out;
      out.reserve(chunk.size() + stream_id.size() + conn_raw->from_json.size() + 56);
      out += "{\"chunk\":\"";
      out += chunk;
      out += "\",\"from\":";
      out += conn_raw->from_json;
      out += ",\"stream_id\":\"";
      out += stream_id;
      out += "\",\"type\":\"message_chunk\"}";
      std::lock_guard lock(mutex_);
      if (!conn_raw->refusal.empty() || conn_raw->closed) return;
      if (conn_raw->registered && fast_chunk(*conn_raw, to, stream_id, out)) return;
      // Not for the fast path (no such stream, the recipient left, ...): the codec path answers.
    }
  }
  auto conn = std::static_pointer_cast<Conn>(peer->attachment);
  bool registered = false;
  {
    std::lock_guard lock(mutex_);
    if (!conn->refusal.empty() || conn->closed) return;  // refused: closing, nothing it sends counts
    if (binary) return invalid_frame(*conn, "binary frame: Agora frames are JSON text frames");
    registered = conn->registered;
  }
  // Only in first-frame binding (query binding registers at the upgrade).
  if (!registered) return handle_register(conn, frame);
  std::string lax_frame;
  if (settings_.faults.coerce_wrong_types) {  // fault: a wrongly typed member is read as the type expected
    frame = coerce_wrong_types_in_text(proto::Catalog::builtin().profile(proto::ProtocolId::agora), frame, limits_, lax_frame);
  }
  auto decoded = pa::decode(frame, limits_);
  std::lock_guard lock(mutex_);
  if (conn->closed) return;
  if (!decoded) return invalid_frame(*conn, decoded.error().describe());
  route(*conn, *decoded);
}

// ---------------------------------------------------------------------------------------------
// Routing

void Relay::route(Conn& sender, const Message& msg) {
  using T = pa::MessageType;
  switch (msg.type()) {
    case T::send: return start_or_oneshot(sender, msg, Family::send);
    case T::reply: return start_or_oneshot(sender, msg, Family::reply);
    case T::send_chunk: return chunk_or_end(sender, msg, Family::send, false);
    case T::reply_chunk: return chunk_or_end(sender, msg, Family::reply, false);
    case T::send_end: return chunk_or_end(sender, msg, Family::send, true);
    case T::reply_end: return chunk_or_end(sender, msg, Family::reply, true);
    default:
      return invalid_frame(sender, "frames of type \"" + std::string(msg.type_name()) +
                                       "\" are sent by the relay, not to it (agents send send*, reply*)");
  }
}

void Relay::start_or_oneshot(Conn& sender, const Message& msg, Family family) {
  const std::string& to = *to_of(msg);
  const auto stream_id = msg.stream_id();
  const auto* send = msg.get<pa::Send>();
  const auto* reply = msg.get<pa::Reply>();
  const bool streaming = send ? send->stream.value_or(false) : reply->stream.value_or(false);
  if (!streaming) {
    // One-shot (stream absent or false): complete in itself, no stream is opened even if it
    // carries a stream_id (forwarded as-is).
    auto target = lookup(to);
    if (!target) return unknown_recipient(sender, to, stream_id);
    return deliver_routed(sender, *target, forwarded(sender, msg));
  }
  const StreamKey key{family, *stream_id};
  if (sender.streams.find(key) != nullptr) {
    return send_error(sender, "STREAM_ID_IN_USE",
                      "stream_id \"" + *stream_id + "\" names a stream you have open; end it before reusing the id", stream_id);
  }
  if (sender.streams.open_count() >= settings_.max_open_streams_per_agent || open_streams_ >= settings_.max_open_streams_total) {
    return send_error(sender, "TOO_MANY_STREAMS",
                      "too many open streams (" + std::to_string(settings_.max_open_streams_per_agent) +
                          " per agent); end one before starting another",
                      stream_id);
  }
  auto target = lookup(to);
  if (!target) return unknown_recipient(sender, to, stream_id);
  deliver_routed(sender, *target, forwarded(sender, msg));
  sender.streams.open(key, OpenStream{to, target, std::nullopt, {}});
  ++open_streams_;
}

void Relay::chunk_or_end(Conn& sender, const Message& msg, Family family, bool end) {
  const std::string& to = *to_of(msg);
  const StreamKey key{family, *msg.stream_id()};
  OpenStream* stream = sender.streams.find(key);
  if (stream == nullptr || stream->to != to) {
    const bool ended = stream == nullptr && sender.streams.is_ended(key);
    if ((ended && settings_.faults.stream_accept_after_end) || (!ended && settings_.faults.stream_accept_unknown)) {
      return forward_without_stream(sender, msg, to);
    }
    if (ended && end && settings_.faults.planted_hang_double_end) {
      // Planted bug (fuzzer proof): a second end frame blocks this thread for ever while it holds
      // the relay's lock, so every other frame of every agent waits behind it.
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    if (ended) {
      return send_error(sender, "STREAM_ENDED", "stream \"" + key.stream_id + "\" has already ended", key.stream_id);
    }
    return send_error(sender, "UNKNOWN_STREAM",
                      stream == nullptr ? "no stream \"" + key.stream_id + "\" was started by you (send with stream: true first)"
                                        : "your stream \"" + key.stream_id + "\" goes to \"" + stream->to + "\", not to \"" + to + "\"",
                      key.stream_id);
  }
  auto target = stream->target.lock();
  if (!target || !reachable(*target)) {
    // The recipient left during the stream: it cannot get the rest (its new connection, if any,
    // never saw the start). The stream stays open until the sender ends it.
    unknown_recipient(sender, to, key.stream_id);
    if (end) {
      sender.streams.end(key);
      --open_streams_;
    }
    return;
  }
  if (!end) {
    const auto* chunk = msg.get<pa::SendChunk>();
    const std::string& text = chunk ? chunk->chunk : msg.get<pa::ReplyChunk>()->chunk;
    if (text.empty() && settings_.faults.chunks_drop_empty) return;
    if (text.empty() && settings_.faults.planted_empty_chunk_elsewhere) {
      // Planted bug (fuzzer proof): the chunk goes to some other live agent instead.
      for (auto& [id, weak] : registry_) {
        auto other = weak.lock();
        if (other && other != target && other.get() != &sender && reachable(*other)) {
          return deliver_routed(sender, *other, forwarded(sender, msg));
        }
      }
    }
    std::string frame = forwarded(sender, msg);
    if (load_fault(sender, *target, *stream, frame)) return;
    if (settings_.faults.chunks_reorder) {  // swaps every pair of chunks
      if (!stream->held) {
        stream->held = std::move(frame);
        return;
      }
      deliver_routed(sender, *target, std::move(frame));
      deliver_routed(sender, *target, std::move(*stream->held));
      stream->held.reset();
      return;
    }
    if (settings_.faults.stream_buffer_until_end && stream->buffered.size() < kFaultBufferCap) {
      stream->buffered.push_back(std::move(frame));
      return;
    }
    return deliver_routed(sender, *target, std::move(frame));
  }
  if (stream->held) deliver_routed(sender, *target, std::move(*stream->held));
  for (auto& frame : stream->buffered) deliver_routed(sender, *target, std::move(frame));
  deliver_routed(sender, *target, forwarded(sender, msg));
  sender.streams.end(key);
  --open_streams_;
}

void Relay::forward_without_stream(Conn& sender, const Message& msg, const std::string& to) {
  auto target = lookup(to);
  if (!target) return unknown_recipient(sender, to, msg.stream_id());
  deliver_routed(sender, *target, forwarded(sender, msg));
}

std::string Relay::forwarded(const Conn& sender, const Message& msg) const {
  std::string from = sender.agent_id;  // the binding names the sender, never the frame
  if (settings_.faults.from_trust_client) {
    if (auto claimed = client_from(msg)) from = *claimed;
  }
  auto out = pa::make_forward(msg, std::move(from));
  if (settings_.faults.forward_strip_extra) clear_extra(*out);
  if (settings_.faults.reply_as_message) *out = reply_as_message(std::move(*out));
  return pa::encode(*out);
}

bool Relay::fast_chunk(Conn& sender, std::string_view to, std::string_view stream_id, std::string& forwarded) {
  OpenStream* stream = sender.streams.find(StreamKey{Family::send, std::string(stream_id)});
  if (stream == nullptr || stream->to != to) return false;
  auto target = stream->target.lock();
  if (!target || !reachable(*target)) return false;
  deliver_routed(sender, *target, std::move(forwarded));
  ++fast_chunks_;
  return true;
}

Relay::ConnPtr Relay::lookup(const std::string& agent_id) const {
  auto it = registry_.find(agent_id);
  if (it == registry_.end()) return nullptr;
  auto conn = it->second.lock();
  return conn && reachable(*conn) ? conn : nullptr;
}

bool Relay::reachable(const Conn& c) const { return !c.closed || settings_.faults.binding_keep_after_disconnect; }

void Relay::deliver(Conn& to, std::string frame) {
  if (to.closed) return;  // only under agora.binding.keep-after-disconnect: lost
  if (to.peer) return to.peer->send_text(std::move(frame));
  // Upgrade accepted, open not yet run: keep the order, within a cap.
  if (to.early.size() < settings_.max_pending_frames) {
    to.early.push_back(std::move(frame));
  } else {
    to.early_overflow = true;
  }
}

void Relay::deliver_routed(Conn& sender, Conn& to, std::string frame) {
  context_.metrics.routed(kAgora);
  if (settings_.faults.routing_broadcast) {
    for (auto& [id, weak] : registry_) {
      auto other = weak.lock();
      if (other && other.get() != &to && other.get() != &sender && !other->closed) deliver(*other, frame);
    }
  }
  deliver(to, std::move(frame));
}

// ---------------------------------------------------------------------------------------------
// Load-only faults (kind "load" in faults.json): what a relay gets wrong only under load. No
// conformance case sends a thousand chunks on a connection or 500 a second, so `run` never sees
// them; `agentconform load` does (tests/load/load_cli_test.cpp, LoadFaults).

bool Relay::busy(Conn& sender) {
  const auto now = context_.clock();
  if (now - sender.rate_window_start >= std::chrono::seconds(1)) {
    sender.rate_previous_chunks = now - sender.rate_window_start < std::chrono::seconds(2) ? sender.rate_window_chunks : 0;
    sender.rate_window_chunks = 0;
    sender.rate_window_start = now;
  }
  ++sender.rate_window_chunks;
  return sender.rate_window_chunks >= 500 || sender.rate_previous_chunks >= 500;
}

bool Relay::load_fault(Conn& sender, Conn& target, OpenStream& stream, std::string& frame) {
  const Faults& f = settings_.faults;
  if (!f.load_drop_one_in_n && !f.load_reorder_under_contention && !f.load_misdeliver_under_contention) return false;
  const std::uint64_t n = ++sender.chunks_sent;
  if (f.load_drop_one_in_n && n % 1000 == 0) return true;  // lost without a trace
  if (f.load_reorder_under_contention && stream.held) {
    // The chunk held back goes out after this one.
    deliver_routed(sender, target, std::move(frame));
    deliver_routed(sender, target, std::move(*stream.held));
    stream.held.reset();
    return true;
  }
  if ((f.load_reorder_under_contention || f.load_misdeliver_under_contention) && busy(sender) && n % 100 == 0) {
    if (f.load_reorder_under_contention) {
      stream.held = std::move(frame);
      return true;
    }
    for (auto& [id, weak] : registry_) {
      auto other = weak.lock();
      if (other && other.get() != &target && other.get() != &sender && reachable(*other)) {
        deliver_routed(sender, *other, std::move(frame));
        return true;
      }
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Errors (reading AG-6)

void Relay::send_error(Conn& to, const std::string& code, const std::string& text, std::optional<std::string> stream_id) {
  context_.metrics.error(kAgora, code);
  if (settings_.faults.error_no_stream_id) stream_id.reset();
  deliver(to, pa::encode(pa::make_error(code, text, std::move(stream_id))));
}

void Relay::unknown_recipient(Conn& sender, const std::string& to, const std::optional<std::string>& stream_id) {
  if (settings_.faults.error_silent_unknown_recipient) return;
  send_error(sender, "UNKNOWN_RECIPIENT", "no agent \"" + to + "\" is connected" + frame_text(stream_id), stream_id);
}

void Relay::invalid_frame(Conn& sender, const std::string& text) {
  send_error(sender, "INVALID_FRAME", text, std::nullopt);
  if (settings_.faults.frame_close_on_invalid && sender.peer) sender.peer->close(net::close_code::policy_violation, "invalid frame");
}

Json Relay::status() const {
  std::lock_guard lock(mutex_);
  std::size_t online = 0;
  for (const auto& [id, weak] : registry_) {
    auto c = weak.lock();
    if (c && !c->closed) ++online;
  }
  return {{"agents_online", online}, {"open_streams", open_streams_}, {"fast_path_chunks", fast_chunks_}};
}

}  // namespace ac::ref::agora
