#include "engine/broker/topic_config.h"

namespace gregor::broker {

const ConfigDef<TopicConfig>& topic_config_def() {
  static const ConfigDef<TopicConfig> def = [] {
    constexpr ConfigUpdate kDynamic = ConfigUpdate::kDynamic;
    ConfigDef<TopicConfig> d("topic");
    d.define_custom(
         "cleanup.policy", ConfigType::kList, "one of: delete", "What happens to old segments: deleted (compaction is not modelled).",
         kDynamic,
         [](TopicConfig&, const std::string& key, const std::string& value) {
           if (value != "delete") return Status::error(StatusCode::kInvalidArgument, key + ": only 'delete' is supported");
           return Status::ok();
         },
         [](const TopicConfig&) { return std::string("delete"); })
        .synonym("log.cleanup.policy");
    d.include(log::log_config_def());
    d.define("min.insync.replicas", &TopicConfig::min_insync_replicas, at_least(1),
             "The fewest in-sync replicas (the leader included) an acks=all write needs; fewer: NOT_ENOUGH_REPLICAS.",
             kDynamic)
        .synonym("min.insync.replicas");
    d.define("unclean.leader.election.enable", &TopicConfig::unclean_leader_election_enable,
             "When no in-sync replica is alive, elect any live replica (acknowledged writes may be lost) instead of "
             "leaving the partition offline.",
             kDynamic)
        .synonym("unclean.leader.election.enable");
    return d;
  }();
  return def;
}

Status TopicConfig::apply(const std::map<std::string, std::string>& overrides) {
  return topic_config_def().apply(*this, overrides);
}

std::map<std::string, std::string> TopicConfig::non_defaults() const { return topic_config_def().non_defaults(*this); }

std::map<std::string, std::string> TopicConfig::to_map() const { return topic_config_def().values(*this); }

std::string TopicConfig::broker_synonym(const std::string& topic_key) {
  const auto* key = topic_config_def().find(topic_key);
  return key ? key->synonym : "";
}

std::string TopicConfig::topic_key_of(const std::string& broker_key) {
  for (const auto& k : topic_config_def().keys())
    if (k.synonym == broker_key) return k.name;
  return "";
}

bool TopicConfig::is_list_key(const std::string& topic_key) {
  const auto* key = topic_config_def().find(topic_key);
  return key && key->type == ConfigType::kList;
}

}  // namespace gregor::broker
