// ElectLeaders: the controller runs the election (engine/broker/controller.h, elect_leaders) and
// answers once every live broker has the new leaders, or after timeout_ms; another broker answers
// NOT_CONTROLLER for each partition, as a ZooKeeper-era broker does. v0 has no election type (it
// means preferred) and no top-level error code.
#include "engine/broker/request_handler.h"
#include "engine/protocol/elect_leaders.h"

namespace gregor::broker {

namespace {
constexpr int8_t kElectionPreferred = 0;
constexpr int8_t kElectionUnclean = 1;
using Response = protocol::ElectLeadersResponse;

void add_result(Response& resp, const TopicPartition& tp, ErrorCode code, const std::string& message) {
  if (resp.replica_election_results.empty() || resp.replica_election_results.back().topic != tp.topic)
    resp.replica_election_results.push_back({.topic = tp.topic});
  resp.replica_election_results.back().partition_result.push_back(
      {.partition_id = tp.partition,
       .error_code = code,
       .error_message = code == ErrorCode::NONE ? std::nullopt : std::optional<std::string>(message)});
}
}  // namespace

void handle_elect_leaders(HandlerContext& ctx, const Request& req, protocol::ElectLeadersRequest request) {
  std::optional<std::vector<TopicPartition>> tps;
  if (request.topic_partitions) {
    tps.emplace();
    for (const auto& t : *request.topic_partitions)
      for (int32_t p : t.partitions) tps->push_back(TopicPartition{t.topic, p});
  }
  if (!authorize_cluster(ctx, req, AclOperation::kAlter)) {  // Kafka's rule: Alter on the cluster
    Response resp;
    resp.error_code = ErrorCode::CLUSTER_AUTHORIZATION_FAILED;
    if (tps)
      for (const auto& tp : *tps) add_result(resp, tp, ErrorCode::CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.");
    return ctx.channel.respond(req, resp);
  }
  if (request.election_type != kElectionPreferred && request.election_type != kElectionUnclean) {
    Response resp;
    resp.error_code = ErrorCode::INVALID_REQUEST;
    if (tps)
      for (const auto& tp : *tps) add_result(resp, tp, ErrorCode::INVALID_REQUEST, "Unknown election type.");
    return ctx.channel.respond(req, resp);
  }
  if (!ctx.controller.is_active()) {
    Response resp;
    if (tps)
      for (const auto& tp : *tps) add_result(resp, tp, ErrorCode::NOT_CONTROLLER, "This is not the correct controller for this cluster.");
    else
      resp.error_code = ErrorCode::NOT_CONTROLLER;
    return ctx.channel.respond(req, resp);
  }
  const int32_t timeout_ms = request.timeout_ms;
  ctx.controller.elect_leaders(tps, request.election_type == kElectionUnclean,
                               [&ctx, req, timeout_ms](ErrorCode error, Controller::ElectionResults results) {
                                 auto resp = std::make_shared<Response>();
                                 resp->error_code = error;
                                 bool elected = false;
                                 for (const auto& [tp, r] : results) {
                                   add_result(*resp, tp, r.error, r.message);
                                   elected |= r.error == ErrorCode::NONE;
                                 }
                                 if (!elected || timeout_ms <= 0) return ctx.channel.respond(req, *resp);
                                 // Answered once every live broker knows the new leaders (a timeout
                                 // answers anyway: the elections happened).
                                 ctx.controller.when_metadata_propagated(
                                     Duration::millis(timeout_ms), [&ctx, req, resp](bool) { ctx.channel.respond(req, *resp); });
                               });
}

}  // namespace gregor::broker
