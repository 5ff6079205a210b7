// TopicPartition: the name of one partition ("orders-0"), ordered so maps of partitions iterate
// deterministically. Every layer that names partitions (broker, group coordinator, clients) uses
// this one type.
#pragma once

#include <bit>
#include <compare>
#include <cstdint>
#include <cstring>
#include <string>

namespace gregor {

namespace detail {

// std::string's order (bytes compared as unsigned char, then the shorter first), eight bytes at a
// time and inline. Maps of partitions compare equal names on most steps (the 50 partitions of
// __consumer_offsets share one), and the library's comparison calls memcmp for each.
inline std::strong_ordering compare_names(const std::string& a, const std::string& b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) {
      if constexpr (std::endian::native == std::endian::little) {
        x = __builtin_bswap64(x);
        y = __builtin_bswap64(y);
      }
      return x <=> y;
    }
  }
  for (; i < n; i++)
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) <=> static_cast<unsigned char>(b[i]);
  return a.size() <=> b.size();
}

}  // namespace detail

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  // By topic, then partition, as the defaulted comparison would (detail::compare_names).
  friend bool operator==(const TopicPartition& a, const TopicPartition& b) {
    return a.partition == b.partition && a.topic.size() == b.topic.size() && detail::compare_names(a.topic, b.topic) == 0;
  }
  friend std::strong_ordering operator<=>(const TopicPartition& a, const TopicPartition& b) {
    if (const auto c = detail::compare_names(a.topic, b.topic); c != 0) return c;
    return a.partition <=> b.partition;
  }
  // Kafka's directory name and log name: "<topic>-<partition>".
  std::string str() const { return topic + "-" + std::to_string(partition); }
};

}  // namespace gregor
