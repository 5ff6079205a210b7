// The authorization check every handler asks (request_handler.h): the connection's principal and
// address against the authorizer's ACLs.
#include "engine/broker/request_handler.h"
#include "engine/protocol/api_keys.h"

namespace gregor::broker {

bool authorize(HandlerContext& ctx, const Request& req, AclOperation operation, AclResourceType type,
               const std::string& name, bool trace_denial) {
  if (!ctx.authorizer.enabled()) return true;
  const std::string principal = ctx.sasl.principal(req.from);
  const std::string host = ctx.rt.peer_host(req.from);
  if (ctx.authorizer.authorize(principal, host, operation, type, name)) return true;
  if (trace_denial)
    ctx.rt.emit(ev::AuthorizationDenied{.api = protocol::api_name(req.header.api_key),
                                        .principal = principal,
                                        .host = host,
                                        .operation = operation_name(operation),
                                        .resource_type = resource_type_name(type),
                                        .resource = name});
  return false;
}

int32_t authorized_operations(HandlerContext& ctx, const Request& req, AclResourceType type, const std::string& name,
                              int32_t candidates) {
  if (!ctx.authorizer.enabled()) return candidates;
  int32_t out = 0;
  for (int code = 0; code < 31; code++)
    if ((candidates & (1 << code)) &&
        authorize(ctx, req, static_cast<AclOperation>(code), type, name, /*trace_denial=*/false))
      out |= 1 << code;
  return out;
}

}  // namespace gregor::broker
