#include "engine/client/consumer_config.h"

#include <type_traits>

#include "engine/broker/broker_config.h"
#include "engine/client/assignors.h"

namespace gregor::client {

Status ConsumerConfig::apply(const std::map<std::string, std::string>& settings) {
  for (const auto& [k, v] : settings) {
    auto num = [&](auto& field, int64_t min) -> Status {
      auto n = broker::parse_long(k, v);
      if (!n) return n.status();
      if (*n < min) return Status::error(StatusCode::kInvalidArgument, k + ": must be at least " + std::to_string(min));
      field = static_cast<std::remove_reference_t<decltype(field)>>(*n);
      return Status::ok();
    };
    auto flag = [&](bool& field) -> Status {
      auto b = broker::parse_bool(k, v);
      if (!b) return b.status();
      field = *b;
      return Status::ok();
    };
    Status s;
    if (k == "client.id") client_id = v;
    else if (k == "group.id") group_id = v;
    else if (k == "session.timeout.ms") s = num(session_timeout_ms, 1);
    else if (k == "heartbeat.interval.ms") s = num(heartbeat_interval_ms, 1);
    else if (k == "max.poll.interval.ms") s = num(max_poll_interval_ms, 1);
    else if (k == "auto.offset.reset") {
      if (v != "earliest" && v != "latest" && v != "none")
        return Status::error(StatusCode::kInvalidArgument, k + ": expected earliest, latest or none, got '" + v + "'");
      auto_offset_reset = v;
    } else if (k == "enable.auto.commit") s = flag(enable_auto_commit);
    else if (k == "auto.commit.interval.ms") s = num(auto_commit_interval_ms, 1);
    else if (k == "fetch.min.bytes") s = num(fetch_min_bytes, 0);
    else if (k == "fetch.max.bytes") s = num(fetch_max_bytes, 0);
    else if (k == "fetch.max.wait.ms") s = num(fetch_max_wait_ms, 0);
    else if (k == "max.partition.fetch.bytes") s = num(max_partition_fetch_bytes, 1);
    else if (k == "max.poll.records") s = num(max_poll_records, 1);
    else if (k == "request.timeout.ms") s = num(request_timeout_ms, 1);
    else if (k == "default.api.timeout.ms") s = num(default_api_timeout_ms, 1);
    else if (k == "retry.backoff.ms") s = num(retry_backoff_ms, 0);
    else if (k == "metadata.max.age.ms") s = num(metadata_max_age_ms, 1);
    else if (k == "check.crcs") s = flag(check_crcs);
    else if (k == "partition.assignment.strategy") {
      std::vector<std::string> names;
      size_t start = 0;
      while (start <= v.size()) {
        size_t comma = v.find(',', start);
        std::string name = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        while (!name.empty() && name.front() == ' ') name.erase(name.begin());
        while (!name.empty() && name.back() == ' ') name.pop_back();
        if (!name.empty()) {
          if (!make_assignor(name))
            return Status::error(StatusCode::kInvalidArgument, k + ": unknown assignor '" + name + "'");
          names.push_back(name);
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      if (names.empty()) return Status::error(StatusCode::kInvalidArgument, k + ": no assignor named");
      partition_assignment_strategy = names;
    } else
      return Status::error(StatusCode::kInvalidArgument, "unknown consumer config '" + k + "'");
    if (!s.is_ok()) return s;
  }
  if (heartbeat_interval_ms >= session_timeout_ms)
    return Status::error(StatusCode::kInvalidArgument, "heartbeat.interval.ms must be lower than session.timeout.ms");
  return Status::ok();
}

}  // namespace gregor::client
