// A deliberately minimal blocking WebSocket client for load generation against the reference
// lobby on loopback. The benchmarks measure the lobby, so the client must cost as little as
// possible: frames are pre-encoded once (masked with the all-zero key, which RFC 6455 §5.3
// allows and which leaves the payload bytes unchanged), written in large batches, and incoming
// frames are only delimited and counted. Not for anything but benchmarks: no TLS, no
// fragmentation, no close handshake.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ac::bench {

// A client-to-server text frame carrying `payload` (mask bit set, key 0).
std::string masked_text_frame(std::string_view payload);

class RawWs {
 public:
  // Connects to 127.0.0.1:port and performs the opening handshake for `path_and_query`.
  // Throws std::runtime_error on failure (benchmarks abort on a broken set-up).
  RawWs(std::uint16_t port, const std::string& path_and_query);
  ~RawWs();
  RawWs(const RawWs&) = delete;
  RawWs& operator=(const RawWs&) = delete;

  void write_all(std::string_view bytes);

  // Reads what is available (blocking until at least one byte) and calls on_text(payload) for
  // every complete text frame. Returns false when the server closed the connection.
  template <typename OnText>
  bool read_frames(OnText&& on_text) {
    if (!fill()) return false;
    std::string_view payload;
    while (next_frame(payload)) on_text(payload);
    return true;
  }

  int fd() const { return fd_; }
  // Frees the read buffer (idle connections in the memory benchmark should cost the client
  // nothing, so that the resident-set growth measured is the lobby's).
  void release_buffer();

 private:
  bool fill(std::size_t chunk = 256 * 1024);
  bool next_frame(std::string_view& text_payload);  // false: no complete frame buffered

  int fd_ = -1;
  std::string buffer_;
  std::size_t start_ = 0;  // first unconsumed byte of buffer_
  std::size_t end_ = 0;    // end of the received bytes in buffer_
};

// Resident set size of this process in bytes (/proc/self/statm).
std::size_t resident_bytes();
// Raises RLIMIT_NOFILE to its hard limit; returns the new soft limit.
std::size_t raise_fd_limit();

}  // namespace ac::bench
