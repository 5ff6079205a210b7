// The dashboard's window: GLFW with an OpenGL 3.3 core context, Dear ImGui's GLFW and OpenGL 3
// backends, and the frame loop. It also takes screenshots (glReadPixels before the buffer swap,
// flipped, written with stb_image_write) and measures frame times, both usable headless under
// Xvfb with Mesa's llvmpipe software renderer.
#pragma once

#include <string>
#include <vector>

#include "engine/core/status.h"
#include "gui/dashboard.h"

namespace gregor::gui {

struct WindowOptions {
  int width = 1600, height = 900;
  bool hidden = false;
  // Write the frame to this PNG after settle_frames frames, then return.
  std::string screenshot_path;
  int settle_frames = 4;
  // Render this many frames (playing when bench_play), measure them, then return.
  int bench_frames = 0;
  bool bench_play = false;
};

struct WindowReport {
  int frames = 0;
  double mean_frame_ms = 0, median_frame_ms = 0, p95_frame_ms = 0, p99_frame_ms = 0, max_frame_ms = 0;
  // The median of the frames' CPU part: the session, the model and the ImGui calls (the rest is
  // OpenGL drawing, which Mesa's llvmpipe also does on the CPU).
  double median_ui_ms = 0;
  // The baseline, measured in the same run after the dashboard's frames: as many frames of the same
  // window with one small ImGui window and nothing else (clear, draw, swap, glFinish): the floor
  // the renderer sets on this machine today.
  double median_baseline_ms = 0;
  int vertices = 0;  // ImGui vertices in the last dashboard frame
  std::string renderer;  // GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
  int framebuffer_width = 0, framebuffer_height = 0;
};

// True when an X11 or Wayland display is set (GLFW can open a window).
bool display_available();

// Opens the window and runs the dashboard until it is closed, the screenshot is written or the
// benchmark frames are done.
Status run_window(Dashboard& dashboard, const WindowOptions& options, WindowReport* report = nullptr);

// Writes RGBA pixels (top row first) as a PNG.
Status write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgba);

}  // namespace gregor::gui
