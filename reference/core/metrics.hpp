// Counters of the reference lobby, exported at GET /metrics in the Prometheus text format:
// connections (open and total), messages routed and errors by code, per protocol profile.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "harness/protocols/protocol_id.hpp"

namespace ac::ref {

// Heap bytes in use in this process, as the allocator counts them (glibc's mallinfo2, or
// AddressSanitizer's allocator under ASan).
std::uint64_t heap_in_use_bytes();

class Metrics {
 public:
  void connection_opened(proto::ProtocolId p);
  void connection_closed(proto::ProtocolId p);
  void routed(proto::ProtocolId p, std::uint64_t n = 1);
  void error(proto::ProtocolId p, std::string_view code);

  std::uint64_t open_connections(proto::ProtocolId p) const;
  std::uint64_t routed_total(proto::ProtocolId p) const;
  std::uint64_t errors_total(proto::ProtocolId p, std::string_view code) const;

  std::string prometheus() const;

 private:
  struct PerProfile {
    std::atomic<std::uint64_t> open{0}, total{0}, routed{0};
  };
  std::array<PerProfile, proto::kAllProtocols.size()> profiles_;
  mutable std::mutex errors_mutex_;
  std::map<std::pair<proto::ProtocolId, std::string>, std::uint64_t> errors_;
};

}  // namespace ac::ref
