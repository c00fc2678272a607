#include "reference/core/metrics.hpp"

#include <malloc.h>

#include <cstddef>

// Under AddressSanitizer the heap is ASan's, which glibc's mallinfo2 does not see.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AC_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define AC_ASAN 1
#endif
#ifdef AC_ASAN
// The sanitizer runtime's allocator statistics (declared by hand: GCC ships the runtime but not
// clang's <sanitizer/allocator_interface.h>).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace ac::ref {

std::uint64_t heap_in_use_bytes() {
#ifdef AC_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  const auto info = mallinfo2();
  return info.uordblks + info.hblkhd;  // small chunks in use + large (mmapped) ones
#endif
}

void Metrics::connection_opened(proto::ProtocolId p) {
  auto& c = profiles_[static_cast<std::size_t>(p)];
  c.open.fetch_add(1, std::memory_order_relaxed);
  c.total.fetch_add(1, std::memory_order_relaxed);
}

void Metrics::connection_closed(proto::ProtocolId p) {
  profiles_[static_cast<std::size_t>(p)].open.fetch_sub(1, std::memory_order_relaxed);
}

void Metrics::routed(proto::ProtocolId p, std::uint64_t n) {
  profiles_[static_cast<std::size_t>(p)].routed.fetch_add(n, std::memory_order_relaxed);
}

void Metrics::error(proto::ProtocolId p, std::string_view code) {
  std::lock_guard lock(errors_mutex_);
  ++errors_[{p, std::string(code)}];
}

std::uint64_t Metrics::open_connections(proto::ProtocolId p) const {
  return profiles_[static_cast<std::size_t>(p)].open.load(std::memory_order_relaxed);
}

std::uint64_t Metrics::routed_total(proto::ProtocolId p) const {
  return profiles_[static_cast<std::size_t>(p)].routed.load(std::memory_order_relaxed);
}

std::uint64_t Metrics::errors_total(proto::ProtocolId p, std::string_view code) const {
  std::lock_guard lock(errors_mutex_);
  auto it = errors_.find({p, std::string(code)});
  return it == errors_.end() ? 0 : it->second;
}

std::string Metrics::prometheus() const {
  std::string out;
  // The allocator's own count (not the lobby's bookkeeping): what the fuzzer's bounded-memory
  // oracle watches.
  out += "# HELP agentconform_heap_in_use_bytes Bytes of heap memory allocated and not freed (the allocator's count).\n";
  out += "# TYPE agentconform_heap_in_use_bytes gauge\n";
  out += "agentconform_heap_in_use_bytes " + std::to_string(heap_in_use_bytes()) + "\n";
  out += "# HELP agentconform_connections_open WebSocket connections currently open, per protocol profile.\n";
  out += "# TYPE agentconform_connections_open gauge\n";
  for (auto p : proto::kAllProtocols) {
    out += "agentconform_connections_open{profile=\"" + std::string(proto::name(p)) + "\"} " +
           std::to_string(open_connections(p)) + "\n";
  }
  out += "# HELP agentconform_connections_total WebSocket connections accepted since start, per protocol profile.\n";
  out += "# TYPE agentconform_connections_total counter\n";
  for (auto p : proto::kAllProtocols) {
    out += "agentconform_connections_total{profile=\"" + std::string(proto::name(p)) + "\"} " +
           std::to_string(profiles_[static_cast<std::size_t>(p)].total.load()) + "\n";
  }
  out += "# HELP agentconform_messages_routed_total Messages delivered to a recipient, per protocol profile.\n";
  out += "# TYPE agentconform_messages_routed_total counter\n";
  for (auto p : proto::kAllProtocols) {
    out += "agentconform_messages_routed_total{profile=\"" + std::string(proto::name(p)) + "\"} " +
           std::to_string(routed_total(p)) + "\n";
  }
  out += "# HELP agentconform_errors_total Protocol errors sent, per protocol profile and error code.\n";
  out += "# TYPE agentconform_errors_total counter\n";
  std::lock_guard lock(errors_mutex_);
  for (const auto& [key, n] : errors_) {
    std::string code;
    for (char c : key.second) {  // label values escape backslash, quote and newline
      if (c == '\\' || c == '"') code += '\\';
      if (c == '\n') {
        code += "\\n";
        continue;
      }
      code += c;
    }
    out += "agentconform_errors_total{profile=\"" + std::string(proto::name(key.first)) + "\",code=\"" + code + "\"} " +
           std::to_string(n) + "\n";
  }
  return out;
}

}  // namespace ac::ref
