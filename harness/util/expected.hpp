// A minimal value-or-error type (std::expected arrives only in C++23).
// Every fallible API of the protocol core returns Expected<T, E> instead of throwing, so that
// hostile input is an ordinary value path, never an exception path.
#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

namespace ac {

template <typename E>
struct Unexpected {
  E error;
};
template <typename E>
Unexpected(E) -> Unexpected<E>;

template <typename E>
Unexpected<std::decay_t<E>> unexpected(E&& e) {
  return {std::forward<E>(e)};
}

template <typename T, typename E>
class Expected {
 public:
  Expected() requires std::is_default_constructible_v<T> : v_(std::in_place_index<0>) {}
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT(implicit)
  template <typename G>
  Expected(Unexpected<G> u) : v_(std::in_place_index<1>, E(std::move(u.error))) {}  // NOLINT

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { assert(has_value()); return std::get<0>(v_); }
  const T& value() const& { assert(has_value()); return std::get<0>(v_); }
  T&& value() && { assert(has_value()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  E& error() & { assert(!has_value()); return std::get<1>(v_); }
  const E& error() const& { assert(!has_value()); return std::get<1>(v_); }
  E&& error() && { assert(!has_value()); return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, E> v_;
};

}  // namespace ac
