#include "engine/client/consumer_config.h"

#include "engine/client/security_keys.h"

#include "engine/client/assignors.h"

namespace gregor::client {

const ConfigDef<ConsumerConfig>& consumer_config_def() {
  static const ConfigDef<ConsumerConfig> def = [] {
    ConfigDef<ConsumerConfig> d("consumer");
    d.define("auto.commit.interval.ms", &ConsumerConfig::auto_commit_interval_ms, at_least(1),
             "How often positions are committed when enable.auto.commit is on.");
    d.define("auto.offset.reset", &ConsumerConfig::auto_offset_reset, {"earliest", "latest", "none"},
             "Where to start a partition that has no committed offset (none: fail).");
    d.define("check.crcs", &ConsumerConfig::check_crcs, "Check the CRC of every fetched batch.");
    define_security_keys(d);
    d.define("client.id", &ConsumerConfig::client_id, {}, "The consumer's name in requests and traces.");
    d.define("default.api.timeout.ms", &ConsumerConfig::default_api_timeout_ms, at_least(1),
             "How long a commit keeps retrying.");
    d.define("enable.auto.commit", &ConsumerConfig::enable_auto_commit,
             "Commit the consumed positions every auto.commit.interval.ms.");
    d.define("fetch.max.bytes", &ConsumerConfig::fetch_max_bytes, at_least(0), "The most bytes one Fetch response may hold.");
    d.define("fetch.max.wait.ms", &ConsumerConfig::fetch_max_wait_ms, at_least(0),
             "How long a broker may hold a Fetch waiting for fetch.min.bytes.");
    d.define("fetch.min.bytes", &ConsumerConfig::fetch_min_bytes, at_least(0),
             "The least bytes a broker gathers before it answers a Fetch early.");
    d.define("group.id", &ConsumerConfig::group_id, {}, "The consumer group to join (empty: assign() only, no commits).");
    d.define("heartbeat.interval.ms", &ConsumerConfig::heartbeat_interval_ms, at_least(1),
             "How often a member heartbeats to the group coordinator; below session.timeout.ms.");
    d.define("isolation.level", &ConsumerConfig::isolation_level, {"read_committed", "read_uncommitted"},
             "read_committed: read only below the last stable offset and drop aborted transactions' records.");
    d.define("max.partition.fetch.bytes", &ConsumerConfig::max_partition_fetch_bytes, at_least(1),
             "The most bytes fetched of one partition per request.");
    d.define("max.poll.interval.ms", &ConsumerConfig::max_poll_interval_ms, at_least(1),
             "A member that does not poll for this long leaves its group; also the rebalance timeout.");
    d.define("max.poll.records", &ConsumerConfig::max_poll_records, at_least(1), "The most records one poll returns.");
    d.define("metadata.max.age.ms", &ConsumerConfig::metadata_max_age_ms, at_least(1),
             "Metadata is refreshed at least this often, even without errors.");
    d.define_custom(
        "partition.assignment.strategy", ConfigType::kList, "range, roundrobin, cooperative-sticky",
        "The assignors this member supports, in preference order; the group uses one every member supports.",
        ConfigUpdate::kStatic,
        [](ConsumerConfig& c, const std::string& key, const std::string& value) {
          std::vector<std::string> names = split_config_list(value);
          for (const auto& name : names)
            if (!make_assignor(name))
              return Status::error(StatusCode::kInvalidArgument, key + ": unknown assignor '" + name + "'");
          if (names.empty()) return Status::error(StatusCode::kInvalidArgument, key + ": no assignor named");
          c.partition_assignment_strategy = std::move(names);
          return Status::ok();
        },
        [](const ConsumerConfig& c) { return join_config_list(c.partition_assignment_strategy); });
    d.define("request.timeout.ms", &ConsumerConfig::request_timeout_ms, at_least(1),
             "How long the consumer waits for a broker's answer before it retries.");
    d.define("retry.backoff.ms", &ConsumerConfig::retry_backoff_ms, at_least(0),
             "How long a failed request waits before it is sent again.");
    d.define("session.timeout.ms", &ConsumerConfig::session_timeout_ms, at_least(1),
             "A member that does not heartbeat for this long is removed from its group.");
    return d;
  }();
  return def;
}

Status ConsumerConfig::apply(const std::map<std::string, std::string>& settings) {
  GREGOR_RETURN_IF_ERROR(consumer_config_def().apply(*this, settings));
  if (heartbeat_interval_ms >= session_timeout_ms)
    return Status::error(StatusCode::kInvalidArgument, "heartbeat.interval.ms must be lower than session.timeout.ms");
  return protocol::sasl_credentials_from(security).status();
}

std::optional<protocol::SaslCredentials> ConsumerConfig::sasl() const {
  auto credentials = protocol::sasl_credentials_from(security);
  GREGOR_ASSERT_MSG(credentials.is_ok(), credentials.status().message());
  return *credentials;
}

}  // namespace gregor::client
