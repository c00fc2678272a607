#include "reference/agora/streams.hpp"

#include <algorithm>

namespace ac::ref::agora {

OpenStream* StreamTable::find(const StreamKey& key) {
  auto it = open_.find(key);
  return it == open_.end() ? nullptr : &it->second;
}

OpenStream& StreamTable::open(const StreamKey& key, OpenStream stream) {
  if (ended_.erase(key) != 0) {
    ended_order_.erase(std::find(ended_order_.begin(), ended_order_.end(), key));
  }
  return open_.insert_or_assign(key, std::move(stream)).first->second;
}

void StreamTable::end(const StreamKey& key) {
  open_.erase(key);
  if (ended_.insert(key).second) ended_order_.push_back(key);
  while (ended_order_.size() > ended_capacity_) {
    ended_.erase(ended_order_.front());
    ended_order_.pop_front();
  }
}

std::size_t StreamTable::clear() {
  const std::size_t n = open_.size();
  open_.clear();
  ended_.clear();
  ended_order_.clear();
  return n;
}

}  // namespace ac::ref::agora
