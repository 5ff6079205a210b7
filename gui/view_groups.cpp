// Consumer groups in kafka-consumer-groups --describe form (ConsumerGroupCommand.java: the default,
// --members and --state tables), and each group's lag over time with fault periods shaded.
#include <algorithm>
#include <cstdio>

#include "gui/views.h"

namespace gregor::gui {

namespace {

void lag_chart(const GroupModel& g, const ViewContext& c, Time now) {
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImVec2 size(ImGui::GetContentRegionAvail().x, 110);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(o, ImVec2(o.x + size.x, o.y + size.y), IM_COL32(28, 30, 38, 255));
  const Time t1 = std::max(c.end, now);
  if (c.history) shade_fault_periods(dl, *c.history, Time{0}, t1, o, ImVec2(o.x + size.x, o.y + size.y));
  std::vector<ImVec2> pts;
  int64_t max_lag = 1;
  if (c.history)
    for (const auto& s : c.history->series()) {
      if (s.at > now) break;
      auto it = s.group_lag.find(g.group);
      if (it != s.group_lag.end()) max_lag = std::max(max_lag, it->second);
    }
  if (c.history)
    for (const auto& s : c.history->series()) {
      if (s.at > now) break;
      auto it = s.group_lag.find(g.group);
      if (it == s.group_lag.end()) continue;
      const float x = o.x + size.x * static_cast<float>(static_cast<double>(s.at.us) / static_cast<double>(std::max<int64_t>(1, t1.us)));
      const float y = o.y + size.y - 4 - (size.y - 18) * static_cast<float>(static_cast<double>(it->second) / static_cast<double>(max_lag));
      pts.push_back(ImVec2(x, y));
    }
  if (pts.size() > 1) dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), IM_COL32(110, 170, 255, 255), 0, 2);
  char buf[64];
  std::snprintf(buf, sizeof buf, "lag of %s (max %lld); red: fault periods", g.group.c_str(), static_cast<long long>(max_lag));
  dl->AddText(ImVec2(o.x + 6, o.y + 2), IM_COL32(170, 170, 180, 255), buf);
  ImGui::Dummy(size);
}

}  // namespace

void draw_groups_view(const DashboardModel& m, const ViewContext& c, UiState& ui) {
  (void)ui;
  if (m.groups.empty()) {
    ImGui::TextWrapped("No consumer groups in this run: its scenario has no consumers. When consumers join a "
                       "group, this tab shows kafka-consumer-groups --describe (CURRENT-OFFSET, LOG-END-OFFSET, "
                       "LAG per partition), the members and their assignment, and the lag over time.");
    return;
  }
  for (const auto& g : m.groups) {
    ImGui::PushID(g.group.c_str());
    ImGui::Separator();
    if (g.coordination == "zookeeper") {
      draw_zk_group(m, g);
      lag_chart(g, c, m.now);
      ImGui::PopID();
      continue;
    }
    // --state
    // The coordinator as kafka-consumer-groups --state names it; a dead one is the last that spoke for
    // the group (its consumers look for the next, which loads the group from __consumer_offsets).
    std::string coordinator = "-";
    if (g.coordinator >= 0) {
      const NodeModel* n = m.node(g.coordinator);
      coordinator = "broker-" + std::to_string(g.coordinator) + " (" + std::to_string(g.coordinator) + ")";
      if (n && n->status != NodeStatus::kAlive && n->status != NodeStatus::kPaused) coordinator += " DOWN";
    }
    ImGui::Text("GROUP %s   COORDINATOR (ID) %s   STATE %s   #MEMBERS %zu   generation %d   consumed %lld",
                g.group.c_str(), coordinator.c_str(), g.state.c_str(), g.members.size(), g.generation,
                static_cast<long long>(g.consumed));
    // Beside a ZooKeeper-coordinated group (drawn above), what makes this one different.
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("coordination: group coordinator (Kafka 0.9+): one broker runs the group; generations fence "
                       "stale members");
    ImGui::PopStyleColor();
    if (g.members.empty()) ImGui::TextDisabled("Consumer group '%s' has no active members.", g.group.c_str());
    if (g.state == "PreparingRebalance" || g.state == "CompletingRebalance")
      ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "Warning: Consumer group '%s' is rebalancing.", g.group.c_str());

    // The default --describe table.
    // Columns as wide as their contents (member ids are long), scrolling sideways when the panel is
    // narrower; the height fits the rows.
    const ImGuiTableFlags flags =
        ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
    auto table_size = [](size_t rows) {
      return ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(rows + 1) + ImGui::GetStyle().ScrollbarSize + 8);
    };
    ImGui::TextDisabled("kafka-consumer-groups --describe --group %s", g.group.c_str());
    if (ImGui::BeginTable("offsets", 8, flags, table_size(g.offsets.size()))) {
      for (const char* h : {"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "CLIENT-ID"})
        ImGui::TableSetupColumn(h);
      ImGui::TableHeadersRow();
      for (const auto& o : g.offsets) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(g.group.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(o.topic.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%d", o.partition);
        auto num = [](int64_t v) {
          ImGui::TableNextColumn();
          if (v < 0) ImGui::TextUnformatted("-");
          else ImGui::Text("%lld", static_cast<long long>(v));
        };
        num(o.committed);
        num(o.log_end);
        num(o.lag);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(o.member.empty() ? "-" : o.member.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(o.client < 0 ? "-" : node_label(m, o.client).c_str());
      }
      ImGui::EndTable();
    }
    // --members
    if (!g.members.empty()) ImGui::TextDisabled("kafka-consumer-groups --describe --group %s --members --verbose", g.group.c_str());
    if (!g.members.empty() && ImGui::BeginTable("members", 4, flags, table_size(g.members.size()))) {
      for (const char* h : {"CONSUMER-ID", "CLIENT-ID", "#PARTITIONS", "ASSIGNMENT"}) ImGui::TableSetupColumn(h);
      ImGui::TableHeadersRow();
      for (const auto& mem : g.members) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(mem.member_id.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(mem.client_name.empty() ? (mem.client < 0 ? "-" : node_label(m, mem.client).c_str()) : mem.client_name.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%zu", mem.assignment.size());
        ImGui::TableNextColumn();
        std::string a;
        for (const auto& tp : mem.assignment) a += (a.empty() ? "" : ",") + tp;
        ImGui::TextUnformatted(a.empty() ? "-" : a.c_str());
      }
      ImGui::EndTable();
    }
    lag_chart(g, c, m.now);
    ImGui::PopID();
  }
}

}  // namespace gregor::gui
