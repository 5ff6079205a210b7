// Metadata: the brokers, the controller and the topics' partitions from this broker's metadata
// cache. A topic that does not exist is created when the client allows it and
// auto.create.topics.enable is on (the answer is LEADER_NOT_AVAILABLE until it has leaders).
// Versions 0-12 as Kafka 3.9: v0's empty list is every topic; v5+ offline replicas; v7+ leader
// epochs; v8+ authorized operations (KIP-430); v10+ topic ids, and topics asked for by id.
// With an authorizer (Kafka's rules): a request for every topic lists those the principal may
// Describe; a named topic it may not is answered TOPIC_AUTHORIZATION_FAILED; auto-creation needs
// Create on the cluster or on the topic (else TOPIC_AUTHORIZATION_FAILED).
#include <algorithm>
#include <set>

#include "engine/broker/request_handler.h"
#include "engine/protocol/metadata.h"

namespace gregor::broker {


void handle_metadata(HandlerContext& ctx, const Request& req, protocol::MetadataRequest request) {
  const int16_t version = req.header.api_version;
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
  if (version >= 8 && version <= 10 && request.include_cluster_authorized_operations)
    resp.cluster_authorized_operations =
        authorized_operations(ctx, req, AclResourceType::kCluster, kClusterResourceName, kClusterAuthorizedOperations);
  // v0: an empty list asks for every topic (v0 has no null list); v1+: null is every topic.
  const bool all_topics = !request.topics || (version == 0 && request.topics->empty());
  std::vector<std::string> names;
  if (all_topics) {
    for (const auto& name : ctx.metadata.topics())
      if (authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kTopic, name, /*trace_denial=*/false))
        names.push_back(name);
  } else {
    for (const auto& t : *request.topics) {
      if (!t.name && version >= 10) {
        // v10+ may name a topic by its id (Kafka answers such lookups from v12).
        if (auto name = ctx.metadata.topic_name(t.topic_id)) {
          names.push_back(*name);
          continue;
        }
        protocol::MetadataResponse::MetadataResponseTopic unknown;
        unknown.error_code = ErrorCode::UNKNOWN_TOPIC_ID;
        unknown.name = version >= 12 ? std::nullopt : std::optional<std::string>("");
        unknown.topic_id = t.topic_id;
        resp.topics.push_back(std::move(unknown));
        continue;
      }
      names.push_back(t.name.value_or(""));
    }
  }
  const bool may_create = request.allow_auto_topic_creation && ctx.config.auto_create_topics_enable;
  std::set<int32_t> live;
  for (const auto& [id, b] : ctx.metadata.brokers()) live.insert(id);
  for (const auto& name : names) {
    protocol::MetadataResponse::MetadataResponseTopic t;
    t.name = name;
    if (!all_topics && !authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kTopic, name)) {
      t.error_code = ErrorCode::TOPIC_AUTHORIZATION_FAILED;
      resp.topics.push_back(std::move(t));
      continue;
    }
    t.topic_id = ctx.metadata.topic_id(name);
    t.is_internal = name == "__consumer_offsets";
    if (version >= 8 && request.include_topic_authorized_operations)
      t.topic_authorized_operations =
          authorized_operations(ctx, req, AclResourceType::kTopic, name, kTopicAuthorizedOperations);
    auto parts = ctx.metadata.topic_partitions(name);
    if (parts.empty()) {
      const bool create_allowed =
          !may_create || !valid_topic_name(name) ||
          authorize(ctx, req, AclOperation::kCreate, AclResourceType::kCluster, kClusterResourceName, false) ||
          authorize(ctx, req, AclOperation::kCreate, AclResourceType::kTopic, name);
      if (!create_allowed) {
        t.error_code = ErrorCode::TOPIC_AUTHORIZATION_FAILED;
      } else if (may_create && valid_topic_name(name) && !ctx.admin.colliding_topic(name)) {
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
      p.leader_epoch = pm.leader_epoch;  // v7+
      p.replica_nodes = pm.replicas;
      p.isr_nodes = pm.isr;
      p.offline_replicas = pm.offline_replicas;  // v5+
      // LEADER_NOT_AVAILABLE is retriable: clients wait for the election instead of failing.
      p.error_code = pm.leader < 0 ? ErrorCode::LEADER_NOT_AVAILABLE : ErrorCode::NONE;
      if (version == 0) {
        // Kafka's errorUnavailableEndpoints (v0 only): the lists name live brokers only, and a
        // partition missing some replicas says REPLICA_NOT_AVAILABLE.
        auto alive = [&live](const std::vector<int32_t>& ids) {
          std::vector<int32_t> out;
          for (int32_t id : ids)
            if (live.count(id)) out.push_back(id);
          return out;
        };
        p.replica_nodes = alive(pm.replicas);
        p.isr_nodes = alive(pm.isr);
        if (p.error_code == ErrorCode::NONE &&
            (p.replica_nodes.size() < pm.replicas.size() || p.isr_nodes.size() < pm.isr.size()))
          p.error_code = ErrorCode::REPLICA_NOT_AVAILABLE;
      }
      t.partitions.push_back(p);
    }
    resp.topics.push_back(std::move(t));
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
