// The open streams of one sending connection. A stream is identified by its sender (this table
// belongs to one connection), its family (a `send` stream or a `reply` stream: a reply may reuse
// the request's stream_id, "same or new stream_id", while the replier has its own outgoing stream
// of that id) and its stream_id. Ended streams are remembered (a bounded FIFO) so that a chunk
// after the end is told apart from a chunk of a stream never started (STREAM_ENDED vs
// UNKNOWN_STREAM, reading AG-6). Not thread-safe: the relay holds its mutex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ac::ref::agora {

enum class Family : std::uint8_t { send, reply };

struct StreamKey {
  Family family = Family::send;
  std::string stream_id;
  bool operator==(const StreamKey&) const = default;
};

struct StreamKeyHash {
  std::size_t operator()(const StreamKey& k) const noexcept {
    return std::hash<std::string>{}(k.stream_id) * 31u + static_cast<std::size_t>(k.family);
  }
};

struct Conn;

struct OpenStream {
  std::string to;              // the recipient named by the start frame
  std::weak_ptr<Conn> target;  // the recipient's connection at the start: chunks go there or nowhere
  // Fault state only (agora.chunks.reorder, agora.stream.buffer-until-end).
  std::optional<std::string> held;
  std::vector<std::string> buffered;
};

class StreamTable {
 public:
  explicit StreamTable(std::size_t ended_capacity) : ended_capacity_(ended_capacity) {}

  OpenStream* find(const StreamKey& key);
  bool is_ended(const StreamKey& key) const { return ended_.count(key) != 0; }
  // Opens a stream (the caller checked it is not open); forgets an earlier end of the same id,
  // so a stream_id may be used again once its stream has ended.
  OpenStream& open(const StreamKey& key, OpenStream stream);
  // Closes an open stream and remembers the end (the oldest remembered end is forgotten first).
  void end(const StreamKey& key);
  std::size_t open_count() const { return open_.size(); }
  // Forgets everything (the connection closed); returns how many streams were open.
  std::size_t clear();

 private:
  std::size_t ended_capacity_;
  std::unordered_map<StreamKey, OpenStream, StreamKeyHash> open_;
  std::unordered_set<StreamKey, StreamKeyHash> ended_;
  std::deque<StreamKey> ended_order_;
};

}  // namespace ac::ref::agora
