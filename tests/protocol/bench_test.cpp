// Hidden benchmark (run with: test_protocol "[.bench]"): codec throughput of the hot messages.
// Prints figures only; timing is never asserted.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>

#include "engine/protocol/protocol.h"

namespace gregor::protocol {
namespace {

// Whole messages as a broker or client builds them (message.h: header + body, with the size
// reservation). encode_response serves for requests too here: only the 4-byte header differs.
template <typename Message>
Bytes encode_whole(const Message& m, int16_t version) {
  return encode_response(RequestHeader{Message::kApiKey, version, 1, "bench"}, m);
}

template <typename Message>
void measure(const char* label, const Message& m, int16_t version, int rounds) {
  ByteWriter w;
  m.encode(w, version);
  const Bytes bytes = w.take();
  auto t0 = std::chrono::steady_clock::now();
  size_t total = 0;
  for (int i = 0; i < rounds; i++) total += encode_whole(m, version).size();
  double encode_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t0 = std::chrono::steady_clock::now();
  int ok = 0;
  for (int i = 0; i < rounds; i++) ok += decode_body<Message>(as_view(bytes), version).is_ok() ? 1 : 0;
  double decode_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(ok == rounds);
  REQUIRE(total >= bytes.size() * static_cast<size_t>(rounds));
  std::printf("%-44s %7zu bytes  encode %9.0f msg/s %7.0f MB/s  decode %9.0f msg/s %7.0f MB/s\n", label,
              bytes.size(), rounds / encode_s, static_cast<double>(total) / encode_s / 1e6, rounds / decode_s,
              static_cast<double>(total) / decode_s / 1e6);
}

TEST_CASE("protocol codec throughput", "[.bench]") {
  ProduceRequest produce;
  produce.topic_data.push_back({"t1", {}});
  for (int p = 0; p < 16; p++) produce.topic_data[0].partition_data.push_back({p, SharedBytes(Bytes(16384, 1))});
  measure("Produce v7 request, 16 partitions x 16 KiB", produce, 7, 20000);

  ProduceRequest small;
  small.topic_data.push_back({"t1", {{0, SharedBytes(Bytes(100, 1))}}});
  measure("Produce v7 request, 1 partition x 100 B", small, 7, 500000);

  FetchRequest fetch;
  fetch.topics.push_back({.topic = "t1"});
  for (int p = 0; p < 16; p++) {
    fetch.topics[0].partitions.push_back(
        {.partition = p, .current_leader_epoch = 0, .fetch_offset = 1000, .partition_max_bytes = 1048576});
  }
  measure("Fetch v11 request, 16 partitions", fetch, 11, 500000);

  FetchResponse fetched;
  fetched.responses.push_back({.topic = "t1"});
  for (int p = 0; p < 16; p++) {
    FetchResponse::PartitionData data;
    data.partition_index = p;
    data.high_watermark = 1000;
    data.records = SharedBytes(Bytes(65536, 2));
    fetched.responses[0].partitions.push_back(std::move(data));
  }
  measure("Fetch v11 response, 16 partitions x 64 KiB", fetched, 11, 5000);

  MetadataResponse metadata;
  for (int b = 1; b <= 5; b++) metadata.brokers.push_back({b, "127.0.0.1", 19090 + b, std::nullopt});
  for (int t = 0; t < 100; t++) {
    MetadataResponse::MetadataResponseTopic topic;
    topic.name = "topic-" + std::to_string(t);
    for (int p = 0; p < 10; p++) {
      topic.partitions.push_back({.partition_index = p, .leader_id = 1, .replica_nodes = {1, 2, 3}, .isr_nodes = {1, 2, 3}});
    }
    metadata.topics.push_back(std::move(topic));
  }
  measure("Metadata v4 response, 100 topics x 10 partitions", metadata, 4, 5000);
}

}  // namespace
}  // namespace gregor::protocol
