// Waits of the topic admin requests (CreateTopics, CreatePartitions, DeleteTopics): Kafka's
// DelayedCreatePartitions and DelayedDeleteTopics wait until the answering broker's metadata shows
// the change; Gregor waits further until every live broker has applied that metadata (the
// controller's UpdateMetadata, and with it every LeaderAndIsr or StopReplica sent before it), so a
// client may go to any broker at once.
#pragma once

#include <algorithm>
#include <functional>
#include <string>

#include "engine/broker/request_handler.h"

namespace gregor::broker {

// done(false) once `ready()` holds here and the metadata has reached every live broker, or
// done(true) when timeout_ms passes first. REQUIRES: this broker is the controller (or done(true)).
inline void await_metadata_everywhere(HandlerContext& ctx, std::function<bool()> ready, int32_t timeout_ms,
                                      std::function<void(bool timed_out)> done) {
  const Time deadline = ctx.rt.now() + Duration::millis(timeout_ms);
  ctx.admin.when_metadata(std::move(ready), Duration::millis(timeout_ms), [&ctx, deadline, done](bool timed_out) {
    if (timed_out) return done(true);
    ctx.controller.when_metadata_propagated(deadline - ctx.rt.now(), done);
  });
}

// Every partition 0..partitions-1 of `topic` has a leader in this broker's metadata.
inline std::function<bool()> topic_has_leaders(HandlerContext& ctx, const std::string& topic, int32_t partitions) {
  return [&ctx, topic, partitions] {
    auto parts = ctx.metadata.topic_partitions(topic);
    if (static_cast<int32_t>(parts.size()) < partitions) return false;
    return std::all_of(parts.begin(), parts.end(), [](const auto& p) { return p.second.leader >= 0; });
  };
}

}  // namespace gregor::broker
