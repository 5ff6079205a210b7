// DescribeAcls: the ACL bindings matching a filter, from this broker's cache, as Kafka's
// handleDescribeAcls: Describe on the Cluster, SECURITY_DISABLED without an authorizer,
// INVALID_REQUEST for a filter with an UNKNOWN element.
#include <map>

#include "engine/broker/request_handler.h"
#include "engine/protocol/describe_acls.h"

namespace gregor::broker {

void handle_describe_acls(HandlerContext& ctx, const Request& req, protocol::DescribeAclsRequest request) {
  protocol::DescribeAclsResponse resp;
  resp.error_code = ErrorCode::NONE;
  auto refuse = [&](ErrorCode code, std::string message) {
    resp.error_code = code;
    resp.error_message = std::move(message);
    ctx.channel.respond(req, resp);
  };
  if (!authorize_cluster(ctx, req, AclOperation::kDescribe))
    return refuse(ErrorCode::CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.");
  if (!ctx.authorizer.enabled()) return refuse(ErrorCode::SECURITY_DISABLED, "No Authorizer is configured on the broker");
  AclBindingFilter filter;
  filter.type = resource_type_of(request.resource_type_filter);
  filter.name = request.resource_name_filter;
  filter.pattern = pattern_type_of(request.pattern_type_filter);
  filter.principal = request.principal_filter;
  filter.host = request.host_filter;
  filter.operation = operation_of(request.operation);
  filter.permission = permission_of(request.permission_type);
  if (auto why = filter.invalid_reason()) return refuse(ErrorCode::INVALID_REQUEST, *why);
  std::map<ResourcePattern, size_t> index;  // pattern -> position in resp.resources
  for (const AclBinding& b : ctx.authorizer.cache().matching(filter)) {
    auto [it, fresh] = index.emplace(b.pattern, resp.resources.size());
    if (fresh) {
      protocol::DescribeAclsResponse::DescribeAclsResource r;
      r.resource_type = static_cast<int8_t>(b.pattern.type);
      r.resource_name = b.pattern.name;
      r.pattern_type = static_cast<int8_t>(b.pattern.pattern);
      resp.resources.push_back(std::move(r));
    }
    protocol::DescribeAclsResponse::AclDescription d;
    d.principal = b.entry.principal;
    d.host = b.entry.host;
    d.operation = static_cast<int8_t>(b.entry.operation);
    d.permission_type = static_cast<int8_t>(b.entry.permission);
    resp.resources[it->second].acls.push_back(std::move(d));
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
