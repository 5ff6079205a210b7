// AlterPartitionReassignments: the controller starts (or cancels) each partition's move
// (engine/broker/controller.h, alter_partition_reassignments) and this answers once it has, with one
// result per partition; another broker answers NOT_CONTROLLER at the top, as a ZooKeeper-era broker
// does. When the controller has not taken the request within timeout_ms, every partition is answered
// REQUEST_TIMED_OUT (the moves may still start). A partition named twice: its last entry counts.
#include <algorithm>
#include <memory>

#include "engine/broker/request_handler.h"
#include "engine/protocol/alter_partition_reassignments.h"

namespace gregor::broker {

namespace {
using Response = protocol::AlterPartitionReassignmentsResponse;

void add_result(Response& resp, const TopicPartition& tp, ErrorCode code, const std::string& message) {
  if (resp.responses.empty() || resp.responses.back().name != tp.topic) resp.responses.push_back({.name = tp.topic});
  resp.responses.back().partitions.push_back(
      {.partition_index = tp.partition,
       .error_code = code,
       .error_message = code == ErrorCode::NONE ? std::nullopt : std::optional<std::string>(message)});
}
}  // namespace

void handle_alter_partition_reassignments(HandlerContext& ctx, const Request& req,
                                          protocol::AlterPartitionReassignmentsRequest request) {
  Controller::ReassignmentTargets targets;
  for (const auto& t : request.topics)
    for (const auto& p : t.partitions) targets[TopicPartition{t.name, p.partition_index}] = p.replicas;
  if (!authorize_cluster(ctx, req, AclOperation::kAlter)) {  // Kafka's rule: Alter on the cluster
    Response resp;
    resp.error_code = ErrorCode::CLUSTER_AUTHORIZATION_FAILED;
    resp.error_message = "Cluster authorization failed.";
    return ctx.channel.respond(req, resp);
  }
  if (!ctx.controller.is_active()) {
    Response resp;
    resp.error_code = ErrorCode::NOT_CONTROLLER;
    resp.error_message = "This is not the correct controller for this cluster.";
    return ctx.channel.respond(req, resp);
  }
  // Whichever comes first answers: the controller's results or the timeout.
  auto answered = std::make_shared<bool>(false);
  const TimerId timer = ctx.rt.after(Duration::millis(std::max<int32_t>(request.timeout_ms, 0)), [&ctx, req, answered, targets] {
    if (*answered) return;
    *answered = true;
    Response resp;
    for (const auto& [tp, target] : targets)
      add_result(resp, tp, ErrorCode::REQUEST_TIMED_OUT, "The controller did not start the reassignment in time.");
    ctx.channel.respond(req, resp);
  });
  ctx.controller.alter_partition_reassignments(
      std::move(targets), [&ctx, req, answered, timer](ErrorCode error, Controller::PartitionResults results) {
        if (*answered) return;
        *answered = true;
        ctx.rt.cancel(timer);
        Response resp;
        resp.error_code = error;
        if (error == ErrorCode::NOT_CONTROLLER) resp.error_message = "This is not the correct controller for this cluster.";
        for (const auto& [tp, r] : results) add_result(resp, tp, r.error, r.message);
        ctx.channel.respond(req, resp);
      });
}

}  // namespace gregor::broker
