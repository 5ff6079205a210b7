// parse_request: which requests are handled, which get the KIP-511 reply and which close the
// connection, as a Kafka broker decides.
#include <catch2/catch.hpp>

#include "engine/protocol/protocol.h"
#include "hex_util.h"

namespace gregor::protocol {
namespace {

using testing::unhex;

TEST_CASE("a supported request is handed over with its header and body") {
  RequestHeader h{ApiKey::HEARTBEAT, 3, 42, "kafkajs"};
  HeartbeatRequest body{"g1", 3, "member-a", std::nullopt};
  Bytes payload = encode_request(h, body);
  InboundRequest in = parse_request(as_view(payload));
  REQUIRE(in.action == RequestAction::kHandle);
  CHECK(in.header == h);
  CHECK(in.error.empty());
  ByteReader r = in.body_reader();
  Result<HeartbeatRequest> decoded = HeartbeatRequest::decode(r, in.header.api_version);
  REQUIRE(decoded.is_ok());
  CHECK(r.at_end());
  CHECK(decoded.value() == body);
}

TEST_CASE("an ApiVersions request of an unsupported version gets the KIP-511 reply, never a close") {
  // A future librdkafka sending ApiVersions v5 (flexible: header v2 with a tag section).
  Bytes payload = unhex("0012 0005 0000000b 0007 72646b61666b61 00 | 0b 6c696272646b61666b61 06 322e302e32 00");
  InboundRequest in = parse_request(as_view(payload));
  REQUIRE(in.action == RequestAction::kReplyUnsupportedApiVersions);
  CHECK(in.header.correlation_id == 11);
  Bytes reply = unsupported_api_versions_reply(in.header.correlation_id);
  Result<ApiVersionsResponse> back = decode_response<ApiVersionsResponse>(as_view(reply), 0);
  REQUIRE(back.is_ok());
  CHECK(back->error_code == ErrorCode::UNSUPPORTED_VERSION);
  REQUIRE(back->api_keys.size() == 1);
  CHECK(back->api_keys[0].api_key == ApiKey::API_VERSIONS);
  CHECK(back->api_keys[0].min_version == 0);
  CHECK(back->api_keys[0].max_version == 4);
  // Every ApiVersions layout starts with the error code after the correlation id, so a client that
  // parses the reply with the parser of the version it asked for still sees UNSUPPORTED_VERSION.
  CHECK(hex(ByteView(reply.data(), 6)) == "0000000b0023");
}

TEST_CASE("an unsupported version of any other api closes the connection") {
  // Every implemented API is advertised at Kafka 3.9's whole range (issue 16): versions past it close.
  RequestHeader h{ApiKey::METADATA, 13, 5, "c"};  // flexible Metadata: header v2
  ByteWriter w;
  h.encode(w);
  w.uvarint(1);  // an empty compact topics array (never decoded)
  InboundRequest in = parse_request(as_view(w.bytes_ref()));
  CHECK(in.action == RequestAction::kCloseConnection);
  CHECK(in.header.api_version == 13);

  RequestHeader past_fetch{ApiKey::FETCH, 18, 5, "c"};
  ByteWriter w2;
  past_fetch.encode(w2);
  CHECK(parse_request(as_view(w2.bytes_ref())).action == RequestAction::kCloseConnection);
}

TEST_CASE("an api Gregor does not implement closes the connection") {
  InboundRequest in = parse_request(as_view(unhex("0026 0000 00000001 ffff")));  // CreateDelegationToken v0
  CHECK(in.action == RequestAction::kCloseConnection);
  CHECK(in.header.api_key == ApiKey::CREATE_DELEGATION_TOKEN);
  CHECK(in.error.find("CreateDelegationToken") != std::string::npos);
  CHECK(parse_request(as_view(unhex("7fff 0000 00000001 ffff"))).action == RequestAction::kCloseConnection);
}

TEST_CASE("a malformed header closes the connection") {
  CHECK(parse_request(ByteView()).action == RequestAction::kCloseConnection);
  CHECK(parse_request(as_view(unhex("0003 0001 0000"))).action == RequestAction::kCloseConnection);
  CHECK(parse_request(as_view(unhex("0003 0001 00000001 0005 6162"))).action ==
        RequestAction::kCloseConnection);  // client id cut short
  CHECK(parse_request(as_view(unhex("0012 0003 00000001 ffff"))).action ==
        RequestAction::kCloseConnection);  // header v2 without its tag section
}

TEST_CASE("the body view points into the payload, right after the header") {
  Bytes payload = unhex("0003 0001 00000001 ffff | ffffffff");
  InboundRequest in = parse_request(as_view(payload));
  REQUIRE(in.action == RequestAction::kHandle);
  CHECK(in.header.client_id == std::nullopt);
  CHECK(in.body.data() == payload.data() + 10);
  CHECK(in.body.size() == 4);
}

TEST_CASE("decode_response checks the header version of its api") {
  RequestHeader h{ApiKey::LIST_OFFSETS, 2, 77, "c"};
  ListOffsetsResponse m;
  m.topics = {{"t", {{.partition_index = 0, .timestamp = -1, .offset = 9}}}};
  Bytes reply = encode_response(h, m);
  CHECK(hex(ByteView(reply.data(), 4)) == "0000004d");
  Result<ListOffsetsResponse> back = decode_response<ListOffsetsResponse>(as_view(reply), 2);
  REQUIRE(back.is_ok());
  CHECK(back.value() == m);
  CHECK_FALSE(decode_response<ListOffsetsResponse>(ByteView(reply.data(), 3), 2).is_ok());
  CHECK_FALSE(response_correlation_id(ByteView(reply.data(), 3)).is_ok());
}

}  // namespace
}  // namespace gregor::protocol
