// Requests for consumer groups (FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
// OffsetCommit, OffsetFetch, DescribeGroups, ListGroups) and InitProducerId. Each handler decodes
// the request and hands it to the group coordinator (engine/group/) or the producer id manager;
// the answer may come later (a JoinGroup waits for the rebalance), and until it does the
// connection takes no further request, as Kafka mutes a channel.
#include "engine/broker/broker.h"
#include "engine/group/offsets_topic.h"
#include "engine/protocol/init_producer_id.h"
#include "engine/protocol/join_group.h"
#include "engine/protocol/sync_group.h"

namespace gregor::broker {

using protocol::ErrorCode;

namespace {
// Kafka creates __consumer_offsets with 100 MB segments (offsets.topic.segment.bytes); it is also
// compacted there, which Gregor's logs do not model.
constexpr const char* kOffsetsTopicSegmentBytes = "104857600";
}  // namespace

void Broker::create_offsets_topic(int32_t partitions, int32_t rf, std::function<void(ErrorCode)> done) {
  create_topic(group::kOffsetsTopic, partitions, rf, {{"segment.bytes", kOffsetsTopicSegmentBytes}},
               [done](ErrorCode code, std::string) { done(code); });
}

#define GREGOR_DECODE_OR_CLOSE(Type, var)                                  \
  auto var = protocol::Type::decode(r, req.header.api_version);            \
  if (!var) {                                                              \
    return close_bad_request(req.from, "malformed " #Type ": " + var.status().to_string()); \
  }

void Broker::handle_find_coordinator(const Request& req, ByteReader& r) {
  GREGOR_DECODE_OR_CLOSE(FindCoordinatorRequest, decoded);
  group_coordinator_.find_coordinator(*decoded, [this, req](const protocol::FindCoordinatorResponse& resp) { respond(req, resp); });
}

void Broker::handle_join_group(const Request& req, ByteReader& r) {
  GREGOR_DECODE_OR_CLOSE(JoinGroupRequest, decoded);
  // Kafka names the client host by its address; a connection id is what Gregor knows.
  const std::string host = "/connection" + std::to_string(-req.from.value);
  group_coordinator_.join_group(*decoded, req.header.api_version, req.header.client_id.value_or(""), host,
                                [this, req](const protocol::JoinGroupResponse& resp) { respond(req, resp); });
}

void Broker::handle_sync_group(const Request& req, ByteReader& r) {
  GREGOR_DECODE_OR_CLOSE(SyncGroupRequest, decoded);
  group_coordinator_.sync_group(*decoded, [this, req](const protocol::SyncGroupResponse& resp) { respond(req, resp); });
}

void Broker::handle_heartbeat(const Request& req, ByteReader& r) {
  GREGOR_DECODE_OR_CLOSE(HeartbeatRequest, decoded);
  group_coordinator_.heartbeat(*decoded, [this, req](ErrorCode code) {
    protocol::HeartbeatResponse resp;
    resp.error_code = code;
    respond(req, resp);
  });
}

void Broker::handle_leave_group(const Request& req, ByteReader& r) {
  GREGOR_DECODE_OR_CLOSE(LeaveGroupRequest, decoded);
  group_coordinator_.leave_group(*decoded, [this, req](ErrorCode code) {
    protocol::LeaveGroupResponse resp;
    resp.error_code = code;
    respond(req, resp);
  });
}

void Broker::handle_offset_commit(const Request& req, ByteReader& r) {
  GREGOR_DECODE_OR_CLOSE(OffsetCommitRequest, decoded);
  group_coordinator_.offset_commit(*decoded, [this, req](const protocol::OffsetCommitResponse& resp) { respond(req, resp); });
}

void Broker::handle_offset_fetch(const Request& req, ByteReader& r) {
  GREGOR_DECODE_OR_CLOSE(OffsetFetchRequest, decoded);
  respond(req, group_coordinator_.offset_fetch(*decoded, req.header.api_version));
}

void Broker::handle_describe_groups(const Request& req, ByteReader& r) {
  GREGOR_DECODE_OR_CLOSE(DescribeGroupsRequest, decoded);
  respond(req, group_coordinator_.describe_groups(*decoded));
}

void Broker::handle_list_groups(const Request& req, ByteReader& r) {
  GREGOR_DECODE_OR_CLOSE(ListGroupsRequest, decoded);
  respond(req, group_coordinator_.list_groups());
}

void Broker::handle_init_producer_id(const Request& req, ByteReader& r) {
  GREGOR_DECODE_OR_CLOSE(InitProducerIdRequest, decoded);
  if (decoded->transactional_id) {
    // Transactions are not modelled: there is no transaction coordinator to map the id.
    protocol::InitProducerIdResponse resp;
    resp.error_code = ErrorCode::COORDINATOR_NOT_AVAILABLE;
    return respond(req, resp);
  }
  producer_ids_.generate([this, req](ErrorCode code, int64_t id) {
    protocol::InitProducerIdResponse resp;
    resp.error_code = code;
    resp.producer_id = id;
    resp.producer_epoch = code == ErrorCode::NONE ? 0 : -1;
    if (code == ErrorCode::NONE) rt_.emit("producer_id_assigned", {{"producer_id", id}, {"producer_epoch", 0}});
    respond(req, resp);
  });
}

#undef GREGOR_DECODE_OR_CLOSE

}  // namespace gregor::broker
