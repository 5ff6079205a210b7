// Availability of a run, per topic of the scenario (docs/scenarios.md, "Availability"):
//
//   unavailable       the longest stretch during which at least one of the topic's producers ran
//                     (its process up and not paused, between its start and stop, records left to
//                     send) and no produce request of the topic was acknowledged. A stretch is
//                     counted from the last acknowledgement (or from when a producer began to run)
//                     to the next one, or to the moment no producer runs any more, or to the end.
//   leaderless        the longest time one of its partitions had no leader: from the moment the
//                     leader the controller last wrote is down (its process crashed or stopped) or
//                     none (partition_offline), until the controller writes a live leader.
//   under-replicated  the longest time one of its partitions had an ISR smaller than its replica
//                     set (Kafka's UnderReplicatedPartitions), until the ISR is whole again.
// A stretch still open at the end of the run counts up to the end. Only topics of the scenario are
// measured (not __consumer_offsets). The monitor reads trace events only, so it works on any run.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/core/trace_event.h"
#include "engine/core/types.h"

namespace gregor::sim {

struct AvailabilityFigures {
  Duration unavailable_max{0};
  Time unavailable_from{0};  // when the longest stretch began
  Duration leaderless_max{0};
  std::string leaderless_partition;  // "orders-0": the partition of the longest stretch
  Time leaderless_from{0};
  Duration under_replicated_max{0};
  std::string under_replicated_partition;
  Time under_replicated_from{0};
  bool produced = false;  // some producer of the topic ran
};

class AvailabilityMonitor {
 public:
  struct Producer {
    int32_t node = 0;
    std::string topic;
    Time start{0}, stop{INT64_MAX};
    int64_t records = -1;  // -1: no limit
  };
  AvailabilityMonitor(std::vector<std::string> topics, std::vector<Producer> producers);

  void on_event(const TraceEvent& e);
  // Figures so far (open stretches counted up to `now`), by topic.
  std::map<std::string, AvailabilityFigures> figures(Time now) const;

 private:
  struct ProducerState {
    Producer spec;
    bool up = false;
    int64_t acked = 0;
  };
  struct TopicState {
    bool active = false;    // a producer runs
    Time since{0};          // start of the current stretch without an ack (while active)
    AvailabilityFigures figures;
  };
  struct PartitionState {
    std::string topic;
    int32_t leader = -1;
    bool has_leader_record = false;
    size_t replicas = 0;
    std::vector<int32_t> isr;
    bool leaderless = false;
    Time leaderless_since{0};
    bool under_replicated = false;
    Time under_replicated_since{0};
  };
  bool running(const ProducerState& p, Time now) const;
  void update_activity(const std::string& topic, Time now);
  void update_partition(const std::string& name, PartitionState& p, Time now);
  void record_stretch(AvailabilityFigures& f, Duration d, Time from, int which, const std::string& partition) const;

  std::map<std::string, TopicState> topics_;
  std::map<int32_t, ProducerState> producers_;     // by node id
  std::map<std::string, PartitionState> partitions_;  // by "orders-0"
  std::set<int32_t> down_;                         // broker nodes whose process is down
  Time next_boundary_{0};                          // the next producer start or stop time
  Time last_event_{0};                             // the time of the event before
};

}  // namespace gregor::sim
