// The broker speaks the old record formats and Kafka's append semantics: Produce v0-v2 message sets
// stored as RecordBatch v2, Fetch v0-v3 answered with them converted down, zstd by version,
// LogAppendTime, and ListOffsets by time finding the record (not the batch).
#include <catch2/catch.hpp>

#include "cluster_fixture.h"
#include "engine/protocol/fetch.h"
#include "engine/protocol/list_offsets.h"
#include "engine/record/batch_builder.h"
#include "engine/record/batch_split.h"
#include "engine/record/legacy_records.h"
#include "engine/record/record.h"

using namespace gregor;
using protocol::ErrorCode;

namespace {

std::vector<record::Record> records_at(int64_t t0, int n, const std::string& tag) {
  std::vector<record::Record> out;
  for (int i = 0; i < n; i++) {
    record::Record r;
    r.offset = i;
    r.timestamp = t0 + 1000 * i;
    r.key = to_bytes("k" + std::to_string(i));
    r.value = to_bytes(tag + "-" + std::to_string(i));
    out.push_back(std::move(r));
  }
  return out;
}

struct Formats : test::ClusterFixture {
  Formats() : ClusterFixture(16) {}

  protocol::ProduceResponse::PartitionProduceResponse produce_raw(const std::string& topic, Bytes records, int16_t version) {
    protocol::ProduceRequest req;
    req.acks = -1;
    req.timeout_ms = 30000;
    req.topic_data.push_back({topic, {{0, SharedBytes(std::move(records))}}});
    auto r = call<protocol::ProduceRequest, protocol::ProduceResponse>(leader_of(topic, 0), req, version);
    REQUIRE(r);
    return r->responses.at(0).partition_responses.at(0);
  }

  protocol::FetchResponse::PartitionData fetch(const std::string& topic, int64_t offset, int16_t version) {
    protocol::FetchRequest req;
    req.max_wait_ms = 0;
    req.min_bytes = 1;
    protocol::FetchRequest::FetchTopic t;
    t.topic = topic;
    protocol::FetchRequest::FetchPartition p;
    p.partition = 0;
    p.fetch_offset = offset;
    p.partition_max_bytes = 1 << 20;
    t.partitions.push_back(p);
    req.topics.push_back(t);
    auto r = call<protocol::FetchRequest, protocol::FetchResponse>(leader_of(topic, 0), req, version);
    REQUIRE(r);
    return r->responses.at(0).partitions.at(0);
  }

  protocol::ListOffsetsResponse::ListOffsetsPartitionResponse list_offsets(const std::string& topic, int64_t timestamp,
                                                                            int16_t version) {
    protocol::ListOffsetsRequest req;
    protocol::ListOffsetsRequest::ListOffsetsTopic t;
    t.name = topic;
    protocol::ListOffsetsRequest::ListOffsetsPartition p;
    p.partition_index = 0;
    p.timestamp = timestamp;
    t.partitions.push_back(p);
    req.topics.push_back(t);
    auto r = call<protocol::ListOffsetsRequest, protocol::ListOffsetsResponse>(leader_of(topic, 0), req, version);
    REQUIRE(r);
    return r->topics.at(0).partitions.at(0);
  }
};

}  // namespace

TEST_CASE("Produce v0-v2 message sets are stored as RecordBatch v2 and Fetch v0-v3 reads them back down-converted",
          "[broker][formats]") {
  Formats f;
  f.create_topic("old", 1, 3);
  // An older client: Produce v2 with magic 1 (plain), then v0 with a gzip magic 0 set.
  auto a = f.produce_raw("old", record::build_legacy_message_set(record::kMagicV1, record::CompressionType::kNone,
                                                                 records_at(1700000000000, 3, "m1"), false), 2);
  CHECK(a.error_code == ErrorCode::NONE);
  CHECK(a.base_offset == 0);
  auto m0 = records_at(record::kNoTimestamp, 2, "m0");
  for (auto& r : m0) r.timestamp = record::kNoTimestamp;
  auto b = f.produce_raw("old", record::build_legacy_message_set(record::kMagicV0, record::CompressionType::kGzip, m0, false), 0);
  CHECK(b.error_code == ErrorCode::NONE);
  CHECK(b.base_offset == 3);
  // Magic 1 in Produce v3+ is refused, and a damaged message set too.
  CHECK(f.produce_raw("old", record::build_legacy_message_set(record::kMagicV1, record::CompressionType::kNone,
                                                              records_at(1, 1, "x"), false), 3).error_code ==
        ErrorCode::INVALID_RECORD);
  Bytes damaged = record::build_legacy_message_set(record::kMagicV1, record::CompressionType::kNone, records_at(1, 2, "x"), false);
  damaged[30] ^= 1;
  CHECK(f.produce_raw("old", damaged, 2).error_code == ErrorCode::CORRUPT_MESSAGE);

  // Fetch v4+ sees the RecordBatch v2 the log holds: both appends, offsets 0-4.
  auto v4 = f.fetch("old", 0, 4);
  REQUIRE(v4.error_code == ErrorCode::NONE);
  REQUIRE(v4.records);
  auto split = record::split_batches(as_view(*v4.records), true);
  REQUIRE(split.is_ok());
  REQUIRE(split->batches.size() == 2);
  CHECK(split->batches[1].header.compression() == static_cast<int>(record::CompressionType::kGzip));
  // Fetch v2 reads magic 1, Fetch v0 magic 0, from offset 1.
  for (int16_t version : {int16_t{2}, int16_t{3}, int16_t{0}, int16_t{1}}) {
    INFO("Fetch v" << version);
    auto pd = f.fetch("old", 1, version);
    REQUIRE(pd.error_code == ErrorCode::NONE);
    REQUIRE(pd.records);
    auto set = record::parse_legacy_message_set(as_view(*pd.records));
    REQUIRE(set.is_ok());
    CHECK(set->magic == (version >= 2 ? record::kMagicV1 : record::kMagicV0));
    REQUIRE(set->records.size() == 4);  // offsets 1-4: the uncompressed batch drops offset 0
    CHECK(set->records[0].offset == 1);
    CHECK(set->records[0].value == to_bytes("m1-1"));
    CHECK(set->records[0].timestamp == (version >= 2 ? 1700000001000 : record::kNoTimestamp));
    CHECK(set->records[3].offset == 4);
    CHECK(set->records[3].value == to_bytes("m0-1"));
  }
}

TEST_CASE("zstd is refused below Produce v7 and Fetch v10; LogAppendTime stamps the batch", "[broker][formats]") {
  Formats f;
  f.create_topic("z", 1, 1);
  record::BatchBuildOptions zstd;
  zstd.compression = record::CompressionType::kZstd;
  const Bytes batch = record::build_batch(zstd, records_at(1700000000000, 2, "z"));
  CHECK(f.produce_raw("z", batch, 6).error_code == ErrorCode::UNSUPPORTED_COMPRESSION_TYPE);
  CHECK(f.produce_raw("z", batch, 7).error_code == ErrorCode::NONE);
  CHECK(f.fetch("z", 0, 9).error_code == ErrorCode::UNSUPPORTED_COMPRESSION_TYPE);
  CHECK(f.fetch("z", 0, 2).error_code == ErrorCode::UNSUPPORTED_COMPRESSION_TYPE);
  auto v10 = f.fetch("z", 0, 10);
  CHECK(v10.error_code == ErrorCode::NONE);
  CHECK(v10.records);

  f.create_topic("stamped", 1, 1, {{"message.timestamp.type", "LogAppendTime"}, {"compression.type", "gzip"}});
  auto a = f.produce_raw("stamped", record::build_batch(record::BatchBuildOptions{}, records_at(5, 3, "s")), 7);
  REQUIRE(a.error_code == ErrorCode::NONE);
  CHECK(a.log_append_time_ms > 1000000000000);  // the broker's wall clock, not the producer's 5 ms
  auto pd = f.fetch("stamped", 0, 11);
  REQUIRE(pd.records);
  auto h = record::parse_batch_header(as_view(*pd.records), true);
  REQUIRE(h.is_ok());
  CHECK(h->is_log_append_time());
  CHECK(h->max_timestamp == a.log_append_time_ms);
  CHECK(h->compression() == static_cast<int>(record::CompressionType::kGzip));  // compression.type=gzip
}

TEST_CASE("ListOffsets by time finds the first record at or after the target, though the batch says max timestamp -1",
          "[broker][formats]") {
  Formats f;
  f.create_topic("times", 1, 3);
  // Sarama writes maxTimestamp -1 in the batch header; the broker recomputes it on append.
  for (int64_t t0 : {int64_t{10000}, int64_t{20000}}) {
    Bytes batch = record::build_batch(record::BatchBuildOptions{}, records_at(t0, 5, "t"));
    record::set_max_timestamp(batch, -1, false);
    REQUIRE(f.produce_raw("times", batch, 7).error_code == ErrorCode::NONE);
  }
  for (int16_t version : {int16_t{1}, int16_t{4}, int16_t{7}, int16_t{9}}) {
    INFO("ListOffsets v" << version);
    auto exact = f.list_offsets("times", 12000, version);
    CHECK(exact.error_code == ErrorCode::NONE);
    CHECK(exact.offset == 2);
    CHECK(exact.timestamp == 12000);
    auto between = f.list_offsets("times", 13500, version);
    CHECK(between.offset == 4);
    CHECK(between.timestamp == 14000);
    auto next_batch = f.list_offsets("times", 14500, version);
    CHECK(next_batch.offset == 5);
    CHECK(next_batch.timestamp == 20000);
    auto none = f.list_offsets("times", 99000, version);
    CHECK(none.offset == -1);
    CHECK(none.timestamp == -1);
  }
  auto max = f.list_offsets("times", protocol::kListOffsetsMaxTimestamp, 7);
  CHECK(max.offset == 9);
  CHECK(max.timestamp == 24000);
  auto v0 = f.list_offsets("times", protocol::kListOffsetsLatestTimestamp, 0);
  REQUIRE(v0.old_style_offsets.size() == 1);
  CHECK(v0.old_style_offsets[0] == 10);
}
