// CreateAcls: add ACL bindings, as Kafka's handleCreateAcls with the ZooKeeper AclAuthorizer:
// Alter on the Cluster (else every creation fails CLUSTER_AUTHORIZATION_FAILED), SECURITY_DISABLED
// without an authorizer, INVALID_REQUEST for a binding that cannot be created (acl.h's
// invalid_binding); the others are written one resource pattern at a time (engine/broker/authorizer.h).
// One result per creation, in the request's order.
#include <map>
#include <memory>

#include "engine/broker/async_steps.h"
#include "engine/broker/request_handler.h"
#include "engine/protocol/create_acls.h"

namespace gregor::broker {

namespace {

using Response = protocol::CreateAclsResponse;

struct Pending {
  Request req;
  Response resp;
  std::map<ResourcePattern, std::vector<std::pair<size_t, AccessControlEntry>>> by_pattern;  // creation index, entry
};

}  // namespace

void handle_create_acls(HandlerContext& ctx, const Request& req, protocol::CreateAclsRequest request) {
  auto p = std::make_shared<Pending>();
  p->req = req;
  auto fail_all = [&](ErrorCode code, const std::string& message) {
    for (size_t i = 0; i < request.creations.size(); i++) {
      Response::AclCreationResult r;
      r.error_code = code;
      r.error_message = message;
      p->resp.results.push_back(r);
    }
    ctx.channel.respond(req, p->resp);
  };
  if (!authorize_cluster(ctx, req, AclOperation::kAlter))
    return fail_all(ErrorCode::CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.");
  if (!ctx.authorizer.enabled()) return fail_all(ErrorCode::SECURITY_DISABLED, "No Authorizer is configured on the broker");
  for (size_t i = 0; i < request.creations.size(); i++) {
    const auto& c = request.creations[i];
    AclBinding b{{resource_type_of(c.resource_type), c.resource_name, pattern_type_of(c.resource_pattern_type)},
                 {c.principal, c.host, operation_of(c.operation), permission_of(c.permission_type)}};
    Response::AclCreationResult r;
    r.error_code = ErrorCode::NONE;
    if (auto why = invalid_binding(b)) {
      r.error_code = ErrorCode::INVALID_REQUEST;
      r.error_message = *why;
    } else {
      p->by_pattern[b.pattern].push_back({i, b.entry});
    }
    p->resp.results.push_back(r);
  }
  std::vector<ResourcePattern> patterns;
  for (const auto& [pattern, entries] : p->by_pattern) patterns.push_back(pattern);
  sequentially<ResourcePattern>(
      patterns,
      [&ctx, p](const ResourcePattern& pattern, std::function<void()> next) {
        const auto& additions = p->by_pattern.at(pattern);
        ctx.authorizer.update(
            pattern,
            [additions](std::set<AccessControlEntry> entries) {
              for (const auto& [index, entry] : additions) entries.insert(entry);
              return entries;
            },
            [p, pattern, next](bool ok) {
              if (!ok)
                for (const auto& [index, entry] : p->by_pattern.at(pattern)) {
                  p->resp.results[index].error_code = ErrorCode::UNKNOWN_SERVER_ERROR;
                  p->resp.results[index].error_message = "could not write the ACLs of " + pattern.to_string() + " to zk";
                }
              next();
            });
      },
      [&ctx, p] { ctx.channel.respond(p->req, p->resp); });
}

}  // namespace gregor::broker
