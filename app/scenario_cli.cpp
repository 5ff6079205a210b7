#include "app/scenario_cli.h"

#include <cstdio>
#include <iostream>


namespace gregor::app {

std::optional<sim::Scenario> load_scenario_or_report(const std::string& command, const std::string& path,
                                                     const std::string& variant) {
  auto s = sim::load_scenario(path);
  if (!s) {
    std::cerr << "gregor " << command << ": " << s.status().message() << "\n";
    return std::nullopt;
  }
  if (variant.empty()) return std::move(*s);
  auto v = sim::apply_variant(*s, variant);
  if (!v) {
    std::cerr << "gregor " << command << ": " << v.status().message() << "\n";
    return std::nullopt;
  }
  return std::move(*v);
}

std::string seconds_text(Time t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fs", static_cast<double>(t.us) / 1e6);
  return buf;
}

std::string verdicts_text(const sim::Verdicts& v) {
  std::string out = "checkers:\n";
  for (const auto& c : v.checkers) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-7s %-20s ", sim::checker_state_name(c.state), c.name.c_str());
    out += line;
    if (c.violation)
      out += "at " + seconds_text(c.violation->time) + ": " + c.violation->message + "\n";
    else
      out += c.description + "\n";
  }
  if (!v.availability.empty()) {
    out += "availability (longest stretches):\n";
    for (const auto& [topic, f] : v.availability) {
      std::string line = "  " + topic + ": ";
      line += f.produced ? "without an ack " + seconds_text(Time{0} + f.unavailable_max) +
                               (f.unavailable_max.us > 0 ? " (from " + seconds_text(f.unavailable_from) + ")" : "")
                         : std::string("no producer");
      line += ", leaderless " + seconds_text(Time{0} + f.leaderless_max);
      if (f.leaderless_max.us > 0) line += " (" + f.leaderless_partition + " from " + seconds_text(f.leaderless_from) + ")";
      line += ", under-replicated " + seconds_text(Time{0} + f.under_replicated_max);
      if (f.under_replicated_max.us > 0)
        line += " (" + f.under_replicated_partition + " from " + seconds_text(f.under_replicated_from) + ")";
      out += line + "\n";
    }
  }
  out += "expectations:\n";
  int failed = 0;
  for (const auto& e : v.expectations) {
    const char* mark = !e.holds ? "pending" : (*e.holds ? "holds" : "BROKEN");
    if (!e.holds || !*e.holds) failed++;
    char line[256];
    std::snprintf(line, sizeof line, "  %-7s %s\n", mark, e.text.c_str());
    out += line;
  }
  out += failed == 0 ? "result: every expectation holds\n"
                     : "result: " + std::to_string(failed) + " expectation(s) do not hold\n";
  return out;
}

Json run_report_json(sim::ScenarioRun& run, double wall_seconds) {
  const sim::Verdicts v = run.verdicts();
  Json::Object o;
  o["scenario"] = run.scenario().name;
  o["file"] = run.scenario().file;
  o["variant"] = run.scenario().variant;
  o["seed"] = static_cast<int64_t>(run.seed());
  o["fingerprint"] = run.fingerprint();
  o["virtual_seconds"] = static_cast<double>(run.now().us) / 1e6;
  o["wall_seconds"] = wall_seconds;
  o["events"] = static_cast<int64_t>(run.sim().events_emitted());
  o["acked_records"] = v.acked;
  o["finished"] = v.finished;
  o["ok"] = v.all_hold();
  Json::Array checkers;
  for (const auto& c : v.checkers) {
    Json::Object j;
    j["name"] = c.name;
    j["verdict"] = std::string(c.state == sim::CheckerState::kFail ? "fail" : sim::checker_state_name(c.state));
    if (c.violation) {
      j["time_us"] = c.violation->time.us;
      j["message"] = c.violation->message;
      Json::Array ctx;
      for (const auto& line : c.violation->context) ctx.push_back(line);
      j["context"] = std::move(ctx);
    }
    checkers.push_back(std::move(j));
  }
  o["checkers"] = std::move(checkers);
  Json::Object availability;
  for (const auto& [topic, f] : v.availability) {
    Json::Object j;
    j["unavailable_max_us"] = f.unavailable_max.us;
    j["leaderless_max_us"] = f.leaderless_max.us;
    j["leaderless_partition"] = f.leaderless_partition;
    j["under_replicated_max_us"] = f.under_replicated_max.us;
    j["under_replicated_partition"] = f.under_replicated_partition;
    availability[topic] = std::move(j);
  }
  o["availability"] = std::move(availability);
  Json::Array expectations;
  for (const auto& e : v.expectations) {
    Json::Object j;
    j["expect"] = e.text;
    j["holds"] = e.holds ? Json(*e.holds) : Json();
    expectations.push_back(std::move(j));
  }
  o["expectations"] = std::move(expectations);
  Json::Array timeline;
  for (const auto& t : run.timeline().entries()) {
    Json::Object j;
    j["time_us"] = t.time.us;
    j["kind"] = t.kind;
    j["text"] = t.text;
    timeline.push_back(std::move(j));
  }
  o["timeline"] = std::move(timeline);
  Json::Array faults;
  for (const auto& f : run.applied()) {
    Json::Object j;
    j["time_us"] = f.at.us;
    j["fault"] = f.describe();
    Json::Array hit;
    for (const auto& n : f.resolved) hit.push_back(n);
    j["hit"] = std::move(hit);
    faults.push_back(std::move(j));
  }
  o["faults"] = std::move(faults);
  return Json(std::move(o));
}

std::string replay_command(const std::string& file, uint64_t seed, const std::string& variant) {
  std::string c = "gregor run " + file + " --seed " + std::to_string(seed);
  if (!variant.empty()) c += " --variant " + variant;
  return c;
}

}  // namespace gregor::app
