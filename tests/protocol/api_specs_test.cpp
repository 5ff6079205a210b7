// The message specs against Kafka 3.9: every API's valid, flexible and deprecated versions as the
// reference table gives them (/work/shared/reference/kafka-3.9-api-versions.md, read from the 3.9
// message JSON), the header versions they imply, and the advertised table inside them.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/protocol/protocol.h"
#include "generated/protocol/samples.h"

namespace gregor::protocol {
namespace {

struct Expected {
  int16_t key;
  const char* name;
  int16_t min, max;
  int16_t flexible;                  // -1: never
  int16_t deprecated_min, deprecated_max;  // -1: none
};

// Kafka 3.9.0's validVersions, flexibleVersions and deprecatedVersions, by api key.
const std::vector<Expected> kKafka39 = {
    {0, "Produce", 0, 11, 9, 0, 6},
    {1, "Fetch", 0, 17, 12, 0, 3},
    {2, "ListOffsets", 0, 9, 6, 0, 0},
    {3, "Metadata", 0, 12, 9, 0, 3},
    {4, "LeaderAndIsr", 0, 7, 4, -1, -1},
    {5, "StopReplica", 0, 4, 2, -1, -1},
    {6, "UpdateMetadata", 0, 8, 6, -1, -1},
    {7, "ControlledShutdown", 0, 3, 3, -1, -1},
    {8, "OffsetCommit", 0, 9, 8, 0, 1},
    {9, "OffsetFetch", 0, 9, 6, 0, 0},
    {10, "FindCoordinator", 0, 6, 3, 0, 0},
    {11, "JoinGroup", 0, 9, 6, 0, 1},
    {12, "Heartbeat", 0, 4, 4, -1, -1},
    {13, "LeaveGroup", 0, 5, 4, -1, -1},
    {14, "SyncGroup", 0, 5, 4, -1, -1},
    {15, "DescribeGroups", 0, 5, 5, -1, -1},
    {16, "ListGroups", 0, 5, 3, -1, -1},
    {17, "SaslHandshake", 0, 1, -1, 0, 0},
    {18, "ApiVersions", 0, 4, 3, -1, -1},
    {19, "CreateTopics", 0, 7, 5, 0, 1},
    {20, "DeleteTopics", 0, 6, 4, 0, 0},
    {21, "DeleteRecords", 0, 2, 2, -1, -1},
    {22, "InitProducerId", 0, 5, 2, -1, -1},
    {23, "OffsetForLeaderEpoch", 0, 4, 4, 0, 1},
    {24, "AddPartitionsToTxn", 0, 5, 3, -1, -1},
    {25, "AddOffsetsToTxn", 0, 4, 3, -1, -1},
    {26, "EndTxn", 0, 4, 3, -1, -1},
    {27, "WriteTxnMarkers", 0, 1, 1, -1, -1},
    {28, "TxnOffsetCommit", 0, 4, 3, -1, -1},
    {29, "DescribeAcls", 0, 3, 2, 0, 0},
    {30, "CreateAcls", 0, 3, 2, 0, 0},
    {31, "DeleteAcls", 0, 3, 2, 0, 0},
    {32, "DescribeConfigs", 0, 4, 4, 0, 0},
    {33, "AlterConfigs", 0, 2, 2, -1, -1},
    {35, "DescribeLogDirs", 0, 4, 2, 0, 0},
    {36, "SaslAuthenticate", 0, 2, 2, -1, -1},
    {37, "CreatePartitions", 0, 3, 2, -1, -1},
    {42, "DeleteGroups", 0, 2, 2, 0, 0},
    {43, "ElectLeaders", 0, 2, 2, -1, -1},
    {44, "IncrementalAlterConfigs", 0, 1, 1, -1, -1},
    {45, "AlterPartitionReassignments", 0, 0, 0, -1, -1},
    {46, "ListPartitionReassignments", 0, 0, 0, -1, -1},
    {47, "OffsetDelete", 0, 0, -1, -1, -1},
    {51, "AlterUserScramCredentials", 0, 0, 0, -1, -1},
    {60, "DescribeCluster", 0, 1, 0, -1, -1},
    {61, "DescribeProducers", 0, 0, 0, -1, -1},
    {65, "DescribeTransactions", 0, 0, 0, -1, -1},
    {66, "ListTransactions", 0, 1, 0, -1, -1},
};

TEST_CASE("the specs carry Kafka 3.9's versions of every api they describe") {
  std::span<const ApiSpec> specs = kafka_api_specs();
  REQUIRE(specs.size() == kKafka39.size());
  for (size_t i = 0; i < specs.size(); i++) {
    const Expected& e = kKafka39[i];
    const ApiSpec& s = specs[i];
    INFO(e.name);
    CHECK(static_cast<int16_t>(s.api_key) == e.key);
    CHECK(std::string(s.name) == e.name);
    CHECK(std::string(api_name(s.api_key)) == e.name);
    CHECK(s.min_version == e.min);
    CHECK(s.max_version == e.max);
    CHECK(s.first_flexible_version == e.flexible);
    CHECK(s.deprecated_min_version == e.deprecated_min);
    CHECK(s.deprecated_max_version == e.deprecated_max);
    CHECK(find_api_spec(s.api_key) == &s);
  }
  CHECK(find_api_spec(ApiKey::CREATE_DELEGATION_TOKEN) == nullptr);
  CHECK(codec_supports(ApiKey::FETCH, 17));
  CHECK_FALSE(codec_supports(ApiKey::FETCH, 18));
  CHECK_FALSE(codec_supports(ApiKey::CREATE_DELEGATION_TOKEN, 0));
}

TEST_CASE("every generated message has its api's versions") {
  size_t messages = 0;
  for (const spec_samples::MessageInfo& m : spec_samples::all_messages()) {
    INFO(m.name);
    const ApiSpec* s = find_api_spec(m.api_key);
    REQUIRE(s != nullptr);
    CHECK(m.min_version == s->min_version);
    CHECK(m.max_version == s->max_version);
    CHECK(m.first_flexible_version == s->first_flexible_version);
    CHECK(std::string(m.name) == std::string(s->name) + (m.request ? "Request" : "Response"));
    messages++;
  }
  CHECK(messages == 2 * kafka_api_specs().size());
}

TEST_CASE("header versions follow each api's flexible versions, with Kafka's two exceptions") {
  for (const ApiSpec& s : kafka_api_specs()) {
    for (int16_t v = s.min_version; v <= s.max_version; v++) {
      INFO(s.name << " v" << v);
      CHECK(is_flexible_version(s.api_key, v) == s.is_flexible(v));
      int16_t expected_request = s.is_flexible(v) ? 2 : 1;
      if (s.api_key == ApiKey::CONTROLLED_SHUTDOWN && v == 0) expected_request = 0;
      CHECK(request_header_version(s.api_key, v) == expected_request);
      int16_t expected_response = s.is_flexible(v) ? 1 : 0;
      if (s.api_key == ApiKey::API_VERSIONS) expected_response = 0;
      CHECK(response_header_version(s.api_key, v) == expected_response);
    }
  }
  // Never-flexible APIs: request header v1, response header v0 at every version.
  CHECK(request_header_version(ApiKey::OFFSET_DELETE, 0) == 1);
  CHECK(request_header_version(ApiKey::SASL_HANDSHAKE, 1) == 1);
  CHECK_FALSE(first_flexible_version(ApiKey::SASL_HANDSHAKE).has_value());
  CHECK(first_flexible_version(ApiKey::DESCRIBE_CLUSTER) == std::optional<int16_t>(0));
}

TEST_CASE("every advertised range lies inside Kafka 3.9's range of its api") {
  for (const ApiVersionRange& range : supported_api_versions()) {
    INFO(api_name(range.api_key));
    const ApiSpec* s = find_api_spec(range.api_key);
    REQUIRE(s != nullptr);
    CHECK(range.min_version >= s->min_version);
    CHECK(range.max_version <= s->max_version);
  }
}

}  // namespace
}  // namespace gregor::protocol
