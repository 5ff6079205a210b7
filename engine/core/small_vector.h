// SmallVector<T, N>: a vector that keeps up to N elements inside itself and moves them to the heap
// only beyond that. For the short lists built on every request (a fetch's partitions, flags by
// place, an operation's watch lists), which a std::vector would allocate and free each time.
//
// Only for trivially copyable, trivially destructible T (numbers, pointers, plain structs): growing
// and moving copy bytes, and nothing is destroyed. Iterators are pointers; growing invalidates them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

#include "engine/core/assert.h"

namespace gregor {

template <typename T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "SmallVector holds plain values only");
  static_assert(N > 0);

 public:
  SmallVector() = default;
  SmallVector(const SmallVector& o) { append(o.data(), o.size()); }
  SmallVector(SmallVector&& o) noexcept { take(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      size_ = 0;
      append(o.data(), o.size());
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      free_heap();
      take(o);
    }
    return *this;
  }
  ~SmallVector() { free_heap(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }
  bool on_heap() const { return data_ != inline_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) {
    GREGOR_ASSERT(i < size_);
    return data_[i];
  }
  const T& operator[](size_t i) const {
    GREGOR_ASSERT(i < size_);
    return data_[i];
  }
  T& back() {
    GREGOR_ASSERT(size_ > 0);
    return data_[size_ - 1];
  }

  void push_back(const T& v) {
    if (size_ == capacity_) grow(size_ + 1);
    data_[size_++] = v;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) grow(size_ + 1);
    data_[size_] = T{std::forward<Args>(args)...};
    return data_[size_++];
  }
  void reserve(size_t n) {
    if (n > capacity_) grow(n);
  }
  // New elements are v.
  void resize(size_t n, const T& v = T{}) {
    reserve(n);
    for (size_t i = size_; i < n; i++) data_[i] = v;
    size_ = n;
  }
  void assign(size_t n, const T& v) {
    size_ = 0;
    resize(n, v);
  }
  void clear() { size_ = 0; }

 private:
  void append(const T* from, size_t n) {
    reserve(size_ + n);
    if (n > 0) std::memcpy(static_cast<void*>(data_ + size_), from, n * sizeof(T));
    size_ += n;
  }
  void grow(size_t need) {
    const size_t capacity = std::max(need, 2 * capacity_);
    T* p = std::allocator<T>().allocate(capacity);
    if (size_ > 0) std::memcpy(static_cast<void*>(p), data_, size_ * sizeof(T));
    free_heap();
    data_ = p;
    capacity_ = capacity;
  }
  void free_heap() {
    if (on_heap()) std::allocator<T>().deallocate(data_, capacity_);
    data_ = inline_;
    capacity_ = N;
  }
  // REQUIRES: this holds no heap block.
  void take(SmallVector& o) {
    if (o.on_heap()) {
      data_ = o.data_;
      capacity_ = o.capacity_;
      size_ = o.size_;
      o.data_ = o.inline_;
      o.capacity_ = N;
    } else {
      size_ = 0;
      append(o.data_, o.size_);
    }
    o.size_ = 0;
  }

  T inline_[N];
  T* data_ = inline_;
  size_t size_ = 0;
  size_t capacity_ = N;
};

}  // namespace gregor
