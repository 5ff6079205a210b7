// LatencyStats: the latency figures the real-socket benchmarks print (gregor bench produce,
// consume, latency): count, average, percentiles and maximum of samples in microseconds.
//
// A percentile q is the sample at index floor(q * n) of the sorted samples (clamped to the last),
// as kafka-producer-perf-test computes it, so the figures read the same way as Kafka's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace gregor::app {

class LatencyStats {
 public:
  void reserve(size_t n) { samples_us_.reserve(n); }
  void add(int64_t us) {
    samples_us_.push_back(us);
    sorted_ = false;
  }
  size_t count() const { return samples_us_.size(); }
  bool empty() const { return samples_us_.empty(); }

  double avg_ms() const {
    if (samples_us_.empty()) return 0;
    double sum = 0;
    for (int64_t s : samples_us_) sum += static_cast<double>(s);
    return sum / static_cast<double>(samples_us_.size()) / 1000.0;
  }
  // REQUIRES: 0 <= q <= 1.
  double percentile_ms(double q) {
    if (samples_us_.empty()) return 0;
    sort();
    size_t i = std::min(samples_us_.size() - 1, static_cast<size_t>(q * static_cast<double>(samples_us_.size())));
    return static_cast<double>(samples_us_[i]) / 1000.0;
  }
  double max_ms() {
    if (samples_us_.empty()) return 0;
    sort();
    return static_cast<double>(samples_us_.back()) / 1000.0;
  }
  // "1.23 ms avg, 1.10 ms 50th, 4.20 ms 99th, 5.00 ms 99.9th, 6.00 ms max"
  std::string summary() {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.2f ms avg, %.2f ms 50th, %.2f ms 99th, %.2f ms 99.9th, %.2f ms max", avg_ms(),
                  percentile_ms(0.50), percentile_ms(0.99), percentile_ms(0.999), max_ms());
    return buf;
  }

 private:
  void sort() {
    if (sorted_) return;
    std::sort(samples_us_.begin(), samples_us_.end());
    sorted_ = true;
  }
  std::vector<int64_t> samples_us_;
  bool sorted_ = true;
};

}  // namespace gregor::app
