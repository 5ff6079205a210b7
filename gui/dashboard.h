// Dashboard: the whole window of `gregor gui`: a toolbar with playback and the health strip; the
// cluster graph and the fault panel on the left; the partition view, the kafka-topics table, the
// consumer groups and the event log as tabs in the middle; the story and the checker verdicts on
// the right; the timeline at the bottom. Panels are laid out from the window size each frame
// (Debian's ImGui 1.86 has no docking), so a screenshot at a given size is always the same layout.
//
// The window itself (GLFW + OpenGL 3, screenshots, frame timing) is gui/window.h; this class only
// issues ImGui calls, so tests drive it with no window at all (gui/headless.h).
#pragma once

#include <memory>
#include <string>

#include "gui/dashboard_model.h"
#include "gui/session.h"

namespace gregor::gui {

struct UiState;

struct DashboardOptions {
  std::string view = "partition";  // the middle tab first shown: partition, topics, groups, zk, events
  std::string topic;               // the partition the partition view first shows
  int32_t partition = 0;
  std::string font_path;           // a TTF; empty: DejaVu Sans when installed, else ImGui's own
  float font_size = 15;
};

// Whether `name` is one of the middle tabs (partition, topics, groups, zk, events).
bool center_view_known(const std::string& name);

class Dashboard {
 public:
  Dashboard(std::unique_ptr<Session> session, DashboardOptions options);
  ~Dashboard();

  Session& session() { return *session_; }
  const DashboardOptions& options() const { return options_; }
  // Adds the fonts to the current ImGui context's atlas (before it is built) and sets the style.
  void setup_style() const;
  // Advances playback by wall_seconds, draws every panel for a display of width x height, and
  // carries out what the user asked for. REQUIRES: inside ImGui::NewFrame() ... ImGui::Render().
  void frame(double wall_seconds, float width, float height);
  // The model drawn by the last frame.
  const DashboardModel& model() const { return model_; }
  // Selects the middle tab (partition, topics, groups, zk, events); false for an unknown name.
  bool show_view(const std::string& name);
  // The partition the partition view shows ("orders-0"); empty before the first frame draws it.
  std::string shown_partition() const;
  // Where the cluster graph drew a node in the last frame (screen coordinates).
  bool node_screen_position(int32_t node, float* x, float* y) const;

 private:
  void apply_requests();

  std::unique_ptr<Session> session_;
  DashboardOptions options_;
  std::unique_ptr<UiState> ui_;
  DashboardModel model_;
};

}  // namespace gregor::gui
