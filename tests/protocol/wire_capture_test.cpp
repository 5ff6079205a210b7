// Byte-exact checks against a real client's capture and against encodings computed by hand from
// Kafka's message JSON, so that a layout mistake made symmetrically in an encoder and its decoder
// (which a round trip cannot see) is caught.
#include <catch2/catch.hpp>

#include "engine/protocol/protocol.h"
#include "hex_util.h"

namespace gregor::protocol {
namespace {

using testing::encode_body;
using testing::unhex;

// librdkafka 2.0.2's first request on a connection, as captured (reference §3).
const char* kLibrdkafkaApiVersionsV3 =
    "00000024 0012 0003 00000001 0007 72646b61666b61 00 |"  // size, key 18, v3, corr 1, "rdkafka", tags
    "0b 6c696272646b61666b61 06 322e302e32 00";             // "librdkafka", "2.0.2", tags

TEST_CASE("librdkafka's ApiVersions v3 request decodes and re-encodes byte for byte") {
  Bytes wire = unhex(kLibrdkafkaApiVersionsV3);
  protocol::FrameDecoder decoder;
  decoder.feed(as_view(wire));
  std::optional<Bytes> payload = decoder.next();
  REQUIRE(payload.has_value());
  CHECK(payload->size() == 0x24);

  InboundRequest in = parse_request(as_view(*payload));
  REQUIRE(in.action == RequestAction::kHandle);
  CHECK(in.header.api_key == ApiKey::API_VERSIONS);
  CHECK(in.header.api_version == 3);
  CHECK(in.header.correlation_id == 1);
  CHECK(in.header.client_id == std::optional<std::string>("rdkafka"));
  CHECK(request_header_version(ApiKey::API_VERSIONS, 3) == 2);

  Result<ApiVersionsRequest> body = decode_body<ApiVersionsRequest>(in.body, 3);
  REQUIRE(body.is_ok());
  CHECK(body->client_software_name == "librdkafka");
  CHECK(body->client_software_version == "2.0.2");

  CHECK(frame(as_view(encode_request(in.header, body.value()))) == wire);
}

TEST_CASE("the KIP-511 reply is header v0 and the v0 body with only ApiVersions' own range") {
  CHECK(unsupported_api_versions_reply(1) == unhex("00000001 | 0023 00000001 0012 0000 0004"));
}

TEST_CASE("the ApiVersions v3 response is flexible but keeps response header v0") {
  RequestHeader request{ApiKey::API_VERSIONS, 3, 1, "rdkafka"};
  Bytes reply = encode_response(request, make_api_versions_response());
  size_t n = supported_api_versions().size();
  REQUIRE(n == 48);
  // correlation id (no header tags) | error 0 | compact count n+1 | first entry Produce 0-11 + tags
  CHECK(hex(ByteView(reply.data(), 14)) == "00000001" "0000" "31" "0000" "0000" "000b" "00");
  CHECK(reply.size() == 4 + 2 + 1 + n * 7 + 4 + 1);
  CHECK(hex(ByteView(reply.data() + reply.size() - 5, 5)) == "0000000000");  // throttle 0, tags
  Result<ApiVersionsResponse> back = decode_response<ApiVersionsResponse>(as_view(reply), 3);
  REQUIRE(back.is_ok());
  CHECK(back.value() == make_api_versions_response());
}

TEST_CASE("ApiVersions v0-v2 responses, as kafkajs reads them") {
  ApiVersionsResponse m;
  m.api_keys = {{.api_key = ApiKey::PRODUCE, .min_version = 3, .max_version = 7}};
  m.throttle_time_ms = 0;
  CHECK(encode_body(m, 0) == unhex("0000 00000001 0000 0003 0007"));
  CHECK(encode_body(m, 2) == unhex("0000 00000001 0000 0003 0007 00000000"));
}

TEST_CASE("a small Metadata v1 request, by hand") {
  RequestHeader h{ApiKey::METADATA, 1, 7, "c"};
  MetadataRequest m;
  m.topics = std::vector<MetadataRequest::MetadataRequestTopic>{{.name = "t1"}};
  CHECK(encode_request(h, m) == unhex("0003 0001 00000007 0001 63 | 00000001 0002 7431"));
  MetadataRequest all;
  CHECK(encode_request(h, all) == unhex("0003 0001 00000007 0001 63 | ffffffff"));
  h.api_version = 4;
  all.allow_auto_topic_creation = false;
  CHECK(encode_request(h, all) == unhex("0003 0004 00000007 0001 63 | ffffffff 00"));
}

TEST_CASE("a Metadata v1 response, by hand") {
  MetadataResponse m;
  m.brokers = {{1, "h", 9092, std::nullopt}};
  m.controller_id = 1;
  m.topics = {{.name = "t", .partitions = {{.partition_index = 0, .leader_id = 1, .replica_nodes = {1}, .isr_nodes = {1}}}}};
  CHECK(encode_body(m, 1) == unhex("00000001 00000001 0001 68 00002384 ffff |"  // brokers, rack null
                                   "00000001 |"                                // controller_id
                                   "00000001 0000 0001 74 00 |"                // topic t, not internal
                                   "00000001 0000 00000000 00000001 00000001 00000001 00000001 00000001"));
}

TEST_CASE("a Produce v3 request, header and body, by hand") {
  RequestHeader h{ApiKey::PRODUCE, 3, 2, "kcat"};
  ProduceRequest m;
  m.acks = -1;
  m.timeout_ms = 30000;
  m.topic_data = {{"t1", {{0, SharedBytes(to_bytes("\x01\x02\x03"))}}}};
  CHECK(encode_request(h, m) == unhex("0000 0003 00000002 0004 6b636174 |"  // header v1
                                      "ffff ffff 00007530 |"                 // txn null, acks -1, timeout
                                      "00000001 0002 7431 00000001 00000000 00000003 010203"));
}

TEST_CASE("a Produce v7 response, by hand") {
  RequestHeader request{ApiKey::PRODUCE, 7, 2, "kcat"};
  ProduceResponse m;
  m.responses = {{"t1", {{0, ErrorCode::NONE, 42, -1, 0}}}};
  CHECK(encode_response(request, m) == unhex("00000002 | 00000001 0002 7431 00000001 |"
                                             "00000000 0000 000000000000002a ffffffffffffffff 0000000000000000 |"
                                             "00000000"));
}

TEST_CASE("a Fetch v11 request, by hand") {
  FetchRequest m;
  m.max_wait_ms = 500;
  m.min_bytes = 1;
  m.max_bytes = 52428800;
  m.isolation_level = 1;
  m.topics = {{.topic = "t1", .partitions = {{.partition = 0, .fetch_offset = 5, .partition_max_bytes = 1048576}}}};
  CHECK(encode_body(m, 11) == unhex("ffffffff 000001f4 00000001 03200000 01 00000000 ffffffff |"
                                    "00000001 0002 7431 00000001 |"
                                    "00000000 ffffffff 0000000000000005 ffffffffffffffff 00100000 |"
                                    "00000000 0000"));  // no forgotten topics, rack ""
  // v4 has none of the v5+ (log_start_offset), v7+ (session) and v9+ (leader epoch) fields.
  CHECK(encode_body(m, 4) == unhex("ffffffff 000001f4 00000001 03200000 01 |"
                                   "00000001 0002 7431 00000001 00000000 0000000000000005 00100000"));
}

TEST_CASE("a Fetch v4 response, by hand") {
  FetchResponse m;
  FetchResponse::PartitionData p;
  p.high_watermark = 3;
  p.last_stable_offset = 3;
  p.aborted_transactions = std::vector<FetchResponse::AbortedTransaction>{};
  p.records = std::nullopt;
  m.responses = {{.topic = "t", .partitions = {p}}};
  CHECK(encode_body(m, 4) == unhex("00000000 | 00000001 0001 74 00000001 |"
                                   "00000000 0000 0000000000000003 0000000000000003 00000000 ffffffff"));
}

TEST_CASE("a JoinGroup v5 request, by hand") {
  JoinGroupRequest m;
  m.group_id = "g";
  m.session_timeout_ms = 45000;
  m.rebalance_timeout_ms = 300000;
  m.protocol_type = "consumer";
  m.protocols = {{"range", to_bytes("\xab\xcd")}};
  CHECK(encode_body(m, 5) == unhex("0001 67 0000afc8 000493e0 0000 ffff 0008 636f6e73756d6572 |"
                                   "00000001 0005 72616e6765 00000002 abcd"));
  CHECK(encode_body(m, 0) == unhex("0001 67 0000afc8 0000 0008 636f6e73756d6572 |"
                                   "00000001 0005 72616e6765 00000002 abcd"));
}

TEST_CASE("an InitProducerId v1 exchange, by hand") {
  InitProducerIdRequest request;
  request.transaction_timeout_ms = -1;
  CHECK(encode_body(request, 1) == unhex("ffff ffffffff"));
  InitProducerIdResponse response;
  response.producer_id = 1000;
  response.producer_epoch = 0;
  CHECK(encode_body(response, 1) == unhex("00000000 0000 00000000000003e8 0000"));
}

TEST_CASE("a LeaderAndIsr v1 request lists partitions ungrouped, v2 groups them by topic") {
  LeaderAndIsrRequest m;
  m.controller_id = 1;
  m.controller_epoch = 2;
  LeaderAndIsrRequest::LeaderAndIsrPartitionState p;
  p.partition_index = 0;
  p.controller_epoch = 2;
  p.leader = 1;
  p.leader_epoch = 3;
  p.isr = {1};
  p.zk_version = 4;
  p.replicas = {1, 2};
  p.is_new = true;
  m.topic_states = {{.topic_name = "t", .partition_states = {p}}};
  m.live_leaders = {{1, "h", 9092}};
  const char* state = "00000000 00000002 00000001 00000003 00000001 00000001 00000004 00000002 00000001 00000002 01";
  CHECK(encode_body(m, 1) == unhex(std::string("00000001 00000002 | 00000001 0001 74 ") + state +
                                   "| 00000001 00000001 0001 68 00002384"));
  m.broker_epoch = 5;
  CHECK(encode_body(m, 2) == unhex(std::string("00000001 00000002 0000000000000005 |"
                                               "00000001 0001 74 00000001 ") + state +
                                   "| 00000001 00000001 0001 68 00002384"));
}

TEST_CASE("an UpdateMetadata v0 broker has one host and port; v3 has endpoints with listeners") {
  UpdateMetadataRequest m;
  m.controller_id = 1;
  m.controller_epoch = 1;
  m.live_brokers = {{.id = 1, .v0_host = "h", .v0_port = 9092}};
  CHECK(encode_body(m, 0) == unhex("00000001 00000001 00000000 | 00000001 00000001 0001 68 00002384"));
  m.live_brokers = {{.id = 1, .endpoints = {{9092, "h", "PLAINTEXT", kSecurityProtocolPlaintext}}}};
  CHECK(encode_body(m, 3) == unhex("00000001 00000001 00000000 | 00000001 00000001 |"
                                   "00000001 00002384 0001 68 0009 504c41494e54455854 0000 | ffff"));
}

TEST_CASE("headers: v0 without client id, v1 with, v2 with tags; response v1 adds tags") {
  ByteWriter w0;
  RequestHeader{ApiKey::CONTROLLED_SHUTDOWN, 0, 9, "ignored"}.encode(w0);
  CHECK(w0.bytes_ref() == unhex("0007 0000 00000009"));
  ByteWriter w1;
  RequestHeader{ApiKey::HEARTBEAT, 3, 9, std::nullopt}.encode(w1);
  CHECK(w1.bytes_ref() == unhex("000c 0003 00000009 ffff"));
  ByteWriter w2;
  RequestHeader{ApiKey::API_VERSIONS, 3, 5, std::nullopt}.encode(w2);
  CHECK(w2.bytes_ref() == unhex("0012 0003 00000005 ffff 00"));
  ByteWriter r0, r1;
  ResponseHeader{5}.encode(r0, 0);
  ResponseHeader{5}.encode(r1, 1);
  CHECK(r0.bytes_ref() == unhex("00000005"));
  CHECK(r1.bytes_ref() == unhex("00000005 00"));
}

TEST_CASE("header versions follow the flexible versions, with Kafka's two exceptions") {
  CHECK(request_header_version(ApiKey::METADATA, 4) == 1);
  CHECK(request_header_version(ApiKey::METADATA, 9) == 2);
  CHECK(response_header_version(ApiKey::METADATA, 9) == 1);
  CHECK(request_header_version(ApiKey::CONTROLLED_SHUTDOWN, 0) == 0);
  CHECK(request_header_version(ApiKey::CONTROLLED_SHUTDOWN, 1) == 1);
  CHECK(request_header_version(ApiKey::API_VERSIONS, 3) == 2);
  CHECK(response_header_version(ApiKey::API_VERSIONS, 3) == 0);
  CHECK(request_header_version(ApiKey::OFFSET_FETCH, 6) == 2);
  CHECK(request_header_version(ApiKey::INIT_PRODUCER_ID, 2) == 2);
  CHECK(request_header_version(static_cast<ApiKey>(999), 0) == 1);
}

TEST_CASE("a flexible request header skips tagged fields it does not know") {
  // ApiVersions v3, corr 3, client null, one tagged field {tag 0, 2 bytes}, then a v3 body with two empty strings.
  Bytes payload = unhex("0012 0003 00000003 ffff 01 00 02 abcd | 01 01 00");
  InboundRequest in = parse_request(as_view(payload));
  REQUIRE(in.action == RequestAction::kHandle);
  CHECK(in.header.client_id == std::nullopt);
  CHECK(in.body.size() == 3);
  Result<ApiVersionsRequest> body = decode_body<ApiVersionsRequest>(in.body, 3);
  REQUIRE(body.is_ok());
  CHECK(body->client_software_name.empty());
}

// ---- flexible versions, by hand from Kafka 3.9's message JSON ------------------------------------

TEST_CASE("a Metadata v12 request: compact arrays, a topic id, a null name, tag sections") {
  RequestHeader h{ApiKey::METADATA, 12, 7, "c"};
  MetadataRequest m;
  m.topics = std::vector<MetadataRequest::MetadataRequestTopic>{
      {.topic_id = Uuid(), .name = "t1"}, {.topic_id = Uuid(1, 2), .name = std::nullopt}};
  m.allow_auto_topic_creation = false;
  m.include_topic_authorized_operations = true;
  Bytes expected = unhex("0003 000c 00000007 0001 63 00 |"          // header v2: client id keeps int16
                         "03 | 00000000000000000000000000000000 03 7431 00 |"  // 2 topics: zero id, "t1"
                         "0000000000000001 0000000000000002 00 00 |"          // id 1:2, null name
                         "00 01 00");  // no auto-creation, topic authorized operations, no tags
  CHECK(encode_request(h, m) == expected);
  InboundRequest in = parse_request(as_view(expected));
  CHECK(in.header == h);
  Result<MetadataRequest> back = decode_body<MetadataRequest>(in.body, 12);
  REQUIRE(back.is_ok());
  CHECK(back.value() == m);
}

TEST_CASE("a Fetch v13 request names topics by id and carries a tagged cluster id") {
  FetchRequest m;
  m.max_wait_ms = 500;
  m.min_bytes = 1;
  m.max_bytes = 52428800;
  m.isolation_level = 1;
  m.cluster_id = "c";
  m.topics = {{.topic_id = Uuid(1, 2),
               .partitions = {{.partition = 0,
                               .current_leader_epoch = 5,
                               .fetch_offset = 100,
                               .last_fetched_epoch = 4,
                               .partition_max_bytes = 1048576}}}};
  Bytes expected = unhex("ffffffff 000001f4 00000001 03200000 01 00000000 ffffffff |"
                         "02 | 0000000000000001 0000000000000002 |"               // one topic, by id
                         "02 | 00000000 00000005 0000000000000064 00000004 ffffffffffffffff 00100000 00 |"
                         "00 | 01 | 01 |"                                         // topic tags, no forgotten, rack ""
                         "01 00 02 0263");                                        // tag 0: cluster id "c"
  CHECK(encode_body(m, 13) == expected);
  Result<FetchRequest> back = decode_body<FetchRequest>(as_view(expected), 13);
  REQUIRE(back.is_ok());
  CHECK(back.value() == m);
  // The same request at v12 names the topic (empty here) instead.
  CHECK(hex(as_view(encode_body(m, 12))).substr(50, 4) == "0201");
}

TEST_CASE("a Fetch v12 response: a known tagged field decodes, a short or long one is malformed") {
  const std::string head = "00000000 0000 00000000 | 02 02 74 | 02 |"
                           "00000000 0000 0000000000000005 0000000000000005 0000000000000000 |"
                           "00 ffffffff 00 |";  // no aborted transactions, no preferred replica, no records
  Bytes bytes = unhex(head + "01 00 0d 00000003 0000000000000004 00 | 00 | 00");  // tag 0: diverging epoch
  Result<FetchResponse> m = decode_body<FetchResponse>(as_view(bytes), 12);
  REQUIRE(m.is_ok());
  const FetchResponse::PartitionData& p = m->responses.at(0).partitions.at(0);
  CHECK(p.diverging_epoch.epoch == 3);
  CHECK(p.diverging_epoch.end_offset == 4);
  CHECK(p.high_watermark == 5);
  CHECK_FALSE(p.records.has_value());
  CHECK(encode_body(m.value(), 12) == bytes);
  // The field's size says 12 bytes, one short of the struct; or 14, one more than it uses.
  CHECK_FALSE(decode_body<FetchResponse>(as_view(unhex(head + "01 00 0c 00000003 0000000000000004 | 00 | 00")), 12).is_ok());
  CHECK_FALSE(decode_body<FetchResponse>(as_view(unhex(head + "01 00 0e 00000003 0000000000000004 00 ff | 00 | 00")), 12).is_ok());
}

TEST_CASE("a Produce v9 request: compact nullable strings and compact records") {
  ProduceRequest m;
  m.acks = -1;
  m.timeout_ms = 30000;
  m.topic_data = {{"t1", {{0, SharedBytes(to_bytes("\x01\x02\x03"))}}}};
  CHECK(encode_body(m, 9) == unhex("00 ffff 00007530 | 02 03 7431 | 02 00000000 04 010203 00 | 00 | 00"));
  m.topic_data[0].partition_data[0].records = std::nullopt;
  CHECK(encode_body(m, 9) == unhex("00 ffff 00007530 | 02 03 7431 | 02 00000000 00 00 | 00 | 00"));
}

TEST_CASE("an ApiVersions v3 response with a supported feature in its tag section") {
  ApiVersionsResponse m;
  m.api_keys = {{.api_key = ApiKey::API_VERSIONS, .min_version = 0, .max_version = 4}};
  m.supported_features = {{.name = "f", .min_version = 1, .max_version = 20}};
  Bytes expected = unhex("0000 | 02 0012 0000 0004 00 | 00000000 | 01 00 08 02 0266 0001 0014 00");
  CHECK(encode_body(m, 3) == expected);
  Result<ApiVersionsResponse> back = decode_body<ApiVersionsResponse>(as_view(expected), 3);
  REQUIRE(back.is_ok());
  CHECK(back.value() == m);
  // Tag 1 (finalized features epoch) is written only when it is not its default, -1.
  m.finalized_features_epoch = 7;
  CHECK(hex(as_view(encode_body(m, 3))).substr(28) == "02" "00080202660001001400" "01080000000000000007");
}

TEST_CASE("FindCoordinator v4 batches keys; OffsetFetch v8 batches groups") {
  FindCoordinatorRequest find;
  find.coordinator_keys = {"g1", "g2"};
  CHECK(encode_body(find, 4) == unhex("00 03 03 6731 03 6732 00"));
  FindCoordinatorResponse found;
  found.coordinators = {{.key = "g1", .node_id = 1, .host = "h", .port = 9092}};
  CHECK(encode_body(found, 4) == unhex("00000000 02 03 6731 00000001 02 68 00002384 0000 00 00 00"));
  OffsetFetchRequest fetch;
  fetch.groups = {{.group_id = "g1", .topics = std::nullopt}};
  fetch.require_stable = true;
  CHECK(encode_body(fetch, 8) == unhex("02 03 6731 00 00 | 01 | 00"));
  CHECK(encode_body(fetch, 9) == unhex("02 03 6731 00 ffffffff 00 00 | 01 | 00"));  // null member id, epoch -1
}

TEST_CASE("ControlledShutdown v0 has request header v0; v3 is flexible") {
  RequestHeader h{ApiKey::CONTROLLED_SHUTDOWN, 0, 9, "broker-1"};
  ControlledShutdownRequest m;
  m.broker_id = 1;
  m.broker_epoch = 5;
  CHECK(encode_request(h, m) == unhex("0007 0000 00000009 | 00000001"));
  h.api_version = 3;
  CHECK(encode_request(h, m) == unhex("0007 0003 00000009 0008 62726f6b65722d31 00 | 00000001 0000000000000005 00"));
  InboundRequest in = parse_request(as_view(unhex("0007 0000 00000009 | 00000001")));
  CHECK(in.header.api_key == ApiKey::CONTROLLED_SHUTDOWN);
  CHECK(in.header.client_id == std::nullopt);
  CHECK(in.body.size() == 4);
}

TEST_CASE("unknown tagged fields are kept and written back in tag order") {
  // ApiVersions v3 request: two strings, then tags 5 and 9 that this codec does not know.
  Bytes bytes = unhex("02 61 02 62 | 02 05 02 abcd 09 00");
  Result<ApiVersionsRequest> m = decode_body<ApiVersionsRequest>(as_view(bytes), 3);
  REQUIRE(m.is_ok());
  REQUIRE(m->unknown_tagged_fields.size() == 2);
  CHECK(m->unknown_tagged_fields[0].tag == 5);
  CHECK(m->unknown_tagged_fields[1].data.empty());
  CHECK(encode_body(m.value(), 3) == bytes);
  // Beside a known tag: Fetch v12's cluster id (tag 0) is written before an unknown tag 7.
  FetchRequest f;
  f.cluster_id = "c";
  f.unknown_tagged_fields = {{.tag = 7, .data = to_bytes("x")}};
  Bytes fb = encode_body(f, 12);
  CHECK(hex(ByteView(fb.data() + fb.size() - 8, 8)) == "02" "00020263" "070178");
  Result<FetchRequest> fback = decode_body<FetchRequest>(as_view(fb), 12);
  REQUIRE(fback.is_ok());
  CHECK(fback.value() == f);
  // A tag that names a field of a later version is unknown at this one: Fetch's replica_state is
  // tag 1 from v15; at v12 it is kept raw.
  FetchRequest g;
  g.unknown_tagged_fields = {{.tag = 1, .data = to_bytes("\x00\x00\x00\x01")}};
  Result<FetchRequest> gback = decode_body<FetchRequest>(as_view(encode_body(g, 12)), 12);
  REQUIRE(gback.is_ok());
  CHECK(gback->unknown_tagged_fields == g.unknown_tagged_fields);
  CHECK(gback->replica_state == FetchRequest::ReplicaState{});
}

TEST_CASE("a Uuid's text form is Kafka's URL-safe base64 without padding") {
  CHECK(Uuid().to_string() == "AAAAAAAAAAAAAAAAAAAAAA");
  CHECK(Uuid(1, 2).to_string() == "AAAAAAAAAAEAAAAAAAAAAg");
  CHECK(Uuid(0xfedcba9876543210ULL, 0x0123456789abcdefULL).to_string() == "_ty6mHZUMhABI0VniavN7w");
  CHECK(Uuid::parse("_ty6mHZUMhABI0VniavN7w") == Uuid(0xfedcba9876543210ULL, 0x0123456789abcdefULL));
  CHECK(Uuid::parse("AAAAAAAAAAEAAAAAAAAAAg") == Uuid(1, 2));
  CHECK_FALSE(Uuid::parse("AAAAAAAAAAEAAAAAAAAAAh").has_value());  // leftover bits set
  CHECK_FALSE(Uuid::parse("AAAAAAAAAAEAAAAAAAAAA").has_value());   // 21 characters
  CHECK_FALSE(Uuid::parse("AAAAAAAAAAEAAAAAAAAA+g").has_value());  // not URL-safe
}

}  // namespace
}  // namespace gregor::protocol
