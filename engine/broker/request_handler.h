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
#include "engine/broker/broker_config.h"
#include "engine/broker/controller.h"
#include "engine/broker/metadata_cache.h"
#include "engine/broker/producer_id_manager.h"
#include "engine/broker/replica_manager.h"
#include "engine/broker/request_channel.h"
#include "engine/group/group_coordinator.h"

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
};

// Serves one request frame from an inbound connection.
void dispatch_request(HandlerContext& ctx, NodeId from, Bytes frame);

}  // namespace gregor::broker
