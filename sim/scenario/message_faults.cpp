#include "sim/scenario/message_faults.h"

namespace gregor::sim {

namespace {

int32_t read_int32(ByteView b, size_t at) {
  return static_cast<int32_t>((static_cast<uint32_t>(b[at]) << 24) | (static_cast<uint32_t>(b[at + 1]) << 16) |
                              (static_cast<uint32_t>(b[at + 2]) << 8) | static_cast<uint32_t>(b[at + 3]));
}

// The highest api key Kafka 3.9 assigned (api_keys.h).
constexpr int16_t kApiKeyMax = 87;
// Unanswered requests remembered per connection.
constexpr size_t kPendingPerConnectionMax = 4096;

}  // namespace

std::optional<protocol::ApiKey> api_key_named(const std::string& name) {
  for (int16_t k = 0; k <= kApiKeyMax; k++)
    if (name == protocol::api_name(static_cast<protocol::ApiKey>(k))) return static_cast<protocol::ApiKey>(k);
  return std::nullopt;
}

void MessageFaults::add_rule(Selector s, Intercept::Action action, Duration delay, int64_t count, Time until) {
  rules_.push_back(Rule{std::move(s), action, delay, count, until});
}

void MessageFaults::add_watch(Selector s, std::function<void()> on_match) {
  watches_.push_back(Watch{std::move(s), std::move(on_match)});
}

bool MessageFaults::selects(const Selector& s, protocol::ApiKey api, bool response, int32_t from, int32_t to) {
  if (s.api != api || s.response != response) return false;
  if (s.from && !s.from->count(from)) return false;
  if (s.to && !s.to->count(to)) return false;
  return true;
}

FrameVerdict MessageFaults::on_send(NodeId from, NodeId to, bool reply, ByteView frame) {
  protocol::ApiKey api;
  int32_t correlation_id;
  if (!reply) {
    // A request: api_key int16, api_version int16, correlation_id int32.
    if (!brokers_.count(to.value) || frame.size() < 8) return {};
    api = static_cast<protocol::ApiKey>(static_cast<int16_t>((frame[0] << 8) | frame[1]));
    correlation_id = read_int32(frame, 4);
    auto& pending = pending_[{from.value, to.value}];
    // Requests never answered (acks=0, a broken connection) go once a connection holds too many.
    if (pending.size() >= kPendingPerConnectionMax) pending.erase(pending.begin());
    pending[correlation_id] = api;
  } else {
    // A response: correlation_id int32 first, in every response header version.
    if (!brokers_.count(from.value) || frame.size() < 4) return {};
    correlation_id = read_int32(frame, 0);
    auto conn = pending_.find({to.value, from.value});
    if (conn == pending_.end()) return {};
    auto it = conn->second.find(correlation_id);
    if (it == conn->second.end()) return {};
    api = it->second;
    conn->second.erase(conn->second.begin(), std::next(it));
  }
  for (const Watch& w : watches_)
    if (selects(w.selector, api, reply, from.value, to.value)) w.on_match();
  for (Rule& r : rules_) {
    if (r.remaining <= 0 || now_() > r.until || !selects(r.selector, api, reply, from.value, to.value)) continue;
    r.remaining--;
    FrameVerdict v;
    v.action = r.action == Intercept::Action::kDrop        ? FrameVerdict::Action::kDrop
               : r.action == Intercept::Action::kDelay     ? FrameVerdict::Action::kDelay
               : r.action == Intercept::Action::kDuplicate ? FrameVerdict::Action::kDuplicate
                                                           : FrameVerdict::Action::kHold;
    v.delay = r.delay;
    emit_(ev::MessageIntercept{.api = protocol::api_name(api),
                               .side = reply ? "response" : "request",
                               .from = from.value,
                               .to = to.value,
                               .correlation_id = correlation_id,
                               .action = intercept_action_name(r.action),
                               .delay_us = r.action == Intercept::Action::kDelay || r.action == Intercept::Action::kDuplicate ? r.delay.us : 0});
    return v;
  }
  return {};
}

}  // namespace gregor::sim
