// DeleteAcls: remove the ACL bindings matching each filter, as Kafka's handleDeleteAcls with the
// ZooKeeper AclAuthorizer: Alter on the Cluster (else every filter fails
// CLUSTER_AUTHORIZATION_FAILED), SECURITY_DISABLED without an authorizer, INVALID_REQUEST for a
// filter with an UNKNOWN element. The patterns any filter matches in the cache are rewritten one at
// a time without the entries the filters match (as zk has them then); each filter's result lists
// the bindings it removed.
#include <map>
#include <memory>

#include "engine/broker/async_steps.h"
#include "engine/broker/request_handler.h"
#include "engine/protocol/delete_acls.h"

namespace gregor::broker {

namespace {

using Response = protocol::DeleteAclsResponse;

struct Pending {
  Request req;
  Response resp;
  std::vector<std::pair<size_t, AclBindingFilter>> filters;            // the valid ones, by result index
  std::map<ResourcePattern, std::vector<std::pair<size_t, AccessControlEntry>>> removed;  // per pattern: filter, entry
};

Response::DeleteAclsMatchingAcl matching_acl(const ResourcePattern& pattern, const AccessControlEntry& e) {
  Response::DeleteAclsMatchingAcl m;
  m.error_code = ErrorCode::NONE;
  m.resource_type = static_cast<int8_t>(pattern.type);
  m.resource_name = pattern.name;
  m.pattern_type = static_cast<int8_t>(pattern.pattern);
  m.principal = e.principal;
  m.host = e.host;
  m.operation = static_cast<int8_t>(e.operation);
  m.permission_type = static_cast<int8_t>(e.permission);
  return m;
}

}  // namespace

void handle_delete_acls(HandlerContext& ctx, const Request& req, protocol::DeleteAclsRequest request) {
  auto p = std::make_shared<Pending>();
  p->req = req;
  auto fail_all = [&](ErrorCode code, const std::string& message) {
    for (size_t i = 0; i < request.filters.size(); i++) {
      Response::DeleteAclsFilterResult r;
      r.error_code = code;
      r.error_message = message;
      p->resp.filter_results.push_back(r);
    }
    ctx.channel.respond(req, p->resp);
  };
  if (!authorize_cluster(ctx, req, AclOperation::kAlter))
    return fail_all(ErrorCode::CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.");
  if (!ctx.authorizer.enabled()) return fail_all(ErrorCode::SECURITY_DISABLED, "No Authorizer is configured on the broker");
  for (size_t i = 0; i < request.filters.size(); i++) {
    const auto& f = request.filters[i];
    AclBindingFilter filter;
    filter.type = resource_type_of(f.resource_type_filter);
    filter.name = f.resource_name_filter;
    filter.pattern = pattern_type_of(f.pattern_type_filter);
    filter.principal = f.principal_filter;
    filter.host = f.host_filter;
    filter.operation = operation_of(f.operation);
    filter.permission = permission_of(f.permission_type);
    Response::DeleteAclsFilterResult r;
    r.error_code = ErrorCode::NONE;
    if (auto why = filter.invalid_reason()) {
      r.error_code = ErrorCode::INVALID_REQUEST;
      r.error_message = *why;
    } else {
      p->filters.push_back({i, filter});
    }
    p->resp.filter_results.push_back(r);
  }
  std::vector<ResourcePattern> patterns;
  for (const auto& [pattern, entries] : ctx.authorizer.cache().all())
    for (const auto& [index, filter] : p->filters)
      if (filter.matches_pattern(pattern)) {
        patterns.push_back(pattern);
        break;
      }
  sequentially<ResourcePattern>(
      patterns,
      [&ctx, p](const ResourcePattern& pattern, std::function<void()> next) {
        ctx.authorizer.update(
            pattern,
            [p, pattern](std::set<AccessControlEntry> entries) {
              // Called again on a conflicting write: what it removes is recounted each time.
              auto& removed = p->removed[pattern];
              removed.clear();
              std::set<AccessControlEntry> kept;
              for (const AccessControlEntry& e : entries) {
                bool matched = false;
                for (const auto& [index, filter] : p->filters)
                  if (filter.matches({pattern, e})) {
                    removed.push_back({index, e});
                    matched = true;
                  }
                if (!matched) kept.insert(e);
              }
              return kept;
            },
            [p, pattern, next](bool ok) {
              for (const auto& [index, entry] : p->removed[pattern]) {
                auto m = matching_acl(pattern, entry);
                if (!ok) {
                  m.error_code = ErrorCode::UNKNOWN_SERVER_ERROR;
                  m.error_message = "could not write the ACLs of " + pattern.to_string() + " to zk";
                }
                p->resp.filter_results[index].matching_acls.push_back(std::move(m));
              }
              next();
            });
      },
      [&ctx, p] { ctx.channel.respond(p->req, p->resp); });
}

}  // namespace gregor::broker
