// Bad input never crashes a decoder and always yields an error: truncation at every byte of every
// message at every version, hostile counts and lengths (classic and compact), hostile tag sections,
// and seeded random mutations of valid messages (which must at least not crash).
#include <catch2/catch.hpp>

#include "catalog.h"
#include "generated/protocol/samples.h"
#include "engine/core/rng.h"
#include "engine/protocol/protocol.h"
#include "hex_util.h"

namespace gregor::protocol {
namespace {

using testing::api_catalog;
using testing::unhex;

// The generated sample of every message at every version of Kafka 3.9 (spec_samples), with nulls
// (seed 1) and without (seed 0).
TEST_CASE("every message truncated at every byte position fails to decode") {
  int prefixes = 0;
  for (const spec_samples::MessageInfo& m : spec_samples::all_messages()) {
    for (int16_t v = m.min_version; v <= m.max_version; v++) {
      for (uint64_t seed : {0, 1}) {
        Bytes bytes = m.sample(v, seed);
        INFO(m.name << " v" << v << " seed " << seed << " size " << bytes.size());
        REQUIRE(m.decodes(as_view(bytes), v));
        for (size_t n = 0; n < bytes.size(); n++) {
          if (m.decodes(ByteView(bytes.data(), n), v)) FAIL_CHECK("decoded when truncated to " << n << " bytes");
          prefixes++;
        }
        Bytes longer = bytes;
        longer.push_back(0x00);
        CHECK_FALSE(m.decodes(as_view(longer), v));  // trailing bytes are rejected
      }
    }
  }
  CHECK(prefixes > 40000);
}

TEST_CASE("a decoder refuses a version outside Kafka 3.9's range of its api") {
  Bytes empty;
  CHECK_FALSE(decode_body<ProduceRequest>(as_view(empty), 12).is_ok());
  CHECK_FALSE(decode_body<FetchRequest>(as_view(empty), 18).is_ok());
  CHECK_FALSE(decode_body<ApiVersionsRequest>(as_view(empty), 5).is_ok());
  CHECK_FALSE(decode_body<ApiVersionsRequest>(as_view(empty), -1).is_ok());
  CHECK_FALSE(decode_body<OffsetDeleteRequest>(as_view(unhex("0001 67 00000000")), 1).is_ok());
  Result<ListGroupsRequest> r = decode_body<ListGroupsRequest>(as_view(empty), 6);
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().code() == StatusCode::kInvalidArgument);
  CHECK(decode_body<ListGroupsRequest>(as_view(empty), 2).is_ok());
  // Inside the range, whatever the broker advertises: ListGroups v3 is an empty flexible body (its
  // tag section), ApiVersions v4 the v3 layout.
  CHECK(decode_body<ListGroupsRequest>(as_view(unhex("00")), 3).is_ok());
  CHECK(decode_body<ApiVersionsRequest>(as_view(unhex("01 01 00")), 4).is_ok());
  CHECK(decode_body<OffsetDeleteRequest>(as_view(unhex("0001 67 00000000")), 0).is_ok());
}

TEST_CASE("hostile array counts fail before any allocation") {
  // Produce v3: txn null, acks, timeout, then 2^31-1 topics in a few bytes.
  CHECK_FALSE(decode_body<ProduceRequest>(as_view(unhex("ffff ffff 00007530 7fffffff 0002 7431")), 3).is_ok());
  // A nested count: one topic whose partition array claims 2^31-1 entries.
  CHECK_FALSE(decode_body<ProduceRequest>(
                  as_view(unhex("ffff ffff 00007530 00000001 0002 7431 7fffffff 00000000")), 3)
                  .is_ok());
  // An int32 array (a Metadata partition's replicas) claiming more than the bytes left.
  CHECK_FALSE(decode_body<LeaderAndIsrResponse>(as_view(unhex("0000 10000000 0001 74")), 0).is_ok());
  // ApiVersions v3 response: a compact array count of 2^32-2 elements.
  CHECK_FALSE(decode_body<ApiVersionsResponse>(as_view(unhex("0000 ffffffff0f 00000000 00")), 3).is_ok());
}

TEST_CASE("negative lengths and counts are rejected") {
  // Non-nullable array given as null (-1), and counts below -1.
  CHECK_FALSE(decode_body<ProduceRequest>(as_view(unhex("ffff ffff 00007530 ffffffff")), 3).is_ok());
  CHECK_FALSE(decode_body<ProduceRequest>(as_view(unhex("ffff ffff 00007530 fffffffe")), 3).is_ok());
  CHECK_FALSE(decode_body<MetadataRequest>(as_view(unhex("80000000")), 1).is_ok());
  CHECK(decode_body<MetadataRequest>(as_view(unhex("ffffffff")), 1).is_ok());  // nullable: all topics
  // A non-nullable string given as null (-1), and a length below -1.
  CHECK_FALSE(decode_body<FindCoordinatorRequest>(as_view(unhex("ffff")), 0).is_ok());
  CHECK_FALSE(decode_body<FindCoordinatorRequest>(as_view(unhex("fffe")), 0).is_ok());
  // A nullable string with length -2.
  CHECK_FALSE(decode_body<InitProducerIdRequest>(as_view(unhex("fffe 00000000")), 0).is_ok());
  // BYTES (JoinGroup protocol metadata) with length -1 (not nullable) and -2.
  const char* join_prefix = "0001 67 0000afc8 0000 0008 636f6e73756d6572 00000001 0005 72616e6765 ";
  CHECK_FALSE(decode_body<JoinGroupRequest>(as_view(unhex(std::string(join_prefix) + "ffffffff")), 0).is_ok());
  CHECK_FALSE(decode_body<JoinGroupRequest>(as_view(unhex(std::string(join_prefix) + "fffffffe")), 0).is_ok());
  CHECK(decode_body<JoinGroupRequest>(as_view(unhex(std::string(join_prefix) + "00000000")), 0).is_ok());
  // RECORDS (nullable bytes): -1 is null, -2 is malformed, a length past the end is malformed.
  const char* produce_prefix = "ffff ffff 00007530 00000001 0002 7431 00000001 00000000 ";
  CHECK(decode_body<ProduceRequest>(as_view(unhex(std::string(produce_prefix) + "ffffffff")), 3).is_ok());
  CHECK_FALSE(decode_body<ProduceRequest>(as_view(unhex(std::string(produce_prefix) + "fffffffe")), 3).is_ok());
  CHECK_FALSE(decode_body<ProduceRequest>(as_view(unhex(std::string(produce_prefix) + "7fffffff 00")), 3).is_ok());
}

TEST_CASE("hostile flexible encodings: compact lengths, tag sections, overlong varints") {
  // Compact string: null where not nullable, a length past the end, a length past int16.
  CHECK_FALSE(decode_body<ApiVersionsRequest>(as_view(unhex("00 01 00")), 3).is_ok());
  CHECK_FALSE(decode_body<ApiVersionsRequest>(as_view(unhex("7f 61 01 00")), 3).is_ok());
  CHECK_FALSE(decode_body<ApiVersionsRequest>(as_view(unhex("ffff03 01 00")), 3).is_ok());
  // A varint longer than 5 bytes.
  CHECK_FALSE(decode_body<ApiVersionsRequest>(as_view(unhex("ffffffffff01 01 00")), 3).is_ok());
  // Tag section: a count far beyond the bytes left; a field whose size runs past the end.
  CHECK_FALSE(decode_body<ApiVersionsRequest>(as_view(unhex("01 01 ffffffff0f")), 3).is_ok());
  CHECK_FALSE(decode_body<ApiVersionsRequest>(as_view(unhex("01 01 01 00 7f 00")), 3).is_ok());
  // A well-formed unknown tagged field is skipped.
  CHECK(decode_body<ApiVersionsRequest>(as_view(unhex("01 01 01 05 02 abcd")), 3).is_ok());
}

TEST_CASE("hostile compact counts, lengths and tag sections inside nested structs") {
  // Metadata v12 request: a compact topic count of 2^32-2; a topic name running past the end.
  CHECK_FALSE(decode_body<MetadataRequest>(as_view(unhex("ffffffff0f 00 01 00")), 12).is_ok());
  CHECK_FALSE(decode_body<MetadataRequest>(as_view(unhex("02 00000000000000000000000000000000 7f 61 00 | 00 01 00")), 12).is_ok());
  CHECK(decode_body<MetadataRequest>(as_view(unhex("02 00000000000000000000000000000000 02 61 00 | 00 01 00")), 12).is_ok());
  // Produce v9: compact records longer than the bytes left; a null topic name (not nullable).
  CHECK_FALSE(decode_body<ProduceRequest>(as_view(unhex("00 ffff 00007530 02 03 7431 02 00000000 7f 0102 00 00 00")), 9).is_ok());
  CHECK_FALSE(decode_body<ProduceRequest>(as_view(unhex("00 ffff 00007530 02 00 02 00000000 00 00 00 00")), 9).is_ok());
  CHECK(decode_body<ProduceRequest>(as_view(unhex("00 ffff 00007530 02 03 7431 02 00000000 00 00 00 00")), 9).is_ok());
  // A partition's tag section claiming 2^31 fields, and one whose field runs past the end.
  const std::string head = "00000000 0000 00000000 | 02 02 74 | 02 |"
                           "00000000 0000 0000000000000005 0000000000000005 0000000000000000 | 00 ffffffff 00 |";
  CHECK(decode_body<FetchResponse>(as_view(unhex(head + "00 | 00 | 00")), 12).is_ok());
  CHECK_FALSE(decode_body<FetchResponse>(as_view(unhex(head + "ffffffff07 | 00 | 00")), 12).is_ok());
  CHECK_FALSE(decode_body<FetchResponse>(as_view(unhex(head + "01 09 7f 00 | 00 | 00")), 12).is_ok());
  // A v4 Fetch response whose partition count could not fit in the bytes left (each partition
  // takes at least 30 bytes at v4) fails cleanly.
  CHECK_FALSE(decode_body<FetchResponse>(as_view(unhex("00000000 00000001 0001 74 00000004" + std::string(100 * 2, '0'))), 4).is_ok());
}

TEST_CASE("random mutations of valid messages never crash a decoder") {
  Rng rng = Rng::derive(20240601, "protocol-fuzz");
  int decoded = 0, rejected = 0, messages = 0;
  for (const spec_samples::MessageInfo& m : spec_samples::all_messages()) {
    for (int16_t v = m.min_version; v <= m.max_version; v++) {
      Bytes original = m.sample(v, static_cast<uint64_t>(v));
      messages++;
      for (int round = 0; round < 40; round++) {
        Bytes bytes = original;
        int edits = static_cast<int>(rng.range(1, 4));
        for (int e = 0; e < edits; e++) {
          switch (rng.uniform(4)) {
            case 0:  // overwrite a byte
              if (!bytes.empty()) bytes[rng.uniform(bytes.size())] = static_cast<uint8_t>(rng.uniform(256));
              break;
            case 1:  // a length or count byte becomes 0xff or 0x7f
              if (!bytes.empty()) bytes[rng.uniform(bytes.size())] = rng.chance(0.5) ? 0xff : 0x7f;
              break;
            case 2:  // cut the tail
              bytes.resize(rng.uniform(bytes.size() + 1));
              break;
            default:  // insert a byte
              bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(rng.uniform(bytes.size() + 1)),
                           static_cast<uint8_t>(rng.uniform(256)));
              break;
          }
        }
        (m.decodes(as_view(bytes), v) ? decoded : rejected)++;
      }
    }
  }
  CHECK(rejected > 0);
  CHECK(decoded + rejected == messages * 40);
  CHECK(messages == 2 * 254);
}

TEST_CASE("random payloads never crash the request parser") {
  Rng rng = Rng::derive(7, "protocol-garbage");
  for (int i = 0; i < 3000; i++) {
    Bytes payload(rng.uniform(40));
    for (uint8_t& byte : payload) byte = static_cast<uint8_t>(rng.uniform(256));
    if (payload.size() >= 4 && rng.chance(0.7)) {
      // Aim at real api keys and versions so that the body decoders run too.
      const ApiVersionRange& range = supported_api_versions()[rng.uniform(supported_api_versions().size())];
      payload[0] = 0;
      payload[1] = static_cast<uint8_t>(range.api_key);
      payload[2] = 0;
      payload[3] = static_cast<uint8_t>(rng.range(range.min_version, range.max_version));
    }
    InboundRequest in = parse_request(as_view(payload));
    if (in.action == RequestAction::kHandle) {
      CHECK(in.body.size() <= payload.size());
      const testing::ApiCodecs& api = api_catalog().at(in.header.api_key);
      (void)api.request.decodes(in.body, in.header.api_version);
    } else if (in.action == RequestAction::kCloseConnection) {
      CHECK_FALSE(in.error.empty());
    }
  }
}

}  // namespace
}  // namespace gregor::protocol
