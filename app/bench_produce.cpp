// gregor bench produce: kafka-producer-perf-test against a real-socket cluster, with the engine's
// Producer on an AsioRuntime. Records of --record-size bytes, as fast as the producer takes them
// (at most kPendingMax unacknowledged, as buffer.memory bounds Kafka's) or at --throughput records
// per second (Kafka's ThroughputThrottler: a record is sent once the elapsed time allows it).
//
// Latency is measured twice:
// - per record, from send() to its callback, as kafka-producer-perf-test prints it (its summary
//   line, which bench/produce_vs_iperf.sh parses);
// - per acknowledged batch, from the send() of the batch's first (oldest) record to the batch's
//   acknowledgement: what the slowest record of every request waited. The producer completes the
//   records of one batch in one go, from the handler of its response, so a batch is a run of
//   callbacks of one partition within one handler of the loop.
#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/latency_stats.h"
#include "app/real_client.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {
constexpr size_t kPendingMax = 32768;
constexpr int64_t kRecordsMax = 100'000'000;
constexpr int64_t kRecordSizeMax = 1'000'000;
constexpr Duration kRunTimeMax = Duration::seconds(600);
// A throttled producer sleeps at least this long when it is ahead, as Kafka's throttler does
// (sleeping for every record would cost more than the records).
constexpr Duration kThrottleSleepMin = Duration::millis(1);

std::string acks_name(int16_t acks) { return acks == -1 ? "all" : std::to_string(acks); }
}  // namespace

int bench_produce(const Args& args) {
  po::options_description desc(
      "usage: gregor bench produce --bootstrap-server H:P --topic T [--records N] [--record-size B]\n"
      "                            [--throughput R] [--acks all|1|0] [--producer-property key=value ...]\n\n"
      "Produces N records of B bytes, as fast as possible or at R records/s, and prints records/s,\n"
      "MB/s and latency percentiles per record (kafka-producer-perf-test) and per acknowledged batch.\n"
      "The producer takes Kafka's producer keys (batch.size, linger.ms, max.in.flight.requests.per.connection,\n"
      "...); the settings used are printed first. The topic should exist (gregor topics --create).\n\noptions");
  std::string bootstrap, topic, acks = "all";
  int64_t records = 100000, record_size = 1024;
  double throughput = -1;
  std::vector<std::string> properties;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap), "H:P[,H:P...]")(
      "topic", po::value<std::string>(&topic), "the topic")(
      "records", po::value<int64_t>(&records)->default_value(records), "how many records")(
      "record-size", po::value<int64_t>(&record_size)->default_value(record_size), "value bytes per record")(
      "throughput", po::value<double>(&throughput)->default_value(throughput),
      "records per second at most; -1: as fast as possible")(
      "acks", po::value<std::string>(&acks)->default_value(acks), "0, 1 or all")(
      "producer-property", po::value<std::vector<std::string>>(&properties)->composing(), "a producer config key=value");
  ClientConfigFiles files;
  files.add_to(desc, true, false);
  po::variables_map vm;
  if (auto done = parse_command_line("bench produce", args, desc, vm)) return *done;
  if (bootstrap.empty() || topic.empty() || records < 1 || records > kRecordsMax || record_size < 0 ||
      record_size > kRecordSizeMax || throughput == 0) {
    std::cerr << "gregor bench produce: needs --bootstrap-server, --topic, --records in 1.." << kRecordsMax
              << ", --record-size in 0.." << kRecordSizeMax << " and a --throughput that is positive or -1\n";
    return 2;
  }
  client::ProducerConfig pc;
  pc.client_id = "producer-performance";
  std::map<std::string, std::string> settings;
  if (!parse_key_values("bench produce", properties, settings)) return 2;
  std::map<std::string, std::string> file_settings;
  if (!files.read("bench produce", file_settings)) return 2;
  settings = merge_client_properties("bench produce", std::move(file_settings), settings,
                                     [](const std::string& k) { return client::producer_config_def().find(k) != nullptr; });
  settings["acks"] = acks;  // the producer config reads all, -1, 0 and 1
  if (Status s = pc.apply(settings); !s) {
    std::cerr << "gregor bench produce: " << s.message() << "\n";
    return 2;
  }
  std::printf("producer: acks=%s batch.size=%d linger.ms=%lld max.in.flight.requests.per.connection=%d, throughput %s\n",
              acks_name(pc.acks).c_str(), pc.batch_size, static_cast<long long>(pc.linger_ms),
              pc.max_in_flight_requests_per_connection,
              throughput > 0 ? (std::to_string(static_cast<int64_t>(throughput)) + " records/s").c_str() : "unlimited");
  std::fflush(stdout);
  auto session = ClientSession::open("bench-produce", bootstrap, [&pc](ClientNode& n, const std::vector<NodeId>& ids) {
    pc.bootstrap_servers = ids;
    n.producer = std::make_unique<client::Producer>(n.rt(), pc);
  });
  if (!session) return 2;
  client::Producer& producer = *session->node().producer;
  Bytes value(static_cast<size_t>(record_size));
  for (size_t i = 0; i < value.size(); i++) value[i] = static_cast<uint8_t>('a' + i % 26);

  // What the callbacks count. They capture only a pointer to it and the send time, so that
  // std::function keeps them inline instead of allocating one per record.
  struct Tally {
    Runtime* clock = nullptr;
    LatencyStats per_record, per_batch;
    int64_t acked = 0, failed = 0;
    protocol::ErrorCode first_error = protocol::ErrorCode::NONE;
    // Batch boundaries: the loop turn (one handler) and the partition of the last callback.
    uint64_t turn = 0, batch_turn = UINT64_MAX;
    int32_t batch_partition = -1;
    void on_ack(Time t0, const client::RecordMetadata& md) {
      if (md.error != protocol::ErrorCode::NONE) {
        if (failed++ == 0) first_error = md.error;
        return;
      }
      acked++;
      const Duration latency = clock->now() - t0;
      per_record.add(latency.us);
      if (turn != batch_turn || md.partition != batch_partition) {
        batch_turn = turn;
        batch_partition = md.partition;
        per_batch.add(latency.us);  // the first callback of a batch is its oldest record
      }
    }
  } tally;
  tally.clock = &session->rt();
  tally.per_record.reserve(static_cast<size_t>(records));
  int64_t sent = 0;
  const int64_t& acked = tally.acked;
  const int64_t& failed = tally.failed;
  const Time start = session->rt().now();
  const auto wall_start = std::chrono::steady_clock::now();
  // Records the throttle allows by now.
  auto allowed = [&](Time now) {
    if (throughput <= 0) return records;
    return std::min(records, static_cast<int64_t>(throughput * static_cast<double>((now - start).us) / 1e6) + 1);
  };
  auto feed = [&] {
    const int64_t limit = allowed(session->rt().now());
    while (sent < limit && producer.pending() < kPendingMax) {
      client::ProducerRecord r;
      r.topic = topic;
      r.value = value;
      const Time t0 = session->rt().now();
      sent++;
      producer.send(std::move(r), [t = &tally, t0](const client::RecordMetadata& md) { t->on_ack(t0, md); });
    }
  };
  const Time deadline = start + kRunTimeMax;
  while (acked + failed < records && session->rt().now() < deadline && !session->interrupted()) {
    feed();
    Duration wait = deadline - session->rt().now();
    const bool full = producer.pending() >= kPendingMax;
    if (throughput > 0 && sent < records && !full) {
      // Ahead of the throttle: come back when the next record is due.
      const Time next_due = start + Duration::micros(static_cast<int64_t>(static_cast<double>(sent) * 1e6 / throughput));
      wait = std::min(wait, std::max(kThrottleSleepMin, next_due - session->rt().now()));
    }
    // Wake up to feed more only when there is more to send (run_until does not run the loop at all
    // when its condition already holds).
    session->run_until(
        [&] {
          tally.turn++;
          return acked + failed == records || ((throughput <= 0 || full) && sent < records && producer.pending() < kPendingMax / 2);
        },
        wait);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (acked + failed < records) {
    std::cerr << "gregor bench produce: stopped with " << (records - acked - failed) << " records unacknowledged\n";
    return 1;
  }
  const double rate = static_cast<double>(acked) / seconds;
  const double mb = rate * static_cast<double>(record_size) / (1024.0 * 1024.0);
  std::printf("%lld records sent, %.1f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, "
              "%.2f ms 50th, %.2f ms 99th, %.2f ms 99.9th.\n",
              static_cast<long long>(acked), rate, mb, tally.per_record.avg_ms(), tally.per_record.max_ms(),
              tally.per_record.percentile_ms(0.50), tally.per_record.percentile_ms(0.99), tally.per_record.percentile_ms(0.999));
  if (!tally.per_batch.empty())
    std::printf("per acknowledged batch: %zu batches, %.1f records each, %s\n", tally.per_batch.count(),
                static_cast<double>(acked) / static_cast<double>(tally.per_batch.count()), tally.per_batch.summary().c_str());
  if (failed > 0) {
    std::printf("%lld records failed (first error %s)\n", static_cast<long long>(failed), protocol::error_name(tally.first_error));
    return 1;
  }
  return 0;
}

}  // namespace gregor::app
