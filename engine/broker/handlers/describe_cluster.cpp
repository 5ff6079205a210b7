// DescribeCluster: any broker answers from its metadata cache: the cluster id (/cluster/id), the
// controller and the live brokers. Endpoint type 1 (brokers) is the only one a ZooKeeper-era broker
// serves; asking for the controllers (2, KRaft's) gets UNSUPPORTED_ENDPOINT_TYPE, as Kafka answers.
// With include_cluster_authorized_operations, the operations the principal may do on the cluster
// (KIP-430): none unless it may Describe it, as Kafka's KafkaApis answers.
#include "engine/broker/request_handler.h"
#include "engine/protocol/describe_cluster.h"

namespace gregor::broker {

namespace {
constexpr int8_t kEndpointTypeBrokers = 1;
}  // namespace

void handle_describe_cluster(HandlerContext& ctx, const Request& req, protocol::DescribeClusterRequest request) {
  protocol::DescribeClusterResponse resp;
  resp.endpoint_type = request.endpoint_type;
  if (request.endpoint_type != kEndpointTypeBrokers) {
    resp.error_code = ErrorCode::UNSUPPORTED_ENDPOINT_TYPE;
    resp.error_message = "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type " +
                         std::string(request.endpoint_type == 2 ? "CONTROLLER" : "UNKNOWN");
    return ctx.channel.respond(req, resp);
  }
  resp.cluster_id = ctx.cluster_id;
  if (request.include_cluster_authorized_operations)
    resp.cluster_authorized_operations =
        authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kCluster, kClusterResourceName, /*trace_denial=*/false)
            ? authorized_operations(ctx, req, AclResourceType::kCluster, kClusterResourceName, kClusterAuthorizedOperations)
            : 0;
  resp.controller_id = ctx.metadata.controller_id();
  for (const auto& [id, b] : ctx.metadata.brokers()) resp.brokers.push_back({id, b.host, b.port, std::nullopt});
  if (resp.brokers.empty())
    resp.brokers.push_back({ctx.config.broker_id, ctx.config.advertised_host, ctx.config.advertised_port, std::nullopt});
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
