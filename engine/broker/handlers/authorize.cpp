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

}  // namespace gregor::broker
