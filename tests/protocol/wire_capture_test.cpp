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
  CHECK(unsupported_api_versions_reply(1) == unhex("00000001 | 0023 00000001 0012 0000 0003"));
}

TEST_CASE("the ApiVersions v3 response is flexible but keeps response header v0") {
  RequestHeader request{ApiKey::API_VERSIONS, 3, 1, "rdkafka"};
  Bytes reply = encode_response(request, make_api_versions_response());
  size_t n = supported_api_versions().size();
  REQUIRE(n == 25);
  // correlation id (no header tags) | error 0 | compact count n+1 | first entry Produce 3-7 + tags
  CHECK(hex(ByteView(reply.data(), 14)) == "00000001" "0000" "1a" "0000" "0003" "0007" "00");
  CHECK(reply.size() == 4 + 2 + 1 + n * 7 + 4 + 1);
  CHECK(hex(ByteView(reply.data() + reply.size() - 5, 5)) == "0000000000");  // throttle 0, tags
  Result<ApiVersionsResponse> back = decode_response<ApiVersionsResponse>(as_view(reply), 3);
  REQUIRE(back.is_ok());
  CHECK(back.value() == make_api_versions_response());
}

TEST_CASE("ApiVersions v0-v2 responses, as kafkajs reads them") {
  ApiVersionsResponse m;
  m.api_keys = {{ApiKey::PRODUCE, 3, 7}};
  m.throttle_time_ms = 0;
  CHECK(encode_body(m, 0) == unhex("0000 00000001 0000 0003 0007"));
  CHECK(encode_body(m, 2) == unhex("0000 00000001 0000 0003 0007 00000000"));
}

TEST_CASE("a small Metadata v1 request, by hand") {
  RequestHeader h{ApiKey::METADATA, 1, 7, "c"};
  MetadataRequest m;
  m.topics = std::vector<MetadataRequest::MetadataRequestTopic>{{"t1"}};
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
  m.topics = {{ErrorCode::NONE, "t", false, {{ErrorCode::NONE, 0, 1, {1}, {1}}}}};
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
  m.topic_data = {{"t1", {{0, to_bytes("\x01\x02\x03")}}}};
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
  m.topics = {{"t1", {{0, -1, 5, -1, 1048576}}}};
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
  m.responses = {{"t", {p}}};
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
  m.topic_states = {{"t", {p}}};
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
  m.live_brokers = {{1, {{9092, "h", "PLAINTEXT", kSecurityProtocolPlaintext}}, std::nullopt}};
  CHECK(encode_body(m, 0) == unhex("00000001 00000001 00000000 | 00000001 00000001 0001 68 00002384"));
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

}  // namespace
}  // namespace gregor::protocol
