// gregor bench consume (kafka-consumer-perf-test) and gregor bench latency (Kafka's
// EndToEndLatency, at a chosen rate) against a real-socket cluster, with the engine's Consumer and
// Producer on AsioRuntimes.
//
// bench consume reads a topic from its earliest offsets, every partition by hand (or as a member
// of --group), until --messages records or --timeout-ms without one, and prints records/s and MB/s
// (keys and values) from the first record to the last, and the time to the first record.
//
// bench latency runs a producer and a consumer in one loop, on one clock: the consumer is assigned
// every partition at its end; then the producer sends --records records at --throughput records/s,
// each carrying the time of its send() in its first 8 bytes, and the consumer notes, for each
// record it polls, how long ago that was. That is produce -> replicate -> commit (high watermark)
// -> fetch -> poll: what a Kafka application sees between its send and its consumer.
#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/latency_stats.h"
#include "app/real_client.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {
constexpr int64_t kRecordsMax = 100'000'000;
constexpr int64_t kRecordSizeMax = 1'000'000;
constexpr Duration kSetupTimeout = Duration::seconds(30);
constexpr Duration kRunTimeMax = Duration::seconds(600);
constexpr Duration kPollWaitMax = Duration::millis(100);
constexpr size_t kLatencyPendingMax = 10000;  // unacknowledged records before the producer waits
constexpr Duration kThrottleSleepMin = Duration::millis(1);
constexpr size_t kStampBytes = 8;

double to_mb(int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// Consumer settings from k=v strings plus the ones the benchmark needs. nullopt (message printed)
// for bad ones.
std::optional<client::ConsumerConfig> consumer_config(const std::string& command, const std::vector<std::string>& properties,
                                                      const std::string& reset, const std::string& group,
                                                      const ClientConfigFiles& files) {
  client::ConsumerConfig cc;
  cc.client_id = "consumer-performance";
  std::map<std::string, std::string> settings;
  if (!parse_key_values(command, properties, settings)) return std::nullopt;
  std::map<std::string, std::string> file_settings;
  if (!files.read(command, file_settings, false, true)) return std::nullopt;
  settings = merge_client_properties(command, std::move(file_settings), settings,
                                     [](const std::string& k) { return client::consumer_config_def().find(k) != nullptr; });
  settings["auto.offset.reset"] = reset;
  settings["enable.auto.commit"] = "false";
  if (!group.empty()) settings["group.id"] = group;
  if (Status s = cc.apply(settings); !s) {
    std::cerr << "gregor " << command << ": " << s.message() << "\n";
    return std::nullopt;
  }
  return cc;
}

int64_t record_bytes(const client::ConsumerRecord& r) {
  return static_cast<int64_t>((r.key ? r.key->size() : 0) + (r.value ? r.value->size() : 0));
}

}  // namespace

int bench_consume(const Args& args) {
  po::options_description desc(
      "usage: gregor bench consume --bootstrap-server H:P --topic T [--messages N] [--group G]\n"
      "                            [--timeout-ms MS] [--consumer-property key=value ...]\n\n"
      "Consumes a topic from its earliest offsets and prints records/s and MB/s (kafka-consumer-perf-test).\n"
      "Without --group every partition is assigned by hand.\n\noptions");
  std::string bootstrap, topic, group;
  int64_t messages = 100000, timeout_ms = 10000;
  std::vector<std::string> properties;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap), "H:P[,H:P...]")(
      "topic", po::value<std::string>(&topic), "the topic")(
      "messages", po::value<int64_t>(&messages)->default_value(messages), "stop after this many records")(
      "group", po::value<std::string>(&group), "consume as a member of this group")(
      "timeout-ms", po::value<int64_t>(&timeout_ms)->default_value(timeout_ms), "stop when no record came for this long")(
      "consumer-property", po::value<std::vector<std::string>>(&properties)->composing(), "a consumer config key=value");
  ClientConfigFiles files;
  files.add_to(desc, false, true);
  po::variables_map vm;
  if (auto done = parse_command_line("bench consume", args, desc, vm)) return *done;
  if (bootstrap.empty() || topic.empty() || messages < 1 || messages > kRecordsMax || timeout_ms < 1) {
    std::cerr << "gregor bench consume: needs --bootstrap-server, --topic, --messages in 1.." << kRecordsMax
              << " and a positive --timeout-ms\n";
    return 2;
  }
  auto cc = consumer_config("bench consume", properties, "earliest", group, files);
  if (!cc) return 2;
  auto session = ClientSession::open("bench consume", bootstrap, [&cc](ClientNode& n, const std::vector<NodeId>& ids) {
    cc->bootstrap_servers = ids;
    n.consumer = std::make_unique<client::Consumer>(n.rt(), *cc);
  });
  if (!session) return 2;
  client::Consumer& consumer = *session->node().consumer;
  bool woke = false;
  consumer.set_wakeup([&woke] { woke = true; });
  const auto wall_start = std::chrono::steady_clock::now();
  if (!group.empty())
    consumer.subscribe({topic});
  else if (!assign_whole_topic(*session, consumer, topic, kSetupTimeout))
    return 1;
  int64_t count = 0, bytes = 0;
  std::optional<std::chrono::steady_clock::time_point> first, last;
  const Time deadline = session->rt().now() + kRunTimeMax;
  Time last_record = session->rt().now();
  while (count < messages && !session->interrupted() && session->rt().now() < deadline) {
    const std::vector<client::ConsumerRecord> polled = consumer.poll();
    for (const auto& r : polled) {
      if (count == messages) break;
      count++;
      bytes += record_bytes(r);
      last = std::chrono::steady_clock::now();
      if (!first) first = last;
      last_record = session->rt().now();
    }
    if (count == messages || session->rt().now() - last_record >= Duration::millis(timeout_ms)) break;
    if (!polled.empty() && consumer.buffered() > 0) continue;  // max.poll.records at a time: take the rest first
    woke = false;
    session->run_until([&] { return woke; }, kPollWaitMax);
  }
  const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (count == 0) {
    std::printf("0 records consumed in %.2f s\n", total_s);
    return 1;
  }
  const double span_s = std::max(1e-6, std::chrono::duration<double>(*last - *first).count());
  std::printf("%lld records consumed, %.1f records/sec (%.2f MB/sec) from the first record to the last; %.2f MB in %.2f s in "
              "all, the first record after %.1f ms\n",
              static_cast<long long>(count), static_cast<double>(count) / span_s, to_mb(bytes) / span_s, to_mb(bytes), total_s,
              std::chrono::duration<double, std::milli>(*first - wall_start).count());
  if (count < messages) {
    std::printf("stopped after %lld of %lld records: none came for %lld ms\n", static_cast<long long>(count),
                static_cast<long long>(messages), static_cast<long long>(timeout_ms));
    return 1;
  }
  return 0;
}

int bench_latency(const Args& args) {
  po::options_description desc(
      "usage: gregor bench latency --bootstrap-server H:P --topic T [--records N] [--record-size B]\n"
      "                            [--throughput R] [--acks all|1|0] [--producer-property k=v ...] [--consumer-property k=v ...]\n\n"
      "End-to-end latency: a producer sends N records of B bytes at R records/s and a consumer in the\n"
      "same process polls them; prints the latency from send() to poll() (and to the producer's\n"
      "acknowledgement) as average, percentiles and maximum. Records carry their send time.\n\noptions");
  std::string bootstrap, topic, acks = "all";
  int64_t records = 10000, record_size = 1024;
  double throughput = 1000;
  std::vector<std::string> producer_properties, consumer_properties;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap), "H:P[,H:P...]")(
      "topic", po::value<std::string>(&topic), "the topic")(
      "records", po::value<int64_t>(&records)->default_value(records), "how many records")(
      "record-size", po::value<int64_t>(&record_size)->default_value(record_size), "value bytes per record (at least 8)")(
      "throughput", po::value<double>(&throughput)->default_value(throughput), "records per second")(
      "acks", po::value<std::string>(&acks)->default_value(acks), "0, 1 or all")(
      "producer-property", po::value<std::vector<std::string>>(&producer_properties)->composing(), "a producer config key=value")(
      "consumer-property", po::value<std::vector<std::string>>(&consumer_properties)->composing(), "a consumer config key=value");
  ClientConfigFiles files;
  files.add_to(desc, true, true);
  po::variables_map vm;
  if (auto done = parse_command_line("bench latency", args, desc, vm)) return *done;
  if (bootstrap.empty() || topic.empty() || records < 1 || records > kRecordsMax ||
      record_size < static_cast<int64_t>(kStampBytes) || record_size > kRecordSizeMax || !(throughput > 0)) {
    std::cerr << "gregor bench latency: needs --bootstrap-server, --topic, --records in 1.." << kRecordsMax
              << ", --record-size in " << kStampBytes << ".." << kRecordSizeMax << " and a positive --throughput\n";
    return 2;
  }
  client::ProducerConfig pc;
  pc.client_id = "end-to-end-latency";
  std::map<std::string, std::string> settings;
  if (!parse_key_values("bench latency", producer_properties, settings)) return 2;
  std::map<std::string, std::string> file_settings;
  if (!files.read("bench latency", file_settings, true, false)) return 2;
  settings = merge_client_properties("bench latency", std::move(file_settings), settings,
                                     [](const std::string& k) { return client::producer_config_def().find(k) != nullptr; });
  settings["acks"] = acks == "all" ? "-1" : acks;
  if (Status s = pc.apply(settings); !s) {
    std::cerr << "gregor bench latency: " << s.message() << "\n";
    return 2;
  }
  auto cc = consumer_config("bench latency", consumer_properties, "latest", "", files);
  if (!cc) return 2;
  auto session = ClientSession::open("bench latency", bootstrap, [&pc](ClientNode& n, const std::vector<NodeId>& ids) {
    pc.bootstrap_servers = ids;
    n.producer = std::make_unique<client::Producer>(n.rt(), pc);
  });
  if (!session) return 2;
  client::Producer& producer = *session->node().producer;
  ClientNode& consumer_node = session->add_client(1, "bench-latency-consumer", [&cc](ClientNode& n, const std::vector<NodeId>& ids) {
    cc->bootstrap_servers = ids;
    n.consumer = std::make_unique<client::Consumer>(n.rt(), *cc);
  });
  client::Consumer& consumer = *consumer_node.consumer;
  Runtime& clock = session->rt();  // both nodes run on the world's one time base
  bool woke = false;
  consumer.set_wakeup([&woke] { woke = true; });
  if (!assign_whole_topic(*session, consumer, topic, kSetupTimeout)) return 1;
  // Positions at the ends first, so that every record produced from now on is consumed.
  auto positioned = [&] {
    for (const auto& tp : consumer.assignment())
      if (!consumer.position(tp)) return false;
    return !consumer.assignment().empty();
  };
  const Time setup_deadline = clock.now() + kSetupTimeout;
  while (!positioned() && clock.now() < setup_deadline && !session->interrupted()) {
    (void)consumer.poll();
    woke = false;
    session->run_until([&] { return woke; }, kPollWaitMax);
  }
  if (!positioned()) {
    std::cerr << "gregor bench latency: the consumer found no position at the end of every partition of " << topic << "\n";
    return 1;
  }
  std::printf("end-to-end: acks=%s batch.size=%d linger.ms=%lld, %lld records of %lld bytes at %.0f records/s\n",
              acks == "all" ? "all" : acks.c_str(), pc.batch_size, static_cast<long long>(pc.linger_ms),
              static_cast<long long>(records), static_cast<long long>(record_size), throughput);
  std::fflush(stdout);

  LatencyStats end_to_end, acknowledged;
  end_to_end.reserve(static_cast<size_t>(records));
  int64_t sent = 0, acked = 0, failed = 0, consumed = 0, foreign = 0;
  Bytes value(static_cast<size_t>(record_size));
  for (size_t i = kStampBytes; i < value.size(); i++) value[i] = static_cast<uint8_t>('a' + i % 26);
  const Time start = clock.now();
  auto feed = [&] {
    const int64_t allowed =
        std::min(records, static_cast<int64_t>(throughput * static_cast<double>((clock.now() - start).us) / 1e6) + 1);
    while (sent < allowed && producer.pending() < kLatencyPendingMax) {
      const Time t0 = clock.now();
      for (size_t i = 0; i < kStampBytes; i++) value[i] = static_cast<uint8_t>(static_cast<uint64_t>(t0.us) >> (8 * i));
      client::ProducerRecord r;
      r.topic = topic;
      r.value = value;
      sent++;
      producer.send(std::move(r), [&, t0](const client::RecordMetadata& md) {
        if (md.error != protocol::ErrorCode::NONE) {
          failed++;
          return;
        }
        acked++;
        acknowledged.add((clock.now() - t0).us);
      });
    }
  };
  auto drain = [&] {
    for (bool more = true; more;) {
      const std::vector<client::ConsumerRecord> polled = consumer.poll();
      more = !polled.empty() && consumer.buffered() > 0;
      for (const auto& r : polled) {
        if (!r.value || r.value->size() < kStampBytes) {
          foreign++;  // not ours (someone else writes to the topic)
          continue;
        }
        uint64_t stamp = 0;
        for (size_t i = 0; i < kStampBytes; i++) stamp |= static_cast<uint64_t>((*r.value)[i]) << (8 * i);
        const int64_t latency_us = clock.now().us - static_cast<int64_t>(stamp);
        if (static_cast<int64_t>(stamp) < start.us || latency_us < 0) {
          foreign++;
          continue;
        }
        consumed++;
        end_to_end.add(latency_us);
      }
    }
  };
  const Time deadline = start + kRunTimeMax;
  std::optional<Time> all_acknowledged;  // then the consumer gets kSetupTimeout to catch up
  while (consumed < records - failed && clock.now() < deadline && !session->interrupted()) {
    if (!all_acknowledged && acked + failed == records) all_acknowledged = clock.now();
    if (all_acknowledged && clock.now() - *all_acknowledged > kSetupTimeout) break;
    feed();
    drain();
    Duration wait = kPollWaitMax;
    if (sent < records) {
      const Time next_due = start + Duration::micros(static_cast<int64_t>(static_cast<double>(sent) * 1e6 / throughput));
      wait = std::min(wait, std::max(kThrottleSleepMin, next_due - clock.now()));
    }
    woke = false;
    session->run_until([&] { return woke; }, wait);
  }
  drain();
  std::printf("%lld records consumed of %lld sent, end-to-end latency (send to poll): %s\n", static_cast<long long>(consumed),
              static_cast<long long>(sent), end_to_end.summary().c_str());
  if (!acknowledged.empty()) std::printf("produce latency (send to acknowledgement): %s\n", acknowledged.summary().c_str());
  if (foreign > 0) std::printf("%lld records of others ignored\n", static_cast<long long>(foreign));
  if (failed > 0 || consumed < sent) {
    std::printf("%lld records failed, %lld not consumed\n", static_cast<long long>(failed),
                static_cast<long long>(sent - failed - consumed));
    return 1;
  }
  return 0;
}

}  // namespace gregor::app
