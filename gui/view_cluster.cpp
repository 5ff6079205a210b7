// Cluster graph: brokers on a ring, the zk ensemble in its middle, clients on the left; links with
// their traffic as moving dots; cut links drawn cut. Right-click a node for its faults; click to
// select nodes for the fault panel's partition and heal.
#include <algorithm>
#include <cmath>
#include <map>

#include "gui/views.h"

namespace gregor::gui {

namespace {

constexpr float kPi = 3.14159265f;

std::map<int32_t, ImVec2> layout(const DashboardModel& m, ImVec2 origin, ImVec2 size) {
  std::map<int32_t, ImVec2> pos;
  std::vector<int32_t> brokers, zks, clients;
  for (const auto& n : m.nodes) {
    if (n.kind == NodeKind::kBroker) brokers.push_back(n.id);
    else if (n.kind == NodeKind::kZk) zks.push_back(n.id);
    else clients.push_back(n.id);
  }
  // The ring right of the clients' column, so that labels under the left brokers do not run into it.
  const ImVec2 center(origin.x + size.x * 0.62f, origin.y + size.y * 0.50f);
  const float rx = size.x * 0.27f, ry = size.y * 0.34f;
  for (size_t i = 0; i < brokers.size(); i++) {
    const float a = -kPi / 2 + 2 * kPi * static_cast<float>(i) / static_cast<float>(brokers.size());
    pos[brokers[i]] = ImVec2(center.x + rx * std::cos(a), center.y + ry * std::sin(a));
  }
  for (size_t i = 0; i < zks.size(); i++) {
    const float dx = (static_cast<float>(i) - static_cast<float>(zks.size() - 1) / 2) * 56;
    pos[zks[i]] = ImVec2(center.x + dx, center.y);
  }
  for (size_t i = 0; i < clients.size(); i++) {
    const float y = origin.y + size.y * (static_cast<float>(i) + 1) / (static_cast<float>(clients.size()) + 1);
    pos[clients[i]] = ImVec2(origin.x + std::max(size.x * 0.09f, 40.0f), y);
  }
  return pos;
}

void dashed_line(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 color, float thickness, float dash = 7, float gap = 5) {
  const float dx = b.x - a.x, dy = b.y - a.y;
  const float len = std::sqrt(dx * dx + dy * dy);
  if (len < 1) return;
  for (float s = 0; s < len; s += dash + gap) {
    const float e = std::min(s + dash, len);
    dl->AddLine(ImVec2(a.x + dx * s / len, a.y + dy * s / len), ImVec2(a.x + dx * e / len, a.y + dy * e / len), color, thickness);
  }
}

ImVec2 lerp(ImVec2 a, ImVec2 b, float t) { return ImVec2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t); }

// Shortens a segment so that it starts and ends at the node circles' edges.
std::pair<ImVec2, ImVec2> trim(ImVec2 a, ImVec2 b, float r) {
  const float dx = b.x - a.x, dy = b.y - a.y;
  const float len = std::max(1.0f, std::sqrt(dx * dx + dy * dy));
  return {ImVec2(a.x + dx * r / len, a.y + dy * r / len), ImVec2(b.x - dx * r / len, b.y - dy * r / len)};
}

void node_menu(const NodeModel& n, const ViewContext& c, UiState& ui) {
  auto act = [&](sim::FaultKind kind) {
    UserAction a;
    a.kind = kind;
    a.targets = {n.id};
    ui.actions.push_back(a);
  };
  ImGui::TextDisabled("%s (%s)", n.name.c_str(), node_status_name(n.status));
  ImGui::Separator();
  if (!c.live) {
    ImGui::TextDisabled("a replay is read-only");
    return;
  }
  const bool up = n.status == NodeStatus::kAlive || n.status == NodeStatus::kPaused;
  if (ImGui::MenuItem("Crash (kill -9)", nullptr, false, up)) act(sim::FaultKind::kCrash);
  if (ImGui::MenuItem("Power off (unsynced writes lost)", nullptr, false, up)) act(sim::FaultKind::kPowerLoss);
  if (ImGui::MenuItem("Restart", nullptr, false, true)) act(sim::FaultKind::kRestart);
  if (n.status == NodeStatus::kPaused) {
    if (ImGui::MenuItem("Resume")) act(sim::FaultKind::kResume);
  } else if (ImGui::MenuItem("Pause (stop-the-world GC)", nullptr, false, n.status == NodeStatus::kAlive)) {
    act(sim::FaultKind::kPause);
  }
  if (n.kind == NodeKind::kBroker && ImGui::MenuItem("Controlled shutdown", nullptr, false, n.status == NodeStatus::kAlive))
    act(sim::FaultKind::kShutdown);
  ImGui::Separator();
  if (ImGui::MenuItem("Isolate from every node", nullptr, false, !n.isolated)) act(sim::FaultKind::kIsolate);
  if (ImGui::MenuItem("Heal this node's links", nullptr, false, n.cut_links > 0)) {
    act(sim::FaultKind::kHeal);
  }
  if (c.in_past) ImGui::TextDisabled("(acting in the past forks the run here)");
}

}  // namespace

void draw_cluster_graph(const DashboardModel& m, const ViewContext& c, UiState& ui) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 size = ImGui::GetContentRegionAvail();
  size.y = std::max(size.y, 120.0f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(22, 24, 30, 255));

  // Clicking the empty canvas clears the selection.
  ImGui::InvisibleButton("canvas", size);
  ImGui::SetItemAllowOverlap();  // the node buttons on top of it take hover and clicks
  const bool canvas_clicked = ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenOverlapped) &&
                              ImGui::IsMouseClicked(ImGuiMouseButton_Left);
  bool node_hovered = false;
  const auto pos = layout(m, origin, size);
  ui.node_positions = pos;
  const float r = std::clamp(std::min(size.x, size.y) * 0.07f, 15.0f, 30.0f);

  // Links, under the nodes.
  for (const auto& l : m.links) {
    auto pa = pos.find(l.a), pb = pos.find(l.b);
    if (pa == pos.end() || pb == pos.end()) continue;
    const NodeModel* na = m.node(l.a);
    const NodeModel* nb = m.node(l.b);
    const bool client_link = na->kind == NodeKind::kClient || nb->kind == NodeKind::kClient;
    const bool cut = l.cut_ab || l.cut_ba;
    // A client's links are drawn while it talks to a broker (produce, or a consumer's fetch).
    if (client_link && !cut && l.produce == 0 && l.fetch == 0) continue;
    auto [a, b] = trim(pa->second, pb->second, r + 2);
    if (cut) {
      const ImU32 red = IM_COL32(235, 70, 70, 255);
      const ImVec2 mid = lerp(a, b, 0.5f);
      if (l.cut_ab && l.cut_ba) {
        dashed_line(dl, a, b, red, 2);
      } else {
        // One way: the cut half is on the sending side.
        dashed_line(dl, l.cut_ab ? a : b, mid, red, 2);
        dl->AddLine(mid, l.cut_ab ? b : a, IM_COL32(110, 110, 120, 255), 1.5f);
      }
      const float s = 6;
      dl->AddLine(ImVec2(mid.x - s, mid.y - s), ImVec2(mid.x + s, mid.y + s), red, 3);
      dl->AddLine(ImVec2(mid.x - s, mid.y + s), ImVec2(mid.x + s, mid.y - s), red, 3);
      continue;
    }
    const int traffic = l.fetch + l.produce + l.control;
    const bool zk_link = na->kind == NodeKind::kZk || nb->kind == NodeKind::kZk;
    const float thickness = zk_link ? 1.0f : 1.0f + std::min(3.0f, static_cast<float>(traffic) / 4.0f);
    const ImU32 color = zk_link ? IM_COL32(80, 90, 100, 255) : traffic > 0 ? IM_COL32(130, 140, 155, 255) : IM_COL32(85, 90, 100, 255);
    dl->AddLine(a, b, color, thickness);
  }

  // Messages in flight.
  for (const auto& d : m.dots) {
    auto pa = pos.find(d.from), pb = pos.find(d.to);
    if (pa == pos.end() || pb == pos.end()) continue;
    auto [a, b] = trim(pa->second, pb->second, r + 2);
    // Each direction rides on its own side of the link.
    const float dx = b.x - a.x, dy = b.y - a.y;
    const float len = std::max(1.0f, std::sqrt(dx * dx + dy * dy));
    const ImVec2 side(-dy / len * 4, dx / len * 4);
    ImVec2 p = lerp(a, b, std::clamp(d.progress, 0.0f, 1.0f));
    p.x += side.x;
    p.y += side.y;
    dl->AddCircleFilled(p, 4, traffic_color(d.kind));
  }

  // Nodes.
  for (const auto& n : m.nodes) {
    auto it = pos.find(n.id);
    if (it == pos.end()) continue;
    const ImVec2 p = it->second;
    const float nr = n.kind == NodeKind::kBroker ? r : r * 0.75f;
    ImGui::SetCursorScreenPos(ImVec2(p.x - nr, p.y - nr));
    ImGui::PushID(n.id);
    ImGui::InvisibleButton("node", ImVec2(2 * nr, 2 * nr));
    if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) {
      if (ImGui::GetIO().KeyCtrl || ImGui::GetIO().KeyShift) {
        if (!ui.selected_nodes.erase(n.id)) ui.selected_nodes.insert(n.id);
      } else {
        const bool only = ui.selected_nodes.size() == 1 && ui.selected_nodes.count(n.id);
        ui.selected_nodes.clear();
        if (!only) ui.selected_nodes.insert(n.id);
      }
    }
    if (ImGui::IsItemHovered()) {
      node_hovered = true;
      ImGui::BeginTooltip();
      ImGui::Text("%s (node %d): %s", n.name.c_str(), n.id, node_status_name(n.status));
      if (n.kind == NodeKind::kBroker) {
        ImGui::Text("leads %d partition(s)%s%s", n.leaderships, n.controller ? ", active controller" : "",
                    n.registered ? ", registered in zk" : ", not registered in zk");
      }
      ImGui::Text("incarnation %llu, %d cut link direction(s)%s", static_cast<unsigned long long>(n.incarnation),
                  n.cut_links, n.isolated ? " (isolated)" : "");
      ImGui::TextDisabled("click: select   ctrl-click: add   right-click: faults");
      ImGui::EndTooltip();
    }
    if (ImGui::BeginPopupContextItem("faults")) {
      node_menu(n, c, ui);
      ImGui::EndPopup();
    }
    ImGui::PopID();

    if (n.cut_links > 0) dl->AddCircle(p, nr + 6, IM_COL32(235, 120, 40, 255), 32, 2.5f);
    if (ui.selected_nodes.count(n.id)) dl->AddCircle(p, nr + 3, IM_COL32(255, 255, 255, 255), 32, 2.5f);
    dl->AddCircleFilled(p, nr, node_status_color(n), 32);
    if (n.controller) dl->AddCircle(p, nr - 1, IM_COL32(250, 210, 60, 255), 32, 3);
    const ImU32 white = IM_COL32(240, 240, 240, 255);
    if (n.status == NodeStatus::kCrashed || n.status == NodeStatus::kPoweredOff) {
      const float s = nr * 0.5f;
      dl->AddLine(ImVec2(p.x - s, p.y - s), ImVec2(p.x + s, p.y + s), IM_COL32(220, 80, 80, 255), 3);
      dl->AddLine(ImVec2(p.x - s, p.y + s), ImVec2(p.x + s, p.y - s), IM_COL32(220, 80, 80, 255), 3);
    } else if (n.status == NodeStatus::kPaused) {
      dl->AddRectFilled(ImVec2(p.x - 7, p.y - 9), ImVec2(p.x - 2, p.y + 9), white);
      dl->AddRectFilled(ImVec2(p.x + 2, p.y - 9), ImVec2(p.x + 7, p.y + 9), white);
    } else {
      char id[16];
      std::snprintf(id, sizeof id, "%d", n.kind == NodeKind::kBroker ? n.id : n.id % 1000);
      const ImVec2 ts = ImGui::CalcTextSize(id);
      dl->AddText(ImVec2(p.x - ts.x / 2, p.y - ts.y / 2), white, id);
    }
    // Name and state below the node.
    std::string label = n.name;
    if (n.status != NodeStatus::kAlive) label += std::string(" (") + node_status_name(n.status) + ")";
    const ImVec2 ls = ImGui::CalcTextSize(label.c_str());
    // Centered under the node, but kept inside the panel (clients sit near its left edge).
    const float lx0 = std::clamp(p.x - ls.x / 2, origin.x + 2, std::max(origin.x + 2, origin.x + size.x - ls.x - 2));
    dl->AddText(ImVec2(lx0, p.y + nr + 3), IM_COL32(220, 220, 225, 255), label.c_str());
    std::string sub;
    if (n.controller) sub = "controller";
    if (n.kind == NodeKind::kBroker && n.leaderships > 0)
      sub += (sub.empty() ? "" : ", ") + std::string("leads ") + std::to_string(n.leaderships);
    if (n.isolated) sub += (sub.empty() ? "" : ", ") + std::string("isolated");
    if (!sub.empty()) {
      const ImVec2 ss = ImGui::CalcTextSize(sub.c_str());
      dl->AddText(ImVec2(p.x - ss.x / 2, p.y + nr + 3 + ls.y), n.controller ? IM_COL32(250, 210, 60, 255) : IM_COL32(160, 165, 175, 255),
                  sub.c_str());
    }
  }

  if (canvas_clicked && !node_hovered && !ImGui::GetIO().KeyCtrl) ui.selected_nodes.clear();
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + size.y));

  // Legend.
  float lx = origin.x + 8;
  const float ly = origin.y + size.y - 18;
  for (TrafficKind k : {TrafficKind::kFetch, TrafficKind::kProduce, TrafficKind::kControl, TrafficKind::kZk, TrafficKind::kError}) {
    dl->AddCircleFilled(ImVec2(lx + 4, ly + 7), 4, traffic_color(k));
    dl->AddText(ImVec2(lx + 11, ly), IM_COL32(170, 170, 180, 255), traffic_kind_name(k));
    lx += 18 + ImGui::CalcTextSize(traffic_kind_name(k)).x;
  }
  dashed_line(dl, ImVec2(lx + 2, ly + 7), ImVec2(lx + 24, ly + 7), IM_COL32(235, 70, 70, 255), 2, 5, 3);
  dl->AddText(ImVec2(lx + 28, ly), IM_COL32(170, 170, 180, 255), "cut");
  const char* help = "right-click a node for faults";
  dl->AddText(ImVec2(origin.x + 8, origin.y + 6), IM_COL32(130, 135, 145, 255), help);
}

}  // namespace gregor::gui
