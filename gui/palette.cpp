// Colors and small drawing helpers shared by the views.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "gui/views.h"

namespace gregor::gui {

ImU32 epoch_color(int32_t epoch, float alpha) {
  // Hues a golden angle apart: neighbouring epochs never look alike.
  const float hue = std::fmod(0.58f + 0.381966f * static_cast<float>(std::max(epoch, 0)), 1.0f);
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(hue, 0.55f, 0.85f, r, g, b);
  return ImGui::GetColorU32(ImVec4(r, g, b, alpha));
}

ImU32 node_status_color(const NodeModel& n) {
  switch (n.status) {
    case NodeStatus::kCrashed: return IM_COL32(70, 70, 76, 255);
    case NodeStatus::kPoweredOff: return IM_COL32(30, 30, 34, 255);
    case NodeStatus::kPaused: return IM_COL32(214, 160, 40, 255);
    case NodeStatus::kAlive: break;
  }
  switch (n.kind) {
    case NodeKind::kBroker: return IM_COL32(58, 120, 200, 255);
    case NodeKind::kZk: return IM_COL32(40, 150, 140, 255);
    case NodeKind::kClient: return IM_COL32(140, 100, 190, 255);
  }
  return IM_COL32(128, 128, 128, 255);
}

ImU32 traffic_color(TrafficKind k) {
  switch (k) {
    case TrafficKind::kFetch: return IM_COL32(90, 210, 120, 255);
    case TrafficKind::kProduce: return IM_COL32(110, 170, 255, 255);
    case TrafficKind::kControl: return IM_COL32(210, 130, 255, 255);
    case TrafficKind::kZk: return IM_COL32(170, 170, 170, 255);
    case TrafficKind::kError: return IM_COL32(255, 80, 80, 255);
  }
  return IM_COL32(255, 255, 255, 255);
}

// Maelstrom's result colors: blue valid, orange unknown (not decided yet), pink invalid.
ImVec4 verdict_color(VerdictState s) {
  switch (s) {
    case VerdictState::kPass: return ImVec4(0.42f, 0.65f, 1.0f, 1.0f);
    case VerdictState::kPending: return ImVec4(1.0f, 0.67f, 0.25f, 1.0f);
    case VerdictState::kFail: return ImVec4(1.0f, 0.45f, 0.72f, 1.0f);
  }
  return ImVec4(1, 1, 1, 1);
}

ImU32 marker_color(MarkerKind k) {
  switch (k) {
    case MarkerKind::kFault: return IM_COL32(240, 70, 70, 255);
    case MarkerKind::kRecover: return IM_COL32(90, 210, 120, 255);
    case MarkerKind::kLeader: return IM_COL32(250, 210, 60, 255);
    case MarkerKind::kOffline: return IM_COL32(170, 30, 30, 255);
    case MarkerKind::kIsrShrink: return IM_COL32(255, 150, 40, 255);
    case MarkerKind::kIsrExpand: return IM_COL32(60, 200, 210, 255);
    case MarkerKind::kViolation: return IM_COL32(255, 110, 180, 255);
    case MarkerKind::kUser: return IM_COL32(240, 240, 240, 255);
  }
  return IM_COL32(255, 255, 255, 255);
}

void shade_fault_periods(ImDrawList* dl, const History& h, Time t0, Time t1, ImVec2 tl, ImVec2 br) {
  if (t1 <= t0) return;
  const double span = static_cast<double>((t1 - t0).us);
  for (const auto& p : h.fault_periods()) {
    const Time end = p.end == FaultPeriod::kOpen ? std::max(h.last_time(), t1) : p.end;
    if (end < t0 || p.start > t1) continue;
    const float xa = tl.x + static_cast<float>(static_cast<double>((std::max(p.start, t0) - t0).us) / span) * (br.x - tl.x);
    const float xb = tl.x + static_cast<float>(static_cast<double>((std::min(end, t1) - t0).us) / span) * (br.x - tl.x);
    dl->AddRectFilled(ImVec2(xa, tl.y), ImVec2(std::max(xb, xa + 1), br.y), IM_COL32(240, 70, 70, 40));
  }
}

std::string seconds_text(Time t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(t.us) / 1e6);
  return buf;
}

std::string node_label(const DashboardModel& m, int32_t id) {
  const NodeModel* n = m.node(id);
  return n ? n->name : "node " + std::to_string(id);
}

std::string int_list_text(const std::vector<int32_t>& v) {
  std::string s;
  for (int32_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

std::string session_hex(int64_t session) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, static_cast<uint64_t>(session));
  return buf;
}

const char* center_view_name(CenterView v) {
  switch (v) {
    case CenterView::kPartition: return "partition";
    case CenterView::kTopics: return "topics";
    case CenterView::kGroups: return "groups";
    case CenterView::kTxn: return "txn";
    case CenterView::kZk: return "zk";
    case CenterView::kEvents: return "events";
  }
  return "?";
}

std::optional<CenterView> center_view_from(const std::string& name) {
  for (CenterView v : {CenterView::kPartition, CenterView::kTopics, CenterView::kGroups, CenterView::kTxn, CenterView::kZk,
                       CenterView::kEvents})
    if (name == center_view_name(v)) return v;
  return std::nullopt;
}

void internal_topics_toggle(const DashboardModel& m, UiState& ui) {
  const int n = m.internal_partitions();
  if (n == 0) return;
  char label[80];
  std::snprintf(label, sizeof label, "internal topics (%d partitions)", n);
  ImGui::Checkbox(label, &ui.show_internal);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("__consumer_offsets: where the group coordinators keep committed offsets and group metadata.\n"
                      "Kafka creates it (50 partitions) when the first consumer group looks for its coordinator.\n"
                      "Hidden by default so that the scenario's own topics tell the story.");
}

}  // namespace gregor::gui
