#include "gui/session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "engine/broker/broker_config.h"

namespace gregor::gui {

namespace {

// A step runs the world one loop event at a time until it emits; this bounds a silent world.
constexpr uint64_t kStepLoopEventsMax = 1'000'000;

// The broker-level settings a trace's run info records, read as a broker reads its configs; a
// value a broker would refuse keeps the default.
ModelDefaults defaults_from(const std::map<std::string, std::string>& info) {
  broker::BrokerConfig c;
  for (const char* key : {"min.insync.replicas", "unclean.leader.election.enable", "replica.lag.time.max.ms"}) {
    auto it = info.find(key);
    if (it != info.end()) (void)c.apply({{key, it->second}});
  }
  ModelDefaults d;
  d.min_insync_replicas = c.topic_defaults.min_insync_replicas;
  d.unclean_leader_election = c.topic_defaults.unclean_leader_election_enable;
  d.replica_lag_time_max_ms = c.replica_lag_time_max_ms;
  return d;
}

}  // namespace

std::vector<StoryStep> parse_story(const std::string& text) {
  std::vector<StoryStep> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    const std::string line = text.substr(i, j - i);
    const size_t tab = line.find('\t');
    // A step starts with its time (digits) and a tab; other lines continue the step before.
    const bool starts = tab != std::string::npos && tab > 0 &&
                        line.find_first_not_of("0123456789") == tab;
    if (starts) out.push_back({Time{std::strtoll(line.c_str(), nullptr, 10)}, line.substr(tab + 1)});
    else if (!out.empty()) out.back().text += "\n" + line;
    i = j + 1;
  }
  return out;
}

std::string format_story(const std::vector<StoryStep>& story) {
  std::string s;
  for (const auto& step : story) {
    std::string text = step.text;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    s += std::to_string(step.at.us) + "\t" + text + "\n";
  }
  return s;
}

namespace {

bool list_item(const std::string& line) {
  if (line.size() >= 2 && (line[0] == '-' || line[0] == '*') && line[1] == ' ') return true;
  size_t d = 0;
  while (d < line.size() && d < 3 && line[d] >= '0' && line[d] <= '9') d++;
  return d > 0 && d + 1 < line.size() && (line[d] == '.' || line[d] == ')') && line[d + 1] == ' ';
}

}  // namespace

std::string unwrap_paragraphs(const std::string& text) {
  std::string out;
  bool at_line_start = true;  // a new line starts here (the text's start, or after a blank line)
  bool in_item = false;       // the current line is a list item or its continuation
  size_t i = 0;
  while (i <= text.size()) {
    size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    std::string line = text.substr(i, j - i);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    const bool indented = !line.empty() && (line[0] == ' ' || line[0] == '\t');
    if (line.empty()) {
      // A paragraph break: one empty line, however many there were.
      while (!out.empty() && out.back() == '\n') out.pop_back();
      if (!out.empty()) out += "\n\n";
      at_line_start = true;
      in_item = false;
    } else if (in_item && indented && !list_item(line.substr(line.find_first_not_of(" \t")))) {
      // A list item's wrapped continuation ("1. ...\n   more").
      out += ' ';
      out += line.substr(line.find_first_not_of(" \t"));
    } else if (at_line_start || list_item(line) || indented) {
      if (!at_line_start) out += '\n';
      out += line;
      at_line_start = false;
      in_item = list_item(line);
    } else {
      out += ' ';
      out += line;
    }
    if (j == text.size()) break;
    i = j + 1;
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

Result<Time> parse_time(const std::string& text) {
  if (text.empty()) return Status::error(StatusCode::kInvalidArgument, "empty time");
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const std::string unit(end);
  double scale = 1e6;
  if (unit == "ms") scale = 1e3;
  else if (unit == "us") scale = 1;
  else if (unit == "m" || unit == "min") scale = 60e6;
  else if (!unit.empty() && unit != "s") return Status::error(StatusCode::kInvalidArgument, "bad time '" + text + "' (20, 20s, 1500ms)");
  if (end == text.c_str() || !(v >= 0)) return Status::error(StatusCode::kInvalidArgument, "bad time '" + text + "'");
  return Time{static_cast<int64_t>(std::llround(v * scale))};
}

Result<std::unique_ptr<Session>> Session::live(RunnerFactory factory, uint64_t seed) {
  std::unique_ptr<Session> s(new Session());
  s->factory_ = factory;
  s->seed_ = seed;
  auto history = std::make_unique<History>();
  History* h = history.get();
  Session* self = s.get();
  auto runner = factory(seed, [h, self](const TraceEvent& e) {
    h->add(e);
    if (self->recorder_) self->recorder_->record(e);
  });
  if (!runner.is_ok()) return runner.status();
  history->set_defaults((*runner)->defaults());
  s->attach(std::move(runner).value(), std::move(history));
  return s;
}

Result<std::unique_ptr<Session>> Session::replay(const std::string& trace_path) {
  auto file = trace::read_trace(trace_path);
  if (!file.is_ok()) return file.status();
  std::string title = trace_path;
  auto slash = title.rfind('/');
  if (slash != std::string::npos) title = title.substr(slash + 1);
  return replay(std::move(file).value(), "replay: " + title);
}

std::unique_ptr<Session> Session::replay(trace::TraceFile file, std::string title) {
  std::unique_ptr<Session> s(new Session());
  s->run_info_ = file.run_info;
  s->title_ = std::move(title);
  auto name = file.run_info.find("scenario_name");
  if (name != file.run_info.end()) s->title_ += " (" + name->second + ")";
  auto seed = file.run_info.find("seed");
  if (seed != file.run_info.end()) s->seed_ = std::strtoull(seed->second.c_str(), nullptr, 10);
  auto story = file.run_info.find("story");
  if (story != file.run_info.end()) s->replay_story_ = parse_story(story->second);
  s->history_ = std::make_unique<History>(defaults_from(file.run_info), std::max<size_t>(file.events.size(), 1));
  for (const auto& e : file.events) s->history_->add(e);
  Time end = s->history_->last_time();
  auto end_info = file.run_info.find("end_us");
  if (end_info != file.run_info.end()) end = std::max(end, Time{std::strtoll(end_info->second.c_str(), nullptr, 10)});
  s->history_->finish(end);
  s->view_ = Time{0};
  return s;
}

Session::~Session() {
  if (recorder_) (void)recorder_->close();
  // The runner's listener points into the history: the runner goes first.
  runner_.reset();
}

void Session::attach(std::unique_ptr<LiveRunner> runner, std::unique_ptr<History> history) {
  runner_.reset();
  runner_ = std::move(runner);
  history_ = std::move(history);
  title_ = runner_->name();
  view_ = runner_->now();
}

std::string Session::title() const { return title_; }

uint64_t Session::seed() const { return runner_ ? runner_->seed() : seed_; }

Time Session::head_time() const { return runner_ ? runner_->now() : history_->end_time(); }

Time Session::end_time() const { return runner_ ? runner_->end_time() : history_->end_time(); }

Duration Session::traffic_window() const {
  const double us = std::clamp(speed * 0.6e6, 2e3, 3e6);
  return Duration{static_cast<int64_t>(us)};
}

void Session::tick(double wall_seconds, double budget_ms) {
  if (!playing) return;
  const Time target = view_ + Duration{static_cast<int64_t>(speed * wall_seconds * 1e6)};
  if (!runner_) {
    view_ = std::min(target, end_time());
    if (view_ >= end_time()) playing = false;
    return;
  }
  if (view_ < runner_->now()) {
    // Playing through the past of a live run: history only, until the view reaches the world.
    view_ = std::min(target, runner_->now());
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  const Duration slice = std::max(Duration::millis(1), (target - runner_->now()) / 8);
  while (runner_->now() < target && !runner_->finished()) {
    runner_->run_until(std::min(target, runner_->now() + slice));
    const double spent = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (spent > budget_ms) break;
  }
  view_ = runner_->now();
  if (runner_->finished()) {
    history_->finish(runner_->end_time());
    playing = false;
  }
}

void Session::step() {
  const auto& events = history_->events();
  if (!runner_ || view_ < runner_->now()) {
    const size_t n = history_->events_until(view_);
    if (n < events.size()) view_ = events[n].time;
    return;
  }
  if (runner_->finished()) return;
  const uint64_t before = history_->head().applied();
  auto& loop = runner_->sim().loop();
  for (uint64_t i = 0; i < kStepLoopEventsMax && history_->head().applied() == before; i++) {
    if (loop.run_events(1) != sim::RunOutcome::kEventCountReached) break;
    if (loop.now() >= runner_->end_time()) break;
  }
  // Finish the whole instant, so that the world is where a run_until to this time leaves it (a
  // later fork replays actions with run_until).
  runner_->run_until(loop.now());
  view_ = runner_->now();
  if (runner_->finished()) history_->finish(runner_->end_time());
}

void Session::seek(Time t) { view_ = std::clamp(t, Time{0}, head_time()); }

void Session::run_to(Time t) {
  if (runner_) {
    runner_->run_until(t);
    if (runner_->finished()) history_->finish(runner_->end_time());
    view_ = runner_->now();
  } else {
    seek(t);
  }
}

Status Session::act(UserAction a) {
  if (!runner_) return Status::error(StatusCode::kInvalidArgument, "a replay is read-only: open the scenario live to act");
  if (runner_->finished()) return Status::error(StatusCode::kInvalidArgument, "the run has ended");
  if (in_past()) {
    Status f = fork_here();
    if (!f.is_ok()) return f;
  }
  Status s = runner_->apply(a);
  view_ = runner_->now();  // the action moved the world to its quiet instant
  if (s.is_ok()) {
    history_->add_user_marker(runner_->now(), runner_->applied().back().describe());
    message = format_time(runner_->now()) + ": " + runner_->applied().back().describe();
  } else {
    message = s.to_string();
  }
  return s;
}

Status Session::fork_here() {
  if (!runner_) return Status::error(StatusCode::kInvalidArgument, "a replay cannot fork");
  const Time t = view_;
  if (recorder_) {
    (void)recorder_->close();
    recorder_.reset();
  }
  auto history = std::make_unique<History>(runner_->defaults());
  History* h = history.get();
  auto forked = runner_->fork(t, [h](const TraceEvent& e) { h->add(e); });
  for (const auto& a : forked->applied()) history->add_user_marker(a.at, a.describe());
  attach(std::move(forked), std::move(history));
  message = "forked at " + format_time(t) + ": what came after is gone";
  return Status::ok();
}

DashboardModel Session::model() const { return history_->model_at(view_, traffic_window()); }

std::vector<StoryStep> Session::story() const { return runner_ ? runner_->story() : replay_story_; }

std::vector<std::pair<Time, std::string>> Session::schedule() const {
  return runner_ ? runner_->schedule() : std::vector<std::pair<Time, std::string>>{};
}

std::map<std::string, std::string> Session::settings() const {
  if (runner_) return runner_->settings();
  std::map<std::string, std::string> out;
  for (const char* k : {"acks", "min.insync.replicas", "unclean.leader.election.enable"}) {
    auto it = run_info_.find(k);
    if (it != run_info_.end()) out[k] = it->second;
  }
  return out;
}

std::vector<ExpectationVerdict> Session::expectations() const {
  return runner_ ? runner_->expectations() : std::vector<ExpectationVerdict>{};
}

Status Session::save_scenario(const std::string& path) const {
  if (!runner_) return Status::error(StatusCode::kInvalidArgument, "a replay has no session to save");
  auto text = runner_->scenario_text();
  if (!text.is_ok()) return text.status();
  std::ofstream out(path, std::ios::trunc);
  out << *text;
  out.close();
  if (!out) return Status::error(StatusCode::kIoError, "cannot write " + path);
  return Status::ok();
}

Status Session::record_to(const std::string& path) {
  if (!runner_) return Status::error(StatusCode::kInvalidArgument, "only a live session records");
  std::map<std::string, std::string> info = runner_->settings();
  ModelDefaults d = runner_->defaults();
  info["replica.lag.time.max.ms"] = std::to_string(d.replica_lag_time_max_ms);
  info["min.insync.replicas"] = std::to_string(d.min_insync_replicas);
  info["unclean.leader.election.enable"] = d.unclean_leader_election ? "true" : "false";
  info["scenario_name"] = runner_->name();
  info["seed"] = std::to_string(runner_->seed());
  info["runtime"] = "sim";
  info["story"] = format_story(runner_->story());
  info["end_us"] = std::to_string(runner_->end_time().us);
  auto rec = trace::TraceRecorder::open(path, info);
  if (!rec.is_ok()) return rec.status();
  recorder_ = std::move(rec).value();
  // What already happened goes in first, so the file is the whole run.
  for (const auto& e : history_->events()) recorder_->record(e);
  return Status::ok();
}

Status Session::close_recording() {
  if (!recorder_) return Status::ok();
  Status s = recorder_->close();
  recorder_.reset();
  return s;
}

}  // namespace gregor::gui
