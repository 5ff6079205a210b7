// Every request and response of every spec at every version of Kafka 3.9: encode, decode, compare
// with the original; re-encode and compare bytes; the exact size. The generated samples set every
// field a version carries (and, by seed, nulls, empty arrays, absent and unknown tagged fields);
// the hand-written samples (samples.cpp) cover the advertised versions with realistic values.
// (Truncation and hostile input: malformed_test.cpp; bytes computed by hand: wire_capture_test.cpp.)
#include <catch2/catch.hpp>

#include "catalog.h"
#include "generated/protocol/samples.h"
#include "samples.h"

namespace gregor::protocol {
namespace {

template <typename Message>
void check_round_trip(const Message& sample, int16_t version) {
  INFO(api_name(Message::kApiKey) << " v" << version);
  ByteWriter w;
  sample.encode(w, version);
  Bytes bytes = w.take();
  CHECK(sample.encoded_size(version) == bytes.size());

  Result<Message> back = decode_body<Message>(as_view(bytes), version);
  REQUIRE(back.is_ok());
  CHECK(back.value() == sample);

  ByteWriter again;
  back.value().encode(again, version);
  CHECK(again.bytes_ref() == bytes);

  size_t prefixes_decoded = 0;
  for (size_t n = 0; n < bytes.size(); n++) {
    if (decode_body<Message>(ByteView(bytes.data(), n), version).is_ok()) prefixes_decoded++;
  }
  CHECK(prefixes_decoded == 0);

  Bytes longer = bytes;
  longer.push_back(0);
  CHECK_FALSE(decode_body<Message>(as_view(longer), version).is_ok());
}

using testing::api_catalog;

// Seeds 0-5 give, per message and version: plain samples, samples with nulls wherever a version
// allows them (seed % 3 == 1), and unknown tagged fields in flexible versions now and then.
constexpr uint64_t kSeeds = 6;

TEST_CASE("every message of every spec round-trips at every version of Kafka 3.9") {
  int versions_checked = 0;
  for (const spec_samples::MessageInfo& m : spec_samples::all_messages()) {
    for (int16_t v = m.min_version; v <= m.max_version; v++) {
      for (uint64_t seed = 0; seed < kSeeds; seed++) {
        INFO(m.name << " v" << v << " seed " << seed);
        CHECK(m.round_trip(v, seed) == "");
      }
      versions_checked++;
    }
  }
  // Kafka 3.9's versions of the 47 APIs of the specs, requests and responses (api_specs_test.cpp
  // checks the ranges themselves against the reference table).
  int expected = 0;
  for (const ApiSpec& spec : kafka_api_specs()) expected += 2 * (spec.max_version - spec.min_version + 1);
  CHECK(versions_checked == expected);
  CHECK(versions_checked == 2 * 254);
}

TEST_CASE("the samples reach what they are meant to: nulls, unknown tags, every version's fields") {
  // A sample that left every field at its default would round-trip trivially; these hold only if
  // the samples put values into the fields. Fetch v17: the flexible request with topic ids.
  FetchRequest fetch;
  spec_samples::fill_sample(fetch, 17, 0);
  REQUIRE_FALSE(fetch.topics.empty());
  CHECK_FALSE(fetch.topics[0].topic_id.is_zero());
  CHECK(fetch.topics[0].topic.empty());  // a v0-12 field
  CHECK(fetch.replica_id == -1);         // a v0-14 field
  // Seed 1 turns nulls on: Metadata v12 asks for all topics (null) or names topics by id (null names).
  bool null_topics = false, unknown_tags = false;
  for (uint64_t seed = 0; seed < 30; seed++) {
    MetadataRequest md;
    spec_samples::fill_sample(md, 12, seed);
    null_topics |= !md.topics.has_value();
    ApiVersionsResponse av;
    spec_samples::fill_sample(av, 3, seed);
    unknown_tags |= !av.unknown_tagged_fields.empty();
  }
  CHECK(null_topics);
  CHECK(unknown_tags);
}

TEST_CASE("every advertised api has a hand-written sample, and nothing else does") {
  for (const ApiVersionRange& range : supported_api_versions()) {
    INFO(api_name(range.api_key));
    CHECK(api_catalog().count(range.api_key) == 1);
  }
  CHECK(api_catalog().size() == supported_api_versions().size());
}

TEST_CASE("the hand-written samples round-trip at every advertised version") {
  int versions_checked = 0;
  for (const ApiVersionRange& range : supported_api_versions()) {
    auto it = api_catalog().find(range.api_key);
    REQUIRE(it != api_catalog().end());
    for (int16_t v = range.min_version; v <= range.max_version; v++) {
      it->second.request.check_round_trip(v);
      it->second.response.check_round_trip(v);
      versions_checked++;
    }
  }
  CHECK(versions_checked == 254);  // the sum of the advertised ranges: Kafka 3.9's of 48 APIs
}

TEST_CASE("whole messages round-trip through the request and response helpers") {
  RequestHeader h{ApiKey::FETCH, 11, 321, "consumer-1"};
  FetchRequest request = samples::fetch_request(11);
  Bytes payload = encode_request(h, request);
  InboundRequest in = parse_request(as_view(payload));
  REQUIRE(in.action == RequestAction::kHandle);
  CHECK(in.header == h);
  Result<FetchRequest> decoded = decode_body<FetchRequest>(in.body, in.header.api_version);
  REQUIRE(decoded.is_ok());
  CHECK(decoded.value() == request);

  FetchResponse response = samples::fetch_response(11);
  Bytes reply = encode_response(in.header, response);
  Result<int32_t> correlation = response_correlation_id(as_view(reply));
  REQUIRE(correlation.is_ok());
  CHECK(correlation.value() == 321);
  Result<FetchResponse> back = decode_response<FetchResponse>(as_view(reply), 11);
  REQUIRE(back.is_ok());
  CHECK(back.value() == response);
}

TEST_CASE("flexible whole messages: header v2 with the request, header v1 with the response") {
  RequestHeader h{ApiKey::FETCH, 16, 9, "replica-2"};
  FetchRequest request;
  spec_samples::fill_sample(request, 16, 3);
  Bytes payload = encode_request(h, request);
  InboundRequest in = parse_request(as_view(payload));
  // Fetch v16 is advertised (Kafka 3.9's range); the header parses as v2.
  CHECK(in.action == RequestAction::kHandle);
  CHECK(in.header == h);
  Result<FetchRequest> decoded = decode_body<FetchRequest>(in.body, 16);
  REQUIRE(decoded.is_ok());
  CHECK(decoded.value() == request);

  FetchResponse response;
  spec_samples::fill_sample(response, 16, 3);
  Bytes reply = encode_response(h, response);
  CHECK(reply[4] == 0);  // response header v1: correlation id, then an empty tag section
  Result<FetchResponse> back = decode_response<FetchResponse>(as_view(reply), 16);
  REQUIRE(back.is_ok());
  CHECK(back.value() == response);
}

TEST_CASE("encoded_size is exact, so whole messages are written without regrowing") {
  for (int16_t v = 0; v <= 11; v++) {
    ProduceRequest m = samples::produce_request(v);
    if (v < 3) m.transactional_id = std::nullopt;  // not carried before v3
    ByteWriter w;
    m.encode(w, v);
    CHECK(m.encoded_size(v) == w.size());
    RequestHeader h{ApiKey::PRODUCE, v, 1, "client"};
    Bytes whole = encode_request(h, m);
    CHECK(whole.capacity() >= whole.size());
    CHECK(whole.capacity() <= whole.size() + 16);
  }
  for (int16_t v = 4; v <= 17; v++) {
    FetchResponse m = samples::fetch_response(std::min<int16_t>(v, 11));
    ByteWriter w;
    m.encode(w, v);
    CHECK(m.encoded_size(v) == w.size());
  }
}

TEST_CASE("null and empty topic lists are different Metadata requests") {
  MetadataRequest all;  // topics = null: every topic
  MetadataRequest none;
  none.topics = std::vector<MetadataRequest::MetadataRequestTopic>{};  // empty: brokers only
  for (int16_t v = 1; v <= 8; v++) {
    check_round_trip(all, v);
    check_round_trip(none, v);
    ByteWriter a, n;
    all.encode(a, v);
    none.encode(n, v);
    CHECK(hex(as_view(a.bytes_ref())).substr(0, 8) == "ffffffff");
    CHECK(hex(as_view(n.bytes_ref())).substr(0, 8) == "00000000");
  }
  for (int16_t v = 9; v <= 12; v++) {  // compact: 0 is null, 1 is empty
    check_round_trip(all, v);
    check_round_trip(none, v);
    ByteWriter a, n;
    all.encode(a, v);
    none.encode(n, v);
    CHECK(a.bytes_ref()[0] == 0x00);
    CHECK(n.bytes_ref()[0] == 0x01);
  }
}

TEST_CASE("OffsetFetch v2+ asks for all topics with a null array") {
  OffsetFetchRequest all;
  all.group_id = "g1";
  for (int16_t v = 2; v <= 7; v++) check_round_trip(all, v);
}

TEST_CASE("inter-broker requests regroup ungrouped partitions by consecutive topic") {
  // v0 of StopReplica and v0-1 of LeaderAndIsr list partitions one by one with their topic;
  // partitions of one topic that are not adjacent stay separate groups, preserving order.
  StopReplicaRequest m;
  m.topics = {{"a", {0}}, {"b", {1}}, {"a", {2}}};
  check_round_trip(m, 0);
  check_round_trip(m, 1);
  // Two adjacent groups of one topic merge when written ungrouped: the wire cannot tell them apart.
  StopReplicaRequest split;
  split.topics = {{"a", {0}}, {"a", {1}}};
  ByteWriter w;
  split.encode(w, 0);
  Result<StopReplicaRequest> back = decode_body<StopReplicaRequest>(as_view(w.bytes_ref()), 0);
  REQUIRE(back.is_ok());
  REQUIRE(back->topics.size() == 1);
  CHECK(back->topics[0].partition_indexes == std::vector<int32_t>{0, 1});
}

}  // namespace
}  // namespace gregor::protocol
