// The dashboard's views. Each draws from a DashboardModel snapshot (and the History for timelines)
// inside the current ImGui window, and never changes the world: what the user asks for is left in
// UiState (actions, a seek, a selection) and carried out by the dashboard after the frame.
//
// This header is for gui/ sources only (it includes <imgui.h>).
#pragma once

#include <imgui.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gui/dashboard_model.h"
#include "gui/history.h"
#include "gui/live_runner.h"

namespace gregor::gui {

enum class CenterView { kPartition, kTopics, kGroups, kTxn, kZk, kEvents };
const char* center_view_name(CenterView v);
std::optional<CenterView> center_view_from(const std::string& name);

// What the views remember between frames, and what they ask for.
struct UiState {
  // Selection.
  std::set<int32_t> selected_nodes;
  std::string topic;  // the partition shown in the partition view
  int32_t partition = 0;
  bool partition_chosen = false;
  // Internal topics (__consumer_offsets) in the partition picker, the topics table, the health
  // counts and the timeline; folded away by default so that the scenario's own topics tell the story.
  bool show_internal = false;
  // The center tab, and a request to switch to one (tabs are selected by ImGui otherwise).
  CenterView center = CenterView::kPartition;
  std::optional<CenterView> center_request;
  // Topics table filters (kafka-topics --describe flags) and the plain-text form.
  bool only_under_replicated = false, only_under_min_isr = false, only_at_min_isr = false,
       only_unavailable = false, cli_text = false;
  // ZooKeeper view: the znode whose details show, and whether the activity list keeps to it.
  std::string zk_selected;
  bool zk_only_selected = false;
  // Event log.
  char event_filter[128] = "";
  int event_category = 0;
  bool events_follow = true;
  // Partition view: the first offset shown, or -1 to follow the log's tail.
  int64_t window_start = -1;
  // Fault panel inputs.
  int acks_choice = 2;  // 0, 1, all
  int min_isr_choice = 2;
  bool unclean_choice = false;
  // The first topic's values as last shown: when the brokers' values change (a set-config entry,
  // an applied control), the controls follow them.
  int shown_min_isr = -1;
  int shown_unclean = -1;
  bool settings_loaded = false;
  char save_path[256] = "session.yaml";

  // Where the cluster graph drew each node last frame (for tests that click them).
  std::map<int32_t, ImVec2> node_positions;

  // Requests from this frame.
  std::vector<UserAction> actions;
  std::optional<Time> seek;
  bool fork = false, back_to_live = false, save = false;
  bool toggle_play = false, step = false;
  std::optional<double> speed;
};

// What the views know about the session besides the snapshot.
struct ViewContext {
  bool live = false;
  bool in_past = false;
  bool playing = false;
  double speed = 1;
  Time head{0};
  Time end{0};
  std::string title;
  uint64_t seed = 0;
  std::string message;
  const History* history = nullptr;
  std::vector<StoryStep> story;
  std::vector<std::pair<Time, std::string>> schedule;
  std::map<std::string, std::string> settings;
  std::vector<ExpectationVerdict> expectations;
  std::vector<UserAction> applied;
  int64_t replica_lag_time_max_ms = 30000;
};

void draw_toolbar(const DashboardModel& m, const ViewContext& c, UiState& ui);
void draw_cluster_graph(const DashboardModel& m, const ViewContext& c, UiState& ui);
void draw_fault_panel(const DashboardModel& m, const ViewContext& c, UiState& ui);
void draw_partition_view(const DashboardModel& m, const ViewContext& c, UiState& ui);
void draw_topics_table(const DashboardModel& m, const ViewContext& c, UiState& ui);
void draw_groups_view(const DashboardModel& m, const ViewContext& c, UiState& ui);
// One ZooKeeper-coordinated group's part of the Groups tab (gui/view_zk_group.cpp).
void draw_zk_group(const DashboardModel& m, const GroupModel& g);
void draw_txn_view(const DashboardModel& m, const ViewContext& c, UiState& ui);
void draw_zk_view(const DashboardModel& m, const ViewContext& c, UiState& ui);
void draw_event_log(const DashboardModel& m, const ViewContext& c, UiState& ui);
void draw_story(const DashboardModel& m, const ViewContext& c, UiState& ui);
void draw_verdicts(const DashboardModel& m, const ViewContext& c, UiState& ui);
void draw_timeline(const DashboardModel& m, const ViewContext& c, UiState& ui);

// Shared drawing helpers (gui/palette.cpp).
ImU32 epoch_color(int32_t epoch, float alpha = 1.0f);
ImU32 node_status_color(const NodeModel& n);
ImU32 traffic_color(TrafficKind k);
ImVec4 verdict_color(VerdictState s);
ImU32 marker_color(MarkerKind k);
ImU32 txn_state_color(const std::string& state);  // Kafka's transaction states (gui/view_txn.cpp)
// Shades fault periods over [x0, x1] for the times [t0, t1] (Jepsen's nemesis shading).
void shade_fault_periods(ImDrawList* dl, const History& h, Time t0, Time t1, ImVec2 top_left, ImVec2 bottom_right);
std::string seconds_text(Time t);  // "12.345 s"
std::string node_label(const DashboardModel& m, int32_t id);
std::string int_list_text(const std::vector<int32_t>& v);  // "1,2,3"
std::string session_hex(int64_t session);                // a zk session id as ZooKeeper prints it: "0x<hex>"
// The "internal topics" toggle, drawn where the internal partitions would be listed; nothing when
// the model has none.
void internal_topics_toggle(const DashboardModel& m, UiState& ui);

}  // namespace gregor::gui
