// Session: one dashboard session, live (a LiveRunner, events flowing into a History as the world
// runs) or replay (a recorded trace loaded into a History). It owns playback: the view time, play
// and pause, single step, speed, seeking, and, live, turning user actions into commands for the
// runner. Looking at the past of a live run is a seek into its History; acting there forks the
// run from that time (the same seed and the actions before it, as RaftScope's "fork playback").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gui/history.h"
#include "gui/live_runner.h"
#include "trace/recorder.h"

namespace gregor::gui {

class Session {
 public:
  // Speeds are virtual seconds per wall second; the slider is logarithmic between these.
  static constexpr double kSpeedMin = 0.001;
  static constexpr double kSpeedMax = 100.0;

  static Result<std::unique_ptr<Session>> live(RunnerFactory factory, uint64_t seed);
  static Result<std::unique_ptr<Session>> replay(const std::string& trace_path);
  static std::unique_ptr<Session> replay(trace::TraceFile file, std::string title);
  ~Session();

  bool is_live() const { return runner_ != nullptr; }
  std::string title() const;
  uint64_t seed() const;
  const History& history() const { return *history_; }
  LiveRunner* runner() { return runner_.get(); }
  const LiveRunner* runner() const { return runner_.get(); }

  Time view_time() const { return view_; }
  // The newest time there is: the live world's clock, or the end of the trace.
  Time head_time() const;
  Time end_time() const;
  // Live, and the view is behind the world: the user is looking at the past.
  bool in_past() const { return is_live() && view_ < head_time(); }

  // Playback.
  bool playing = false;
  double speed = 1.0;
  // Advances the view by speed * wall_seconds (running the live world as needed), spending at
  // most budget_ms of wall time on simulation in this call.
  void tick(double wall_seconds, double budget_ms = 25);
  // To the time of the next event (running the live world until it emits one).
  void step();
  void seek(Time t);
  // Headless: runs the live world (or seeks the replay) to t and looks there.
  void run_to(Time t);
  // The virtual time window whose messages are drawn in flight, for the current speed.
  Duration traffic_window() const;

  // Live only. Applies the action at the view time (forking first when it is in the past).
  Status act(UserAction a);
  // Live only: drop everything after the view time and continue from there.
  Status fork_here();
  void back_to_live() { view_ = head_time(); }

  DashboardModel model() const;
  std::vector<StoryStep> story() const;
  std::vector<std::pair<Time, std::string>> schedule() const;
  std::map<std::string, std::string> settings() const;
  std::vector<ExpectationVerdict> expectations() const;
  // Live: the session as a scenario file with the user's actions in its fault schedule.
  Status save_scenario(const std::string& path) const;
  // Live: also writes every event to a trace file from now on (with the run metadata); replay
  // sessions can open it later.
  Status record_to(const std::string& path);
  Status close_recording();

  // The last outcome of an action, shown in the status line.
  std::string message;

 private:
  Session() = default;
  void attach(std::unique_ptr<LiveRunner> runner, std::unique_ptr<History> history);
  void on_event(const TraceEvent& e);

  RunnerFactory factory_;
  uint64_t seed_ = 0;
  std::unique_ptr<History> history_;
  std::unique_ptr<LiveRunner> runner_;
  std::unique_ptr<trace::TraceRecorder> recorder_;
  Time view_{0};
  std::string title_;
  std::vector<StoryStep> replay_story_;
  std::map<std::string, std::string> run_info_;
};

// Parses "20", "20s", "1500ms", "2.5s" into a virtual time.
Result<Time> parse_time(const std::string& text);

// A scenario's story is YAML text wrapped by hand at ~100 columns; ImGui wraps it again to the
// panel's width, so the hand breaks would show as ragged lines. This joins the lines of each
// paragraph with spaces, and keeps what the line breaks mean: blank lines between paragraphs,
// list items ("1. ", "2) ", "- ", "* ") and indented lines (examples) on lines of their own.
std::string unwrap_paragraphs(const std::string& text);

// The story as a recorded trace stores it (run key "story"): one "time_us<TAB>text" entry per
// step, a step's text going on over the following lines that have no tab.
std::string format_story(const std::vector<StoryStep>& story);
std::vector<StoryStep> parse_story(const std::string& text);

}  // namespace gregor::gui
