#include "gui/window.h"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gregor::gui {

namespace {

std::string glfw_error;

void on_glfw_error(int code, const char* text) { glfw_error = "GLFW error " + std::to_string(code) + ": " + text; }

}  // namespace

bool display_available() {
  const char* x = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
}

Status write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgba) {
  if (width <= 0 || height <= 0 || rgba.size() < static_cast<size_t>(width) * static_cast<size_t>(height) * 4)
    return Status::error(StatusCode::kInvalidArgument, "write_png: bad image size");
  if (!stbi_write_png(path.c_str(), width, height, 4, rgba.data(), width * 4))
    return Status::error(StatusCode::kIoError, "cannot write " + path);
  return Status::ok();
}

Status run_window(Dashboard& dashboard, const WindowOptions& options, WindowReport* report) {
  if (!display_available()) return Status::error(StatusCode::kUnavailable, "no display (DISPLAY is not set); try xvfb-run -a");
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) return Status::error(StatusCode::kUnavailable, "glfwInit failed: " + glfw_error);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_VISIBLE, options.hidden ? GLFW_FALSE : GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(options.width, options.height, "Gregor dashboard", nullptr, nullptr);
  if (!window) {
    glfwTerminate();
    return Status::error(StatusCode::kUnavailable, "cannot open an OpenGL 3.3 window: " + glfw_error);
  }
  glfwMakeContextCurrent(window);
  const bool measuring = options.bench_frames > 0 || !options.screenshot_path.empty();
  glfwSwapInterval(measuring ? 0 : 1);  // vsync for people, none for measurements

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  dashboard.setup_style();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  WindowReport r;
  if (const GLubyte* name = glGetString(GL_RENDERER)) r.renderer = reinterpret_cast<const char*>(name);
  if (options.bench_frames > 0 && options.bench_play) dashboard.session().playing = true;

  Status result = Status::ok();
  std::vector<double> frame_ms, ui_ms, baseline_ms;
  int frame = 0;
  auto last = std::chrono::steady_clock::now();
  while (!glfwWindowShouldClose(window)) {
    const auto start = std::chrono::steady_clock::now();
    glfwPollEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    // Measured runs advance by a fixed 1/60 s per frame, so they do not depend on the machine.
    const double dt = measuring ? 1.0 / 60 : std::chrono::duration<double>(start - last).count();
    last = start;
    int w = 0, h = 0;
    glfwGetFramebufferSize(window, &w, &h);
    const bool baseline = options.bench_frames > 0 && static_cast<int>(frame_ms.size()) >= options.bench_frames;
    if (baseline) {
      ImGui::Begin("baseline");
      ImGui::TextUnformatted("an empty frame");
      ImGui::End();
    } else {
      dashboard.frame(std::min(dt, 0.1), static_cast<float>(w), static_cast<float>(h));
    }
    ImGui::Render();
    if (options.bench_frames > 0 && !baseline) r.vertices = ImGui::GetDrawData()->TotalVtxCount;
    if (options.bench_frames > 0 && !baseline) ui_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    glViewport(0, 0, w, h);
    glClearColor(0.08f, 0.08f, 0.10f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    frame++;
    if (!options.screenshot_path.empty() && frame >= options.settle_frames) {
      // Read the back buffer before the swap leaves it undefined; GL's rows go bottom-up.
      std::vector<unsigned char> pixels(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
      glPixelStorei(GL_PACK_ALIGNMENT, 1);
      glReadBuffer(GL_BACK);
      glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
      std::vector<unsigned char> flipped(pixels.size());
      const size_t row = static_cast<size_t>(w) * 4;
      for (int y = 0; y < h; y++)
        std::memcpy(flipped.data() + static_cast<size_t>(y) * row, pixels.data() + static_cast<size_t>(h - 1 - y) * row, row);
      result = write_png(options.screenshot_path, w, h, flipped);
      r.framebuffer_width = w;
      r.framebuffer_height = h;
      break;
    }
    glfwSwapBuffers(window);
    if (options.bench_frames > 0) {
      glFinish();
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      (baseline ? baseline_ms : frame_ms).push_back(ms);
      if (static_cast<int>(baseline_ms.size()) >= options.bench_frames) break;
    }
  }
  r.frames = options.bench_frames > 0 ? static_cast<int>(frame_ms.size()) : frame;
  if (!frame_ms.empty()) {
    double sum = 0;
    for (double v : frame_ms) sum += v;
    r.mean_frame_ms = sum / static_cast<double>(frame_ms.size());
    std::vector<double> sorted = frame_ms;
    std::sort(sorted.begin(), sorted.end());
    auto quantile = [&](size_t percent) { return sorted[std::min(sorted.size() - 1, sorted.size() * percent / 100)]; };
    r.median_frame_ms = quantile(50);
    std::sort(ui_ms.begin(), ui_ms.end());
    if (!ui_ms.empty()) r.median_ui_ms = ui_ms[ui_ms.size() / 2];
    std::sort(baseline_ms.begin(), baseline_ms.end());
    if (!baseline_ms.empty()) r.median_baseline_ms = baseline_ms[baseline_ms.size() / 2];
    r.p95_frame_ms = quantile(95);
    r.p99_frame_ms = quantile(99);
    r.max_frame_ms = sorted.back();
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  if (report) *report = r;
  return result;
}

}  // namespace gregor::gui
