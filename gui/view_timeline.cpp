// Timeline: the cluster's health counts over time with fault periods shaded, and a scrubber marked
// with faults, recoveries, leader changes, ISR shrinks and expansions, checker violations and the
// user's own actions. Click or drag to look at any time; live, the future is hatched and the
// scenario's scheduled faults are drawn ahead as hollow marks.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gui/views.h"

namespace gregor::gui {

namespace {

float x_at(Time t, Time t1, float x0, float w) {
  return x0 + w * static_cast<float>(static_cast<double>(t.us) / static_cast<double>(std::max<int64_t>(1, t1.us)));
}

void counts_chart(const ViewContext& c, bool internal, Time t1, ImVec2 o, ImVec2 size, Time now) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(o, ImVec2(o.x + size.x, o.y + size.y), IM_COL32(28, 30, 38, 255));
  if (!c.history) return;
  shade_fault_periods(dl, *c.history, Time{0}, t1, o, ImVec2(o.x + size.x, o.y + size.y));
  struct Line {
    int SeriesSample::*field;
    int SeriesSample::*internal_part;
    ImU32 color;
    const char* name;
  };
  const Line lines[] = {
      {&SeriesSample::under_replicated, &SeriesSample::internal_under_replicated, IM_COL32(225, 200, 60, 255), "UnderReplicated"},
      {&SeriesSample::under_min_isr, &SeriesSample::internal_under_min_isr, IM_COL32(240, 140, 40, 255), "UnderMinIsr"},
      {&SeriesSample::offline, &SeriesSample::internal_offline, IM_COL32(230, 70, 70, 255), "Offline"}};
  // Internal topics' partitions count only when they are shown.
  auto value = [&](const SeriesSample& s, const Line& l) { return s.*(l.field) - (internal ? 0 : s.*(l.internal_part)); };
  int max_count = 1;
  for (const auto& s : c.history->series())
    for (const auto& l : lines) max_count = std::max(max_count, value(s, l));
  float lx = o.x + 6;
  for (const auto& line : lines) {
    std::vector<ImVec2> pts;
    for (const auto& s : c.history->series()) {
      if (s.at > now) break;
      const float y = o.y + size.y - 3 - (size.y - 16) * static_cast<float>(value(s, line)) / static_cast<float>(max_count);
      // A step chart: hold the value until the next sample.
      if (!pts.empty()) pts.push_back(ImVec2(x_at(s.at, t1, o.x, size.x), pts.back().y));
      pts.push_back(ImVec2(x_at(s.at, t1, o.x, size.x), y));
    }
    if (pts.size() > 1) dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), line.color, 0, 1.5f);
    dl->AddText(ImVec2(lx, o.y + 1), line.color, line.name);
    lx += ImGui::CalcTextSize(line.name).x + 12;
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, internal ? "partitions (max %d); red: fault periods" : "partitions of the scenario's topics (max %d); red: fault periods", max_count);
  dl->AddText(ImVec2(lx, o.y + 1), IM_COL32(150, 150, 160, 255), buf);
}

}  // namespace

void draw_timeline(const DashboardModel& m, const ViewContext& c, UiState& ui) {
  const Time t1 = std::max({c.end, c.head, m.now, Time{1}});
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float x0 = ImGui::GetCursorScreenPos().x, w = avail.x;
  const float chart_h = std::max(30.0f, avail.y - 62);
  counts_chart(c, ui.show_internal, t1, ImGui::GetCursorScreenPos(), ImVec2(w, chart_h), m.now);
  ImGui::Dummy(ImVec2(w, chart_h));

  // The scrubber.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float h = 30;
  ImGui::InvisibleButton("scrubber", ImVec2(w, h));
  const bool active = ImGui::IsItemActive();
  const bool hovered = ImGui::IsItemHovered();
  dl->AddRectFilled(o, ImVec2(o.x + w, o.y + h), IM_COL32(36, 38, 48, 255));
  if (c.history) shade_fault_periods(dl, *c.history, Time{0}, t1, o, ImVec2(o.x + w, o.y + h));
  // Live: what has not happened yet.
  if (c.live) {
    const float xh = x_at(c.head, t1, x0, w);
    for (float x = xh; x < o.x + w; x += 8) dl->AddLine(ImVec2(x, o.y + h), ImVec2(std::min(x + 8, o.x + w), o.y), IM_COL32(60, 62, 72, 255));
    for (const auto& [at, what] : c.schedule) {
      if (at <= c.head) continue;
      const float x = x_at(at, t1, x0, w);
      dl->AddTriangle(ImVec2(x - 5, o.y + 2), ImVec2(x + 5, o.y + 2), ImVec2(x, o.y + 11), IM_COL32(240, 70, 70, 255), 1.5f);
    }
  }
  // Markers: faults and recoveries on top, leadership in the middle, ISR at the bottom.
  std::vector<const TimelineMarker*> near;
  const float mouse_x = ImGui::GetIO().MousePos.x;
  if (c.history) {
    for (const auto& mk : c.history->markers()) {
      if (mk.internal && !ui.show_internal) continue;
      const float x = x_at(mk.at, t1, x0, w);
      float y0 = o.y, y1 = o.y + h;
      switch (mk.kind) {
        case MarkerKind::kFault:
        case MarkerKind::kRecover:
        case MarkerKind::kUser: y1 = o.y + h * 0.4f; break;
        case MarkerKind::kLeader:
        case MarkerKind::kOffline: y0 = o.y + h * 0.3f, y1 = o.y + h * 0.7f; break;
        case MarkerKind::kIsrShrink:
        case MarkerKind::kIsrExpand: y0 = o.y + h * 0.6f; break;
        case MarkerKind::kViolation: break;
      }
      dl->AddLine(ImVec2(x, y0), ImVec2(x, y1), marker_color(mk.kind), mk.kind == MarkerKind::kViolation ? 3.0f : 2.0f);
      if (hovered && std::fabs(x - mouse_x) <= 3 && near.size() < 12) near.push_back(&mk);
    }
  }
  // Time axis.
  const double seconds = static_cast<double>(t1.us) / 1e6;
  const double step = seconds <= 20 ? 1 : seconds <= 60 ? 5 : seconds <= 300 ? 30 : 60;
  for (double s = 0; s <= seconds; s += step) {
    const float x = x_at(Time{static_cast<int64_t>(s * 1e6)}, t1, x0, w);
    char buf[16];
    std::snprintf(buf, sizeof buf, "%gs", s);
    dl->AddLine(ImVec2(x, o.y + h), ImVec2(x, o.y + h + 4), IM_COL32(140, 140, 150, 255));
    dl->AddText(ImVec2(x + 2, o.y + h + 1), IM_COL32(140, 140, 150, 255), buf);
  }
  // The view time.
  const float xv = x_at(m.now, t1, x0, w);
  dl->AddLine(ImVec2(xv, o.y - 4), ImVec2(xv, o.y + h + 4), IM_COL32(255, 255, 255, 255), 2);
  dl->AddTriangleFilled(ImVec2(xv - 6, o.y - 8), ImVec2(xv + 6, o.y - 8), ImVec2(xv, o.y - 1), IM_COL32(255, 255, 255, 255));

  if (active) {
    const double frac = std::clamp(static_cast<double>((mouse_x - x0) / w), 0.0, 1.0);
    Time t{static_cast<int64_t>(frac * static_cast<double>(t1.us))};
    ui.seek = t;
  }
  if (hovered && !active) {
    ImGui::BeginTooltip();
    const double frac = std::clamp(static_cast<double>((mouse_x - x0) / w), 0.0, 1.0);
    ImGui::Text("%s", seconds_text(Time{static_cast<int64_t>(frac * static_cast<double>(t1.us))}).c_str());
    for (const auto* mk : near)
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(marker_color(mk->kind)), "%s  %s", seconds_text(mk->at).c_str(), mk->label.c_str());
    ImGui::EndTooltip();
  }
  // Legend.
  ImGui::Dummy(ImVec2(w, 14));
  float lx = x0 + w;
  const MarkerKind kinds[] = {MarkerKind::kUser,      MarkerKind::kViolation, MarkerKind::kIsrExpand, MarkerKind::kIsrShrink,
                              MarkerKind::kOffline,   MarkerKind::kLeader,    MarkerKind::kRecover,   MarkerKind::kFault};
  const float ly = o.y + h + 16;
  for (MarkerKind k : kinds) {
    const char* name = marker_kind_name(k);
    lx -= ImGui::CalcTextSize(name).x + 22;
    dl->AddRectFilled(ImVec2(lx, ly + 3), ImVec2(lx + 8, ly + 11), marker_color(k));
    dl->AddText(ImVec2(lx + 11, ly), IM_COL32(160, 160, 170, 255), name);
  }
}

}  // namespace gregor::gui
