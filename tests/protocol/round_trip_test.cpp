// Every request and response at every advertised version: encode, decode, compare with the
// original; re-encode and compare bytes. (Truncation and hostile input: malformed_test.cpp.)
#include <catch2/catch.hpp>

#include "catalog.h"
#include "samples.h"

namespace gregor::protocol {
namespace {

template <typename Message>
void check_round_trip(const Message& sample, int16_t version) {
  INFO(api_name(Message::kApiKey) << " v" << version);
  ByteWriter w;
  sample.encode(w, version);
  Bytes bytes = w.take();

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

TEST_CASE("every advertised api has a round-trip check, and nothing else does") {
  for (const ApiVersionRange& range : supported_api_versions()) {
    INFO(api_name(range.api_key));
    CHECK(api_catalog().count(range.api_key) == 1);
  }
  CHECK(api_catalog().size() == supported_api_versions().size());
}

TEST_CASE("every request and response round-trips at every advertised version") {
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
  CHECK(versions_checked == 93);  // the sum of the advertised ranges
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

TEST_CASE("the size hints of the messages with records are upper bounds") {
  for (int16_t v = 3; v <= 7; v++) {
    ProduceRequest m = samples::produce_request(v);
    ByteWriter w;
    m.encode(w, v);
    CHECK(m.encoded_size_hint() >= w.size());
    CHECK(m.encoded_size_hint() <= w.size() + 64);
  }
  for (int16_t v = 4; v <= 11; v++) {
    FetchResponse m = samples::fetch_response(v);
    ByteWriter w;
    m.encode(w, v);
    CHECK(m.encoded_size_hint() >= w.size());
    CHECK(m.encoded_size_hint() <= w.size() + 64);
  }
}

TEST_CASE("null and empty topic lists are different Metadata requests") {
  MetadataRequest all;  // topics = null: every topic
  MetadataRequest none;
  none.topics = std::vector<MetadataRequest::MetadataRequestTopic>{};  // empty: brokers only
  for (int16_t v = 1; v <= 4; v++) {
    check_round_trip(all, v);
    check_round_trip(none, v);
    ByteWriter a, n;
    all.encode(a, v);
    none.encode(n, v);
    CHECK(hex(as_view(a.bytes_ref())).substr(0, 8) == "ffffffff");
    CHECK(hex(as_view(n.bytes_ref())).substr(0, 8) == "00000000");
  }
}

TEST_CASE("OffsetFetch v2+ asks for all topics with a null array") {
  OffsetFetchRequest all;
  all.group_id = "g1";
  for (int16_t v = 2; v <= 4; v++) check_round_trip(all, v);
}

TEST_CASE("inter-broker requests regroup ungrouped partitions by consecutive topic") {
  // v0 of StopReplica and v0-1 of LeaderAndIsr list partitions one by one with their topic;
  // partitions of one topic that are not adjacent stay separate groups, preserving order.
  StopReplicaRequest m;
  m.topics = {{"a", {0}}, {"b", {1}}, {"a", {2}}};
  check_round_trip(m, 0);
  check_round_trip(m, 1);
}

}  // namespace
}  // namespace gregor::protocol
