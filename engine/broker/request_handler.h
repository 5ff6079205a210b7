// Request handlers: one file per Kafka API under engine/broker/handlers/, each a function
//
//   void handle_<api>(HandlerContext& ctx, const Request& req, protocol::<Api>Request request);
//
// over a narrow context: the broker's services (below), not the Broker. The table in
// handlers/handler_table.cpp names each API's key, request type and handler; dispatch_request
// reads the header, refuses what the broker does not serve (engine/protocol/dispatch.h), decodes
// the body (a malformed body closes the connection) and calls the handler. A handler answers
// through ctx.channel, at once or later; until it does, its connection takes no further request.
//
// Adding an API: its handler file, and one row in the table.
#pragma once

#include "engine/broker/admin_manager.h"
#include "engine/broker/authorizer.h"
#include "engine/broker/broker_config.h"
#include "engine/broker/controller.h"
#include "engine/broker/metadata_cache.h"
#include "engine/broker/producer_id_manager.h"
#include "engine/broker/replica_manager.h"
#include "engine/broker/request_channel.h"
#include "engine/broker/sasl_authenticator.h"
#include "engine/group/group_coordinator.h"
#include "engine/txn/transaction_coordinator.h"

namespace gregor::broker {

struct HandlerContext {
  Runtime& rt;
  const BrokerConfig& config;
  RequestChannel& channel;
  ReplicaManager& replicas;
  MetadataCache& metadata;
  Controller& controller;
  AdminManager& admin;
  group::GroupCoordinator& groups;
  ProducerIdManager& producer_ids;
  const std::string& cluster_id;  // /cluster/id; empty until read
  SaslAuthenticator& sasl;        // authentication on SASL listeners; each connection's principal
  Authorizer& authorizer;         // ACLs (authorizer.class.name); allows everything when off
  txn::TransactionCoordinator& txns;  // the transaction coordinator (engine/txn)
};

// Whether the request's principal (its connection's: User:<name> or User:ANONYMOUS), from its
// client's address, may do operation on the resource, as KafkaApis asks the authorizer. Always
// true with no authorizer. A denial is traced (authorization_denied) unless trace_denial is false
// (Kafka's logIfDenied: listing only what may be seen is no denial worth a line).
bool authorize(HandlerContext& ctx, const Request& req, AclOperation operation, AclResourceType type,
               const std::string& name, bool trace_denial = true);
// KIP-430's authorized operations (Kafka's AclOperation codes as bits) when nothing is denied, as
// a broker without an authorizer answers: a topic's READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE,
// DESCRIBE_CONFIGS, ALTER_CONFIGS; the cluster's CREATE, ALTER, DESCRIBE, CLUSTER_ACTION,
// DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE. (A group's: engine/group/group_coordinator.h.)
inline constexpr int32_t kTopicAuthorizedOperations =
    (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11);
inline constexpr int32_t kClusterAuthorizedOperations =
    (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12);
// Of the operations in `candidates` (bits of Kafka's AclOperation codes), those the principal may
// do on the resource (all of them without an authorizer); denials are not traced.
int32_t authorized_operations(HandlerContext& ctx, const Request& req, AclResourceType type, const std::string& name,
                              int32_t candidates);
inline bool authorize_cluster(HandlerContext& ctx, const Request& req, AclOperation operation) {
  return authorize(ctx, req, operation, AclResourceType::kCluster, kClusterResourceName);
}

// A controller request naming an older registration of this broker was refused (KIP-380).
inline void emit_stale_broker_epoch(HandlerContext& ctx, const char* api, int64_t epoch_in_request) {
  ctx.rt.emit(ev::StaleBrokerEpoch{
      .api = api, .broker_epoch = epoch_in_request, .known_epoch = ctx.controller.broker_epoch()});
}

// Controller requests (LeaderAndIsr, UpdateMetadata, StopReplica, ControlledShutdown) are served
// only on the inter-broker and control-plane listeners (BrokerConfig::serves_controller_requests):
// one that arrives on another listener, a client's, is answered CLUSTER_AUTHORIZATION_FAILED and
// changes nothing (not even the controller epoch this broker knows). With an authorizer, the
// principal must also have ClusterAction on the cluster (Kafka's rule), else likewise refused.
// True when it was refused.
template <typename Response>
bool refuse_controller_request_on_client_listener(HandlerContext& ctx, const Request& req, const char* api) {
  const std::string listener = ctx.rt.listener_name(req.from);
  if (ctx.config.serves_controller_requests(listener)) {
    if (authorize_cluster(ctx, req, AclOperation::kClusterAction)) return false;
  } else {
    ctx.rt.emit(ev::ControllerRequestRefused{.api = api, .listener = listener});
  }
  Response resp;
  resp.error_code = ErrorCode::CLUSTER_AUTHORIZATION_FAILED;
  ctx.channel.respond(req, resp);
  return true;
}

// Serves one request frame from an inbound connection.
void dispatch_request(HandlerContext& ctx, NodeId from, Bytes frame);

}  // namespace gregor::broker
