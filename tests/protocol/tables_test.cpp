// The vocabulary (api keys, error codes) and the advertised table, checked against what Kafka and
// the stock clients need (reference §4).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "engine/protocol/api_specs.h"
#include "engine/protocol/protocol.h"

namespace gregor::protocol {
namespace {

TEST_CASE("error codes keep Kafka's numbers and names") {
  struct Expected {
    int16_t code;
    const char* name;
  };
  const Expected expected[] = {
      {-1, "UNKNOWN_SERVER_ERROR"}, {0, "NONE"}, {1, "OFFSET_OUT_OF_RANGE"}, {2, "CORRUPT_MESSAGE"},
      {3, "UNKNOWN_TOPIC_OR_PARTITION"}, {4, "INVALID_FETCH_SIZE"}, {5, "LEADER_NOT_AVAILABLE"},
      {6, "NOT_LEADER_OR_FOLLOWER"}, {7, "REQUEST_TIMED_OUT"}, {8, "BROKER_NOT_AVAILABLE"},
      {9, "REPLICA_NOT_AVAILABLE"}, {10, "MESSAGE_TOO_LARGE"}, {11, "STALE_CONTROLLER_EPOCH"},
      {13, "NETWORK_EXCEPTION"}, {14, "COORDINATOR_LOAD_IN_PROGRESS"}, {15, "COORDINATOR_NOT_AVAILABLE"},
      {16, "NOT_COORDINATOR"}, {17, "INVALID_TOPIC_EXCEPTION"}, {19, "NOT_ENOUGH_REPLICAS"},
      {20, "NOT_ENOUGH_REPLICAS_AFTER_APPEND"}, {21, "INVALID_REQUIRED_ACKS"}, {22, "ILLEGAL_GENERATION"},
      {23, "INCONSISTENT_GROUP_PROTOCOL"}, {24, "INVALID_GROUP_ID"}, {25, "UNKNOWN_MEMBER_ID"},
      {26, "INVALID_SESSION_TIMEOUT"}, {27, "REBALANCE_IN_PROGRESS"}, {28, "INVALID_COMMIT_OFFSET_SIZE"},
      {29, "TOPIC_AUTHORIZATION_FAILED"}, {35, "UNSUPPORTED_VERSION"}, {36, "TOPIC_ALREADY_EXISTS"},
      {37, "INVALID_PARTITIONS"}, {38, "INVALID_REPLICATION_FACTOR"}, {39, "INVALID_REPLICA_ASSIGNMENT"},
      {40, "INVALID_CONFIG"}, {41, "NOT_CONTROLLER"}, {42, "INVALID_REQUEST"}, {44, "POLICY_VIOLATION"},
      {45, "OUT_OF_ORDER_SEQUENCE_NUMBER"}, {46, "DUPLICATE_SEQUENCE_NUMBER"}, {47, "INVALID_PRODUCER_EPOCH"},
      {48, "INVALID_TXN_STATE"}, {49, "INVALID_PRODUCER_ID_MAPPING"}, {56, "KAFKA_STORAGE_ERROR"},
      {58, "SASL_AUTHENTICATION_FAILED"}, {59, "UNKNOWN_PRODUCER_ID"}, {60, "REASSIGNMENT_IN_PROGRESS"},
      {69, "GROUP_ID_NOT_FOUND"}, {74, "FENCED_LEADER_EPOCH"}, {75, "UNKNOWN_LEADER_EPOCH"},
      {76, "UNSUPPORTED_COMPRESSION_TYPE"}, {77, "STALE_BROKER_EPOCH"}, {78, "OFFSET_NOT_AVAILABLE"},
      {79, "MEMBER_ID_REQUIRED"}, {80, "PREFERRED_LEADER_NOT_AVAILABLE"}, {81, "GROUP_MAX_SIZE_REACHED"},
      {82, "FENCED_INSTANCE_ID"}, {89, "THROTTLING_QUOTA_EXCEEDED"}, {90, "PRODUCER_FENCED"},
  };
  for (const Expected& e : expected) {
    CHECK(std::string(error_name(static_cast<ErrorCode>(e.code))) == e.name);
  }
  CHECK(static_cast<int16_t>(ErrorCode::NOT_LEADER_OR_FOLLOWER) == 6);
  CHECK(std::string(error_name(static_cast<ErrorCode>(99))) == "UNKNOWN_ERROR_CODE");  // Kafka skips 99
  CHECK(std::string(error_name(static_cast<ErrorCode>(-2))) == "UNKNOWN_ERROR_CODE");
}

TEST_CASE("retriable errors are those Kafka's clients retry") {
  for (ErrorCode e : {ErrorCode::NOT_LEADER_OR_FOLLOWER, ErrorCode::LEADER_NOT_AVAILABLE,
                      ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, ErrorCode::REQUEST_TIMED_OUT,
                      ErrorCode::NOT_COORDINATOR, ErrorCode::COORDINATOR_NOT_AVAILABLE,
                      ErrorCode::COORDINATOR_LOAD_IN_PROGRESS, ErrorCode::NOT_ENOUGH_REPLICAS,
                      ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND, ErrorCode::NOT_CONTROLLER,
                      ErrorCode::CORRUPT_MESSAGE, ErrorCode::KAFKA_STORAGE_ERROR,
                      ErrorCode::FENCED_LEADER_EPOCH, ErrorCode::UNKNOWN_LEADER_EPOCH,
                      ErrorCode::OFFSET_NOT_AVAILABLE, ErrorCode::NETWORK_EXCEPTION}) {
    INFO(error_name(e));
    CHECK(is_retriable(e));
  }
  for (ErrorCode e : {ErrorCode::NONE, ErrorCode::UNKNOWN_SERVER_ERROR, ErrorCode::OFFSET_OUT_OF_RANGE,
                      ErrorCode::REBALANCE_IN_PROGRESS, ErrorCode::ILLEGAL_GENERATION,
                      ErrorCode::UNKNOWN_MEMBER_ID, ErrorCode::MEMBER_ID_REQUIRED,
                      ErrorCode::TOPIC_ALREADY_EXISTS, ErrorCode::UNSUPPORTED_VERSION,
                      ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER, ErrorCode::DUPLICATE_SEQUENCE_NUMBER,
                      ErrorCode::INVALID_PRODUCER_EPOCH, ErrorCode::MESSAGE_TOO_LARGE}) {
    INFO(error_name(e));
    CHECK_FALSE(is_retriable(e));
  }
}

TEST_CASE("api keys keep Kafka's numbers and names") {
  CHECK(static_cast<int16_t>(ApiKey::PRODUCE) == 0);
  CHECK(static_cast<int16_t>(ApiKey::API_VERSIONS) == 18);
  CHECK(static_cast<int16_t>(ApiKey::OFFSET_FOR_LEADER_EPOCH) == 23);
  CHECK(std::string(api_name(ApiKey::LEADER_AND_ISR)) == "LeaderAndIsr");
  CHECK(std::string(api_name(ApiKey::OFFSET_FOR_LEADER_EPOCH)) == "OffsetForLeaderEpoch");
  CHECK(std::string(api_name(static_cast<ApiKey>(1000))) == "Unknown");
  CHECK(is_flexible_version(ApiKey::FETCH, 12));
  CHECK_FALSE(is_flexible_version(ApiKey::FETCH, 11));
  CHECK_FALSE(is_flexible_version(ApiKey::SASL_HANDSHAKE, 1));
}

TEST_CASE("the advertised table: ordered, one entry per api, Kafka 3.9's whole range of every client API") {
  std::set<ApiKey> seen;
  int previous = -1;
  for (const ApiVersionRange& range : supported_api_versions()) {
    INFO(api_name(range.api_key));
    CHECK(static_cast<int>(range.api_key) > previous);
    previous = static_cast<int>(range.api_key);
    CHECK(seen.insert(range.api_key).second);
    CHECK(range.min_version <= range.max_version);
    std::optional<int16_t> flexible = first_flexible_version(range.api_key);
    REQUIRE((flexible.has_value() || range.api_key == ApiKey::OFFSET_DELETE || range.api_key == ApiKey::SASL_HANDSHAKE));  // OffsetDelete and SaslHandshake are never flexible
    const ApiSpec* spec = find_api_spec(range.api_key);
    REQUIRE(spec);
    // Issue 16: every API Gregor implements at Kafka 3.9's whole range, flexible versions included.
    CHECK(range.min_version == spec->min_version);
    CHECK(range.max_version == spec->max_version);
  }
  CHECK(seen.size() == 48);
}

TEST_CASE("the advertised table meets the stock clients' feature checks") {
  // librdkafka turns features on only when its ranges overlap the broker's (reference §1, §4).
  // Produce 3 and Fetch 4 (MsgVer2) inside the ranges, which are Kafka 3.9's.
  CHECK(supported_range(ApiKey::PRODUCE) == ApiVersionRange{ApiKey::PRODUCE, 0, 11});
  CHECK(supported_range(ApiKey::FETCH) == ApiVersionRange{ApiKey::FETCH, 0, 17});
  CHECK(supported_range(ApiKey::LIST_OFFSETS) == ApiVersionRange{ApiKey::LIST_OFFSETS, 0, 9});
  CHECK(supported_range(ApiKey::FIND_COORDINATOR)->min_version == 0);
  CHECK(supported_range(ApiKey::INIT_PRODUCER_ID) == ApiVersionRange{ApiKey::INIT_PRODUCER_ID, 0, 5});
  CHECK(supported_range(ApiKey::OFFSET_FETCH) == ApiVersionRange{ApiKey::OFFSET_FETCH, 0, 9});
  CHECK(supported_range(ApiKey::JOIN_GROUP) == ApiVersionRange{ApiKey::JOIN_GROUP, 0, 9});
  CHECK(supported_range(ApiKey::API_VERSIONS) == ApiVersionRange{ApiKey::API_VERSIONS, 0, 4});
  // kafka-python's version probe sends Metadata v0, Sarama's default OffsetCommit is v1 (issue 16).
  CHECK(is_version_supported(ApiKey::METADATA, 0));
  CHECK(is_version_supported(ApiKey::OFFSET_COMMIT, 1));
  // What Gregor's brokers send each other is advertised.
  CHECK(is_version_supported(ApiKey::LEADER_AND_ISR, kLeaderAndIsrVersion));
  CHECK(is_version_supported(ApiKey::UPDATE_METADATA, kUpdateMetadataVersion));
  CHECK(is_version_supported(ApiKey::STOP_REPLICA, kStopReplicaVersion));
  CHECK(is_version_supported(ApiKey::CONTROLLED_SHUTDOWN, kControlledShutdownVersion));
  CHECK(is_version_supported(ApiKey::OFFSET_FOR_LEADER_EPOCH, kOffsetForLeaderEpochVersion));
  CHECK(is_version_supported(ApiKey::FETCH, kReplicaFetchVersion));
  // SASL (issue 17): librdkafka authenticates only with a broker that advertises SaslHandshake.
  CHECK(supported_range(ApiKey::SASL_HANDSHAKE) == ApiVersionRange{ApiKey::SASL_HANDSHAKE, 0, 1});
  CHECK(supported_range(ApiKey::SASL_AUTHENTICATE) == ApiVersionRange{ApiKey::SASL_AUTHENTICATE, 0, 2});
  CHECK_FALSE(supported_range(ApiKey::DESCRIBE_USER_SCRAM_CREDENTIALS).has_value());
}

}  // namespace
}  // namespace gregor::protocol
