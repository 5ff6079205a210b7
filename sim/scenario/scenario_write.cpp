// Writing scenario files (to_yaml): parse_scenario(to_yaml(s)) gives back s.
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "sim/scenario/duration.h"
#include "sim/scenario/scenario.h"

namespace gregor::sim {

namespace {

void emit_config(YAML::Emitter& out, const char* key, const ConfigMap& m) {
  if (m.empty()) return;
  out << YAML::Key << key << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : m) out << YAML::Key << k << YAML::Value << v;
  out << YAML::EndMap;
}

void emit_list(YAML::Emitter& out, const std::vector<std::string>& v) {
  if (v.size() == 1) {
    out << v[0];
    return;
  }
  out << YAML::Flow << YAML::BeginSeq;
  for (const auto& x : v) out << x;
  out << YAML::EndSeq;
}

void emit_groups(YAML::Emitter& out, const std::vector<std::vector<std::string>>& groups) {
  out << YAML::Flow << YAML::BeginSeq;
  for (const auto& g : groups) {
    out << YAML::Flow << YAML::BeginSeq;
    for (const auto& x : g) out << x;
    out << YAML::EndSeq;
  }
  out << YAML::EndSeq;
}

void emit_bounds(YAML::Emitter& out, const char* key, const std::vector<AvailabilityBound>& bounds) {
  if (bounds.empty()) return;
  out << YAML::Key << key << YAML::Value << YAML::BeginSeq;
  for (const auto& b : bounds) {
    out << YAML::Flow << YAML::BeginMap;
    if (!b.topic.empty()) out << YAML::Key << "topic" << YAML::Value << b.topic;
    out << YAML::Key << "at-most" << YAML::Value << format_duration(b.at_most) << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void emit_expect(YAML::Emitter& out, const Expectations& e) {
  out << YAML::BeginMap;
  if (e.pass_all)
    out << YAML::Key << "pass" << YAML::Value << "all";
  else if (!e.pass.empty()) {
    out << YAML::Key << "pass" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& c : e.pass) out << c;
    out << YAML::EndSeq;
  }
  if (!e.fail.empty()) {
    out << YAML::Key << "fail" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& c : e.fail) out << c;
    out << YAML::EndSeq;
  }
  if (e.min_acked > 0) out << YAML::Key << "min-acked" << YAML::Value << e.min_acked;
  emit_bounds(out, "max-unavailable", e.max_unavailable);
  emit_bounds(out, "max-leaderless", e.max_leaderless);
  emit_bounds(out, "max-under-replicated", e.max_under_replicated);
  out << YAML::EndMap;
}

void emit_when(YAML::Emitter& out, const Trigger& t) {
  out << YAML::Key << "when" << YAML::Value << YAML::Flow << YAML::BeginMap;
  if (!t.match.event.empty())
    out << YAML::Key << "event" << YAML::Value << t.match.event;
  else
    out << YAML::Key << (t.match.response ? "response" : "request") << YAML::Value << t.match.api;
  for (const auto& [k, v] : t.match.fields) {
    out << YAML::Key << k << YAML::Value;
    emit_list(out, v);
  }
  out << YAML::EndMap;
  if (t.delay.us != 0) out << YAML::Key << "delay" << YAML::Value << format_duration(t.delay);
  if (t.count != 1) out << YAML::Key << "count" << YAML::Value << t.count;
}

void emit_intercept(YAML::Emitter& out, const Intercept& i) {
  out << YAML::Flow << YAML::BeginMap << YAML::Key << (i.response ? "response" : "request") << YAML::Value << i.api;
  if (!i.from.empty()) {
    out << YAML::Key << "from" << YAML::Value;
    emit_list(out, i.from);
  }
  if (!i.to.empty()) {
    out << YAML::Key << "to" << YAML::Value;
    emit_list(out, i.to);
  }
  out << YAML::Key << "action" << YAML::Value << intercept_action_name(i.action);
  if (i.action == Intercept::Action::kDelay || i.action == Intercept::Action::kDuplicate) out << YAML::Key << "for" << YAML::Value << format_duration(i.delay);
  if (i.count != 1) out << YAML::Key << "count" << YAML::Value << i.count;
  out << YAML::EndMap;
}

void emit_faults(YAML::Emitter& out, const std::vector<FaultAction>& faults) {
  out << YAML::BeginSeq;
  for (const auto& f : faults) {
    out << YAML::BeginMap;
    if (!f.when || f.at.us != 0) out << YAML::Key << "at" << YAML::Value << format_duration(f.at - Time{0});
    if (f.when) emit_when(out, *f.when);
    if (f.until) out << YAML::Key << "until" << YAML::Value << format_duration(*f.until - Time{0});
    out << YAML::Key << fault_kind_name(f.kind) << YAML::Value;
    if (f.kind == FaultKind::kPartition || (f.kind == FaultKind::kHeal && !f.groups.empty())) {
      emit_groups(out, f.groups);
    } else if (f.kind == FaultKind::kHeal) {
      out << "all";
    } else if (f.kind == FaultKind::kClog) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "from" << YAML::Value;
      emit_list(out, f.targets);
      out << YAML::Key << "to" << YAML::Value;
      emit_list(out, f.to);
      out << YAML::Key << "for" << YAML::Value << format_duration(f.duration);
      if (!f.one_way) out << YAML::Key << "both-ways" << YAML::Value << true;
      out << YAML::EndMap;
    } else if (f.kind == FaultKind::kLatency) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "from" << YAML::Value;
      emit_list(out, f.targets);
      out << YAML::Key << "to" << YAML::Value;
      emit_list(out, f.to);
      out << YAML::Key << "base" << YAML::Value << format_duration(f.base) << YAML::Key << "jitter" << YAML::Value
          << format_duration(f.jitter) << YAML::EndMap;
    } else if (f.kind == FaultKind::kSetConfig) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << (f.topics.empty() ? "producer" : "topic") << YAML::Value;
      emit_list(out, f.topics.empty() ? f.targets : f.topics);
      emit_config(out, "config", f.config);
      out << YAML::EndMap;
    } else if (f.kind == FaultKind::kIntercept) {
      emit_intercept(out, f.intercept);
    } else if ((f.kind == FaultKind::kDiskFull && f.capacity) || (f.kind == FaultKind::kIoError && f.writes >= 0)) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "target" << YAML::Value;
      emit_list(out, f.targets);
      if (f.kind == FaultKind::kDiskFull)
        out << YAML::Key << "capacity" << YAML::Value << *f.capacity;
      else
        out << YAML::Key << "writes" << YAML::Value << f.writes;
      out << YAML::EndMap;
    } else if (f.kind == FaultKind::kReassign) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "partition" << YAML::Value << f.partition << YAML::Key
          << "replicas" << YAML::Value;
      emit_list(out, f.targets);
      out << YAML::EndMap;
    } else if (f.kind == FaultKind::kDiskCorrupt && !f.path.empty()) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "target" << YAML::Value;
      emit_list(out, f.targets);
      out << YAML::Key << "path" << YAML::Value << f.path << YAML::EndMap;
    } else {
      emit_list(out, f.targets);
    }
    if ((f.kind == FaultKind::kPartition || f.kind == FaultKind::kHeal) && f.one_way)
      out << YAML::Key << "one-way" << YAML::Value << true;
    if (!f.label.empty()) out << YAML::Key << "as" << YAML::Value << f.label;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

std::string rate_text(double r) {
  std::ostringstream os;
  os << r;
  return os.str();
}

}  // namespace

std::string to_yaml(const Scenario& s) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << s.name;
  if (!s.story.empty()) out << YAML::Key << "story" << YAML::Value << YAML::Literal << s.story;
  if (s.seed != 1) out << YAML::Key << "seed" << YAML::Value << s.seed;
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "brokers" << YAML::Value << s.brokers;
  out << YAML::Key << "zookeeper" << YAML::Value << s.zk_servers;
  out << YAML::Key << "network" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "latency" << YAML::Value
      << format_duration(s.latency.base) << YAML::Key << "jitter" << YAML::Value << format_duration(s.latency.jitter)
      << YAML::EndMap;
  if (!s.controller.empty()) out << YAML::Key << "controller" << YAML::Value << s.controller;
  if (!s.broker_start.empty()) {
    out << YAML::Key << "start" << YAML::Value << YAML::BeginMap;
    for (const auto& [b, t] : s.broker_start) out << YAML::Key << b << YAML::Value << format_duration(t - Time{0});
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  emit_config(out, "broker-config", s.broker_config);
  if (!s.topics.empty()) {
    out << YAML::Key << "topics" << YAML::Value << YAML::BeginSeq;
    for (const auto& t : s.topics) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name;
      if (!t.replica_assignment.empty()) {
        std::string a;
        for (const auto& [p, r] : t.replica_assignment) {
          if (!a.empty()) a += ",";
          for (size_t i = 0; i < r.size(); i++) a += (i ? ":" : "") + std::to_string(r[i]);
        }
        out << YAML::Key << "replica-assignment" << YAML::Value << YAML::DoubleQuoted << a;
      } else {
        out << YAML::Key << "partitions" << YAML::Value << t.partitions;
        out << YAML::Key << "replication-factor" << YAML::Value << t.replication_factor;
      }
      emit_config(out, "config", t.config);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!s.producers.empty()) {
    out << YAML::Key << "producers" << YAML::Value << YAML::BeginSeq;
    for (const auto& p : s.producers) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << p.name;
      out << YAML::Key << "topic" << YAML::Value << p.topic;
      out << YAML::Key << "rate" << YAML::Value << rate_text(p.rate_per_sec);
      if (p.keys != "none") out << YAML::Key << "keys" << YAML::Value << p.keys;
      if (p.value_bytes != 100) out << YAML::Key << "value-bytes" << YAML::Value << p.value_bytes;
      if (p.records >= 0) out << YAML::Key << "records" << YAML::Value << p.records;
      if (p.start.us != 0) out << YAML::Key << "start" << YAML::Value << format_duration(p.start - Time{0});
      if (p.stop.us != INT64_MAX) out << YAML::Key << "stop" << YAML::Value << format_duration(p.stop - Time{0});
      emit_config(out, "config", p.config);
      if (p.transaction_records != 100) out << YAML::Key << "transaction.records" << YAML::Value << p.transaction_records;
      if (p.abort_every != 0) out << YAML::Key << "abort.every" << YAML::Value << p.abort_every;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!s.groups.empty()) {
    out << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq;
    for (const auto& g : s.groups) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << g.name;
      out << YAML::Key << "topics" << YAML::Value;
      emit_list(out, g.topics);
      out << YAML::Key << "members" << YAML::Value << g.members;
      out << YAML::Key << "delivery" << YAML::Value << delivery_mode_name(g.delivery);
      if (g.zookeeper) out << YAML::Key << "coordination" << YAML::Value << "zookeeper";
      if (g.start.us != 0) out << YAML::Key << "start" << YAML::Value << format_duration(g.start - Time{0});
      emit_config(out, "config", g.config);
      if (!g.output.empty()) out << YAML::Key << "output" << YAML::Value << g.output;
      if (!g.transactional_id_prefix.empty())
        out << YAML::Key << "transactional.id.prefix" << YAML::Value << g.transactional_id_prefix;
      emit_config(out, "producer-config", g.producer_config);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!s.faults.empty()) {
    out << YAML::Key << "faults" << YAML::Value;
    emit_faults(out, s.faults);
  }
  out << YAML::Key << "length" << YAML::Value << format_duration(s.length);
  out << YAML::Key << "expect" << YAML::Value;
  emit_expect(out, s.expect);
  if (!s.variants.empty()) {
    out << YAML::Key << "variants" << YAML::Value << YAML::BeginMap;
    for (const auto& v : s.variants) {
      out << YAML::Key << v.name << YAML::Value << YAML::BeginMap;
      if (!v.description.empty()) out << YAML::Key << "description" << YAML::Value << v.description;
      emit_config(out, "broker-config", v.broker_config);
      emit_config(out, "topic-config", v.topic_config);
      emit_config(out, "producer-config", v.producer_config);
      emit_config(out, "group-config", v.group_config);
      if (v.delivery) out << YAML::Key << "delivery" << YAML::Value << delivery_mode_name(*v.delivery);
      if (v.expect) {
        out << YAML::Key << "expect" << YAML::Value;
        emit_expect(out, *v.expect);
      }
      if (v.faults) {
        out << YAML::Key << "faults" << YAML::Value;
        if (v.faults->empty())
          out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        else
          emit_faults(out, *v.faults);
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace gregor::sim
