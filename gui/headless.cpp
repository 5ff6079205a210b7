#include "gui/headless.h"

#include <imgui.h>
#include <imgui_internal.h>

#include "engine/core/assert.h"

namespace gregor::gui {

HeadlessDriver::HeadlessDriver(Dashboard& dashboard, float width, float height)
    : dashboard_(dashboard), width_(width), height_(height) {
  GREGOR_ASSERT_MSG(ImGui::GetCurrentContext() == nullptr, "one ImGui context at a time");
  ImGuiContext* ctx = ImGui::CreateContext();
  context_ = ctx;
  dashboard_.setup_style();
  ImGuiIO& io = ImGui::GetIO();
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // builds the atlas on the CPU
  io.Fonts->SetTexID(nullptr);
  io.DisplaySize = ImVec2(width_, height_);
}

HeadlessDriver::~HeadlessDriver() { ImGui::DestroyContext(static_cast<ImGuiContext*>(context_)); }

HeadlessReport HeadlessDriver::frame(const HeadlessInput& input, double wall_seconds) {
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(width_, height_);
  io.DeltaTime = 1.0f / 60;
  io.MousePos = ImVec2(input.mouse_x, input.mouse_y);
  io.MouseDown[0] = input.left;
  io.MouseDown[1] = input.right;
  io.KeyCtrl = input.ctrl;
  ImGui::NewFrame();
  dashboard_.frame(wall_seconds, width_, height_);
  ImGui::Render();
  HeadlessReport r;
  r.frames = 1;
  ImDrawData* d = ImGui::GetDrawData();
  r.draw_data_valid = d && d->Valid;
  if (d) {
    r.draw_lists = d->CmdListsCount;
    r.vertices = d->TotalVtxCount;
  }
  return r;
}

HeadlessReport HeadlessDriver::settle(int frames) {
  HeadlessReport r;
  for (int i = 0; i < frames; i++) {
    r = frame({}, 0);
    r.frames = i + 1;
  }
  return r;
}

bool HeadlessDriver::node_position(int32_t node, float* x, float* y) const { return dashboard_.node_screen_position(node, x, y); }

bool HeadlessDriver::popup_item(const char* label, float* x, float* y) const {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  if (g.OpenPopupStack.empty() || !g.OpenPopupStack.back().Window) return false;
  ImGuiWindow* popup = g.OpenPopupStack.back().Window;
  const ImGuiID id = ImHashStr(label, 0, popup->ID);
  // Sweep the popup from top to bottom, hovering without clicking, until the item is hovered.
  auto* self = const_cast<HeadlessDriver*>(this);
  const float cx = popup->Pos.x + popup->Size.x * 0.5f;
  for (float py = popup->Pos.y + 1; py < popup->Pos.y + popup->Size.y; py += 2) {
    HeadlessInput in;
    in.mouse_x = cx;
    in.mouse_y = py;
    self->frame(in, 0);
    if (g.HoveredId == id) {
      *x = cx;
      *y = py;
      return true;
    }
  }
  return false;
}

bool HeadlessDriver::has_window(const char* name) const {
  ImGuiWindow* w = ImGui::FindWindowByName(name);
  return w && w->WasActive;
}

}  // namespace gregor::gui
