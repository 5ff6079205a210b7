// Metadata: the brokers, the controller and the topics' partitions from this broker's metadata
// cache. A topic that does not exist is created when the client allows it and
// auto.create.topics.enable is on (the answer is LEADER_NOT_AVAILABLE until it has leaders).
#include <algorithm>

#include "engine/broker/request_handler.h"
#include "engine/protocol/metadata.h"

namespace gregor::broker {

void handle_metadata(HandlerContext& ctx, const Request& req, protocol::MetadataRequest request) {
  protocol::MetadataResponse resp;
  if (!ctx.cluster_id.empty()) resp.cluster_id = ctx.cluster_id;  // /cluster/id, once read
  resp.controller_id = ctx.metadata.controller_id();
  // The brokers' addresses on the listener this request came on (Kafka's getAliveBrokerNodes(listenerName)):
  // a client on the CLIENT listener is told CLIENT addresses. A broker without that listener is left out.
  const std::string listener = ctx.rt.listener_name(req.from);
  for (const auto& [id, b] : ctx.metadata.brokers()) {
    if (listener.empty() || b.listeners.empty()) {
      resp.brokers.push_back({id, b.host, b.port, std::nullopt});
      continue;
    }
    auto it = b.listeners.find(listener);
    if (it != b.listeners.end()) resp.brokers.push_back({id, it->second.first, it->second.second, std::nullopt});
  }
  if (resp.brokers.empty()) {
    std::string host = ctx.config.advertised_host;
    int32_t port = ctx.config.advertised_port;
    for (const auto& e : ctx.config.advertised_endpoints())
      if (e.name == listener || (listener.empty() && e.name == ctx.config.inter_broker_listener())) {
        host = e.host;
        port = e.port;
      }
    resp.brokers.push_back({ctx.config.broker_id, host, port, std::nullopt});
  }
  std::vector<std::string> names;
  if (request.topics) {
    for (const auto& t : *request.topics) names.push_back(t.name.value_or(""));
  } else {
    names = ctx.metadata.topics();
  }
  const bool may_create = request.allow_auto_topic_creation && ctx.config.auto_create_topics_enable;
  for (const auto& name : names) {
    protocol::MetadataResponse::MetadataResponseTopic t;
    t.name = name;
    t.is_internal = name == "__consumer_offsets";
    auto parts = ctx.metadata.topic_partitions(name);
    if (parts.empty()) {
      if (may_create && valid_topic_name(name) && !ctx.admin.colliding_topic(name)) {
        int32_t rf = std::min<int32_t>(ctx.config.default_replication_factor,
                                       std::max<int32_t>(1, static_cast<int32_t>(ctx.metadata.brokers().size())));
        ctx.admin.create_topic(name, ctx.config.num_partitions, rf, {}, [](ErrorCode, std::string) {});
        t.error_code = ErrorCode::LEADER_NOT_AVAILABLE;
      } else {
        t.error_code = valid_topic_name(name) && !(may_create && ctx.admin.colliding_topic(name))
                           ? ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
                           : ErrorCode::INVALID_TOPIC_EXCEPTION;
      }
    }
    for (const auto& [index, pm] : parts) {
      protocol::MetadataResponse::MetadataResponsePartition p;
      p.partition_index = index;
      p.leader_id = pm.leader;
      p.replica_nodes = pm.replicas;
      p.isr_nodes = pm.isr;
      // LEADER_NOT_AVAILABLE is retriable: clients wait for the election instead of failing.
      p.error_code = pm.leader < 0 ? ErrorCode::LEADER_NOT_AVAILABLE : ErrorCode::NONE;
      t.partitions.push_back(p);
    }
    resp.topics.push_back(std::move(t));
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
