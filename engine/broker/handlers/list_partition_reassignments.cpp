// ListPartitionReassignments: the controller answers with the partitions under reassignment among
// those asked (every partition when topics is null), each with all its replicas and the ones being
// added and removed; partitions not moving are left out, as Kafka does. Another broker answers
// NOT_CONTROLLER.
#include "engine/broker/request_handler.h"
#include "engine/protocol/list_partition_reassignments.h"

namespace gregor::broker {

void handle_list_partition_reassignments(HandlerContext& ctx, const Request& req,
                                         protocol::ListPartitionReassignmentsRequest request) {
  using Response = protocol::ListPartitionReassignmentsResponse;
  if (!authorize_cluster(ctx, req, AclOperation::kDescribe)) {  // Kafka's rule: Describe on the cluster
    Response resp;
    resp.error_code = ErrorCode::CLUSTER_AUTHORIZATION_FAILED;
    resp.error_message = "Cluster authorization failed.";
    return ctx.channel.respond(req, resp);
  }
  std::optional<std::vector<TopicPartition>> tps;
  if (request.topics) {
    tps.emplace();
    for (const auto& t : *request.topics)
      for (int32_t p : t.partition_indexes) tps->push_back(TopicPartition{t.name, p});
  }
  ctx.controller.list_partition_reassignments(tps, [&ctx, req](ErrorCode error, Controller::OngoingReassignments ongoing) {
    Response resp;
    resp.error_code = error;
    if (error == ErrorCode::NOT_CONTROLLER) resp.error_message = "This is not the correct controller for this cluster.";
    for (const auto& [tp, r] : ongoing) {
      if (resp.topics.empty() || resp.topics.back().name != tp.topic) resp.topics.push_back({.name = tp.topic});
      resp.topics.back().partitions.push_back(
          {.partition_index = tp.partition, .replicas = r.replicas, .adding_replicas = r.adding, .removing_replicas = r.removing});
    }
    ctx.channel.respond(req, resp);
  });
}

}  // namespace gregor::broker
