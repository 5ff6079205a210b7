// Every request and response at every advertised version: encode, decode, compare; re-encode and
// compare bytes; every strict prefix (truncation at each byte) and one trailing byte must fail.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <string>

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

// What each advertised API is tested with: one function per api key running both directions.
using Check = std::function<void(int16_t version)>;

template <typename Request, typename Response>
Check both(Request (*request)(int16_t), Response (*response)(int16_t)) {
  return [request, response](int16_t v) {
    check_round_trip(request(v), v);
    check_round_trip(response(v), v);
  };
}

const std::map<ApiKey, Check>& checks() {
  using namespace samples;
  static const std::map<ApiKey, Check> table = {
      {ApiKey::PRODUCE, both(produce_request, produce_response)},
      {ApiKey::FETCH, both(fetch_request, fetch_response)},
      {ApiKey::LIST_OFFSETS, both(list_offsets_request, list_offsets_response)},
      {ApiKey::METADATA, both(metadata_request, metadata_response)},
      {ApiKey::LEADER_AND_ISR, both(leader_and_isr_request, leader_and_isr_response)},
      {ApiKey::STOP_REPLICA, both(stop_replica_request, stop_replica_response)},
      {ApiKey::UPDATE_METADATA, both(update_metadata_request, update_metadata_response)},
      {ApiKey::CONTROLLED_SHUTDOWN, both(controlled_shutdown_request, controlled_shutdown_response)},
      {ApiKey::OFFSET_COMMIT, both(offset_commit_request, offset_commit_response)},
      {ApiKey::OFFSET_FETCH, both(offset_fetch_request, offset_fetch_response)},
      {ApiKey::FIND_COORDINATOR, both(find_coordinator_request, find_coordinator_response)},
      {ApiKey::JOIN_GROUP, both(join_group_request, join_group_response)},
      {ApiKey::HEARTBEAT, both(heartbeat_request, heartbeat_response)},
      {ApiKey::LEAVE_GROUP, both(leave_group_request, leave_group_response)},
      {ApiKey::SYNC_GROUP, both(sync_group_request, sync_group_response)},
      {ApiKey::DESCRIBE_GROUPS, both(describe_groups_request, describe_groups_response)},
      {ApiKey::LIST_GROUPS, both(list_groups_request, list_groups_response)},
      {ApiKey::API_VERSIONS, both(api_versions_request, api_versions_response)},
      {ApiKey::CREATE_TOPICS, both(create_topics_request, create_topics_response)},
      {ApiKey::DELETE_TOPICS, both(delete_topics_request, delete_topics_response)},
      {ApiKey::INIT_PRODUCER_ID, both(init_producer_id_request, init_producer_id_response)},
      {ApiKey::OFFSET_FOR_LEADER_EPOCH, both(offset_for_leader_epoch_request, offset_for_leader_epoch_response)},
  };
  return table;
}

TEST_CASE("every advertised api has a round-trip check, and nothing else does") {
  for (const ApiVersionRange& range : supported_api_versions()) {
    INFO(api_name(range.api_key));
    CHECK(checks().count(range.api_key) == 1);
  }
  CHECK(checks().size() == supported_api_versions().size());
}

TEST_CASE("every request and response round-trips at every advertised version") {
  int versions_checked = 0;
  for (const ApiVersionRange& range : supported_api_versions()) {
    auto it = checks().find(range.api_key);
    REQUIRE(it != checks().end());
    for (int16_t v = range.min_version; v <= range.max_version; v++) {
      it->second(v);
      versions_checked++;
    }
  }
  CHECK(versions_checked == 87);  // the sum of the advertised ranges
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
