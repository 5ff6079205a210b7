// Small helpers for chains of asynchronous steps (zk calls answer through callbacks).
#pragma once

#include <functional>
#include <memory>
#include <vector>

namespace gregor::broker {

// Runs fn(item, next) for each item in order, each after the previous one called next; then `then`.
template <typename T>
void sequentially(std::vector<T> items, std::function<void(const T&, std::function<void()>)> fn,
                  std::function<void()> then) {
  struct State {
    std::vector<T> items;
    size_t index = 0;
    std::function<void(const T&, std::function<void()>)> fn;
    std::function<void()> then;
  };
  auto st = std::make_shared<State>(State{std::move(items), 0, std::move(fn), std::move(then)});
  // The chain keeps itself alive through the `next` callbacks it hands out, and no longer.
  auto step = std::make_shared<std::function<void()>>();
  std::weak_ptr<std::function<void()>> weak = step;
  *step = [st, weak]() {
    if (st->index == st->items.size()) {
      auto then_fn = std::move(st->then);
      if (then_fn) then_fn();
      return;
    }
    auto self = weak.lock();
    const T& item = st->items[st->index++];
    st->fn(item, [self] { (*self)(); });
  };
  (*step)();
}

}  // namespace gregor::broker
