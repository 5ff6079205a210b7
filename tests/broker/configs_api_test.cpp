// DescribeConfigs, AlterConfigs and IncrementalAlterConfigs as a client sends them (kafka-configs,
// AdminClient): any broker answers for a topic, the sources tell overrides from broker settings
// and defaults, AlterConfigs replaces the overrides while IncrementalAlterConfigs edits them, and
// bad changes get Kafka's errors without changing anything.
#include "cluster_fixture.h"
#include "engine/protocol/alter_configs.h"
#include "engine/protocol/describe_configs.h"

using namespace gregor;
using protocol::ConfigOperation;
using protocol::ConfigResourceType;
using protocol::ConfigSource;
using protocol::ErrorCode;

namespace {

constexpr int8_t kTopic = static_cast<int8_t>(ConfigResourceType::TOPIC);
constexpr int8_t kBroker = static_cast<int8_t>(ConfigResourceType::BROKER);

protocol::DescribeConfigsResponse::DescribeConfigsResult describe(test::ClusterFixture& f, int32_t via, int8_t type,
                                                                  const std::string& name, int16_t version = 2,
                                                                  std::optional<std::vector<std::string>> keys = std::nullopt) {
  protocol::DescribeConfigsRequest req;
  req.resources.push_back({type, name, keys});
  req.include_synonyms = version >= 1;
  auto resp = f.call<protocol::DescribeConfigsRequest, protocol::DescribeConfigsResponse>(via, req, version);
  REQUIRE(resp);
  REQUIRE(resp->results.size() == 1);
  return resp->results[0];
}

const protocol::DescribeConfigsResponse::DescribeConfigsResourceResult* entry(
    const protocol::DescribeConfigsResponse::DescribeConfigsResult& r, const std::string& name) {
  for (const auto& c : r.configs)
    if (c.name == name) return &c;
  return nullptr;
}

protocol::AlterConfigsResourceResponse incremental(test::ClusterFixture& f, int32_t via, const std::string& topic,
                                                   std::vector<protocol::IncrementalAlterConfigsRequest::AlterableConfig> ops,
                                                   bool validate_only = false, int8_t type = kTopic) {
  protocol::IncrementalAlterConfigsRequest req;
  req.resources.push_back({type, topic, std::move(ops)});
  req.validate_only = validate_only;
  auto resp = f.call<protocol::IncrementalAlterConfigsRequest, protocol::IncrementalAlterConfigsResponse>(via, req, 0);
  REQUIRE(resp);
  REQUIRE(resp->responses.size() == 1);
  return resp->responses[0];
}

int8_t op(ConfigOperation o) { return static_cast<int8_t>(o); }

}  // namespace

TEST_CASE("DescribeConfigs tells a topic override from a broker setting and a default", "[broker][config]") {
  test::ClusterFixture f(31, {{"log.retention.ms", "3600000"}});
  f.create_topic("t", 1, 3, {{"min.insync.replicas", "2"}});
  for (int32_t via = 1; via <= 3; via++) {  // any broker answers for a topic
    auto r = describe(f, via, kTopic, "t");
    REQUIRE(r.error_code == ErrorCode::NONE);
    const auto* isr = entry(r, "min.insync.replicas");
    REQUIRE(isr);
    CHECK(isr->value == "2");
    CHECK(isr->config_source == static_cast<int8_t>(ConfigSource::DYNAMIC_TOPIC_CONFIG));
    REQUIRE(isr->synonyms.size() == 2);
    CHECK(isr->synonyms[1].source == static_cast<int8_t>(ConfigSource::DEFAULT_CONFIG));
    const auto* retention = entry(r, "retention.ms");
    REQUIRE(retention);
    CHECK(retention->value == "3600000");
    CHECK(retention->config_source == static_cast<int8_t>(ConfigSource::STATIC_BROKER_CONFIG));
    REQUIRE_FALSE(retention->synonyms.empty());
    CHECK(retention->synonyms[0].name == "log.retention.ms");
    const auto* segment = entry(r, "segment.bytes");
    REQUIRE(segment);
    CHECK(segment->config_source == static_cast<int8_t>(ConfigSource::DEFAULT_CONFIG));
  }
  // v0 has is_default instead of the source; configuration_keys limits the answer.
  auto v0 = describe(f, 1, kTopic, "t", 0, std::vector<std::string>{"min.insync.replicas", "segment.bytes"});
  REQUIRE(v0.configs.size() == 2);
  CHECK_FALSE(entry(v0, "min.insync.replicas")->is_default);
  CHECK(entry(v0, "segment.bytes")->is_default);

  CHECK(describe(f, 2, kTopic, "missing").error_code == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  auto broker = describe(f, 2, kBroker, "2");
  REQUIRE(broker.error_code == ErrorCode::NONE);
  REQUIRE(entry(broker, "log.retention.ms"));
  CHECK(entry(broker, "log.retention.ms")->value == "3600000");
  CHECK(entry(broker, "log.retention.ms")->read_only);
  CHECK(entry(broker, "broker.id")->value == "2");
  CHECK(describe(f, 2, kBroker, "3").error_code == ErrorCode::INVALID_REQUEST);  // ask broker 3 itself
}

TEST_CASE("AlterConfigs replaces a topic's overrides; IncrementalAlterConfigs edits them", "[broker][config]") {
  test::ClusterFixture f(32);
  f.create_topic("t", 1, 3, {{"min.insync.replicas", "2"}, {"retention.ms", "60000"}});
  const int32_t leader = f.leader_of("t", 0);

  // Incremental: SET one key, DELETE another; the rest stays.
  auto r = incremental(f, 1, "t", {{"min.insync.replicas", op(ConfigOperation::SET), "3"},
                                   {"retention.ms", op(ConfigOperation::DELETE), std::nullopt}});
  REQUIRE(r.error_code == ErrorCode::NONE);
  REQUIRE(f.run_until([&] { return f.replica(leader, "t", 0)->config().min_insync_replicas == 3; }, Duration::seconds(5)));
  auto d = describe(f, 3, kTopic, "t");
  CHECK(entry(d, "retention.ms")->config_source == static_cast<int8_t>(ConfigSource::DEFAULT_CONFIG));

  // AlterConfigs: exactly the given overrides (min.insync.replicas goes back to the default).
  protocol::AlterConfigsRequest alter;
  alter.resources.push_back({kTopic, "t", {{"segment.bytes", "1048576"}}});
  auto a = f.call<protocol::AlterConfigsRequest, protocol::AlterConfigsResponse>(2, alter, 1);
  REQUIRE(a);
  REQUIRE(a->responses.size() == 1);
  CHECK(a->responses[0].error_code == ErrorCode::NONE);
  CHECK_FALSE(a->responses[0].error_message.has_value());
  REQUIRE(f.run_until([&] { return f.replica(leader, "t", 0)->config().min_insync_replicas == 1; }, Duration::seconds(5)));
  d = describe(f, 1, kTopic, "t");
  CHECK(entry(d, "segment.bytes")->value == "1048576");
  CHECK(entry(d, "segment.bytes")->config_source == static_cast<int8_t>(ConfigSource::DYNAMIC_TOPIC_CONFIG));
  CHECK(entry(d, "min.insync.replicas")->config_source == static_cast<int8_t>(ConfigSource::DEFAULT_CONFIG));
  CHECK(f.replica(leader, "t", 0)->config().segment_bytes == 1048576);
}

TEST_CASE("bad config changes get Kafka's errors and change nothing", "[broker][config]") {
  test::ClusterFixture f(33);
  f.create_topic("t", 1, 3, {{"min.insync.replicas", "2"}});
  const size_t changes_before = f.count("topic_config_change");
  using AC = protocol::IncrementalAlterConfigsRequest::AlterableConfig;
  CHECK(incremental(f, 1, "t", {AC{"min.insync.replicas", op(ConfigOperation::SET), "0"}}).error_code == ErrorCode::INVALID_CONFIG);
  CHECK(incremental(f, 1, "t", {AC{"no.such.key", op(ConfigOperation::SET), "1"}}).error_code == ErrorCode::INVALID_CONFIG);
  CHECK(incremental(f, 1, "t", {AC{"min.insync.replicas", op(ConfigOperation::APPEND), "3"}}).error_code ==
        ErrorCode::INVALID_CONFIG);  // not a list
  CHECK(incremental(f, 1, "t", {AC{"cleanup.policy", op(ConfigOperation::APPEND), "compact"}}).error_code ==
        ErrorCode::INVALID_CONFIG);  // Gregor's logs are delete-only
  CHECK(incremental(f, 1, "t", {AC{"min.insync.replicas", op(ConfigOperation::SET), std::nullopt}}).error_code ==
        ErrorCode::INVALID_REQUEST);
  CHECK(incremental(f, 1, "t", {AC{"retention.ms", op(ConfigOperation::SET), "1"}, AC{"retention.ms", op(ConfigOperation::DELETE), std::nullopt}})
            .error_code == ErrorCode::INVALID_REQUEST);  // duplicate keys
  CHECK(incremental(f, 1, "t", {AC{"min.insync.replicas", 9, "1"}}).error_code == ErrorCode::INVALID_REQUEST);
  CHECK(incremental(f, 1, "missing", {AC{"min.insync.replicas", op(ConfigOperation::SET), "1"}}).error_code ==
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  CHECK(incremental(f, 1, "1", {AC{"log.retention.ms", op(ConfigOperation::SET), "1"}}, false, kBroker).error_code ==
        ErrorCode::INVALID_REQUEST);  // broker configs are static
  // validate_only checks a good change without making it.
  CHECK(incremental(f, 1, "t", {AC{"min.insync.replicas", op(ConfigOperation::SET), "1"}}, true).error_code == ErrorCode::NONE);
  f.sim.run_for(Duration::seconds(2));
  CHECK(f.count("topic_config_change") == changes_before);
  for (int b = 1; b <= 3; b++) CHECK(f.replica(b, "t", 0)->config().min_insync_replicas == 2);
  CHECK(entry(describe(f, 2, kTopic, "t"), "min.insync.replicas")->value == "2");
}
