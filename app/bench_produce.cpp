// gregor bench produce: kafka-producer-perf-test against a real-socket cluster, with the engine's
// Producer on an AsioRuntime. Records of --record-size bytes, as fast as the producer takes them
// (at most kPendingMax unacknowledged, as buffer.memory bounds Kafka's), latency measured per
// record from send() to its acknowledgement. Prints kafka-producer-perf-test's summary line.
#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/real_client.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {
constexpr size_t kPendingMax = 32768;
constexpr int64_t kRecordsMax = 100'000'000;
constexpr int64_t kRecordSizeMax = 1'000'000;
}  // namespace

int bench_produce(const Args& args) {
  po::options_description desc(
      "usage: gregor bench produce --bootstrap-server H:P --topic T --records N --record-size B [--acks all]\n\n"
      "Produces N records of B bytes as fast as possible and prints records/s, MB/s and latency\n"
      "percentiles (kafka-producer-perf-test). The topic should exist (gregor topics --create).\n\noptions");
  std::string bootstrap, topic, acks = "all";
  int64_t records = 100000, record_size = 1024;
  std::vector<std::string> properties;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap), "H:P[,H:P...]")(
      "topic", po::value<std::string>(&topic), "the topic")(
      "records", po::value<int64_t>(&records)->default_value(records), "how many records")(
      "record-size", po::value<int64_t>(&record_size)->default_value(record_size), "value bytes per record")(
      "acks", po::value<std::string>(&acks)->default_value(acks), "0, 1 or all")(
      "producer-property", po::value<std::vector<std::string>>(&properties)->composing(), "a producer config key=value");
  po::variables_map vm;
  if (auto done = parse_command_line("bench produce", args, desc, vm)) return *done;
  if (bootstrap.empty() || topic.empty() || records < 1 || records > kRecordsMax || record_size < 0 ||
      record_size > kRecordSizeMax) {
    std::cerr << "gregor bench produce: needs --bootstrap-server, --topic, --records in 1.." << kRecordsMax
              << " and --record-size in 0.." << kRecordSizeMax << "\n";
    return 2;
  }
  client::ProducerConfig pc;
  pc.client_id = "producer-performance";
  std::map<std::string, std::string> settings;
  if (!parse_key_values("bench produce", properties, settings)) return 2;
  settings["acks"] = acks == "all" ? "-1" : acks;
  if (Status s = pc.apply(settings); !s) {
    std::cerr << "gregor bench produce: " << s.message() << "\n";
    return 2;
  }
  auto session = ClientSession::open("bench-produce", bootstrap, [&pc](ClientNode& n, const std::vector<NodeId>& ids) {
    pc.bootstrap_servers = ids;
    n.producer = std::make_unique<client::Producer>(n.rt(), pc);
  });
  if (!session) return 2;
  client::Producer& producer = *session->node().producer;
  Bytes value(static_cast<size_t>(record_size));
  for (size_t i = 0; i < value.size(); i++) value[i] = static_cast<uint8_t>('a' + i % 26);

  std::vector<int64_t> latencies_us;
  latencies_us.reserve(static_cast<size_t>(records));
  int64_t sent = 0, acked = 0, failed = 0;
  protocol::ErrorCode first_error = protocol::ErrorCode::NONE;
  const auto start = std::chrono::steady_clock::now();
  auto feed = [&] {
    while (sent < records && producer.pending() < kPendingMax) {
      client::ProducerRecord r;
      r.topic = topic;
      r.value = value;
      const Time t0 = session->rt().now();
      sent++;
      producer.send(std::move(r), [&, t0](const client::RecordMetadata& md) {
        if (md.error == protocol::ErrorCode::NONE) {
          acked++;
          latencies_us.push_back((session->rt().now() - t0).us);
        } else {
          if (failed++ == 0) first_error = md.error;
        }
      });
    }
  };
  const Duration limit = Duration::seconds(600);
  const Time deadline = session->rt().now() + limit;
  while (acked + failed < records && session->rt().now() < deadline && !session->interrupted()) {
    feed();
    // Wake up to feed more only when there is more to send (run_until does not run the loop at all
    // when its condition already holds).
    session->run_until([&] { return acked + failed == records || (sent < records && producer.pending() < kPendingMax / 2); },
                       deadline - session->rt().now());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (acked + failed < records) {
    std::cerr << "gregor bench produce: stopped with " << (records - acked - failed) << " records unacknowledged\n";
    return 1;
  }
  std::sort(latencies_us.begin(), latencies_us.end());
  auto pct = [&](double q) {
    if (latencies_us.empty()) return 0.0;
    size_t i = std::min(latencies_us.size() - 1, static_cast<size_t>(q * static_cast<double>(latencies_us.size())));
    return static_cast<double>(latencies_us[i]) / 1000.0;
  };
  double avg = 0;
  for (int64_t l : latencies_us) avg += static_cast<double>(l);
  avg = latencies_us.empty() ? 0 : avg / static_cast<double>(latencies_us.size()) / 1000.0;
  const double rate = static_cast<double>(acked) / seconds;
  const double mb = rate * static_cast<double>(record_size) / (1024.0 * 1024.0);
  std::printf("%lld records sent, %.1f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, "
              "%.2f ms 50th, %.2f ms 99th, %.2f ms 99.9th.\n",
              static_cast<long long>(acked), rate, mb, avg, latencies_us.empty() ? 0.0 : static_cast<double>(latencies_us.back()) / 1000.0,
              pct(0.50), pct(0.99), pct(0.999));
  if (failed > 0) {
    std::printf("%lld records failed (first error %s)\n", static_cast<long long>(failed), protocol::error_name(first_error));
    return 1;
  }
  return 0;
}

}  // namespace gregor::app
