// Headless frames: runs the dashboard's ImGui frames with no window and no GPU (the font atlas is
// built on the CPU, draw data is produced and thrown away). Tests drive every view this way, with
// scripted mouse input, and check what the views asked for.
#pragma once

#include <functional>
#include <memory>

#include "gui/dashboard.h"

namespace gregor::gui {

struct HeadlessInput {
  float mouse_x = -1, mouse_y = -1;
  bool left = false, right = false;
  bool ctrl = false;
};

struct HeadlessReport {
  int frames = 0;
  bool draw_data_valid = false;
  int draw_lists = 0;
  int vertices = 0;
};

// Owns an ImGui context for the dashboard (one at a time per process).
class HeadlessDriver {
 public:
  HeadlessDriver(Dashboard& dashboard, float width, float height);
  ~HeadlessDriver();
  HeadlessDriver(const HeadlessDriver&) = delete;
  HeadlessDriver& operator=(const HeadlessDriver&) = delete;

  // One frame with this input (wall_seconds of playback).
  HeadlessReport frame(const HeadlessInput& input = {}, double wall_seconds = 1.0 / 60);
  // Frames until the layout settles (tabs and popups take a frame or two).
  HeadlessReport settle(int frames = 3);

  // Where the cluster graph drew a node last frame (screen coordinates), if it did.
  bool node_position(int32_t node, float* x, float* y) const;
  // The rectangle of the item `label` inside the open popup, as ImGui laid it out last frame.
  bool popup_item(const char* label, float* x, float* y) const;
  // Whether a window with this name was drawn last frame.
  bool has_window(const char* name) const;

 private:
  Dashboard& dashboard_;
  float width_, height_;
  void* context_ = nullptr;
};

}  // namespace gregor::gui
