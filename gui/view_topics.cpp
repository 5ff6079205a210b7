// Partition table in kafka-topics --describe form (TopicCommand.java's columns: Leader, Replicas,
// Isr), with the actual and the preferred leader apart, replicas as badges (green in sync, red out
// of sync, grey down, after AKHQ), rows colored when under-replicated, under min ISR or offline,
// the CLI's filter flags, and the exact CLI text on demand.
#include <algorithm>
#include <cstdio>
#include <string>

#include "gui/views.h"

namespace gregor::gui {

namespace {

bool passes(const PartitionModel& p, const UiState& ui) {
  const bool any = ui.only_under_replicated || ui.only_under_min_isr || ui.only_at_min_isr || ui.only_unavailable;
  if (!any) return true;
  return (ui.only_under_replicated && p.under_replicated) || (ui.only_under_min_isr && p.under_min_isr) ||
         (ui.only_at_min_isr && p.at_min_isr) || (ui.only_unavailable && (p.offline || !p.leader_alive));
}

std::string configs_text(const DashboardModel& m, const std::string& topic) {
  std::string s;
  auto it = m.topic_configs.find(topic);
  if (it != m.topic_configs.end())
    for (const auto& [k, v] : it->second) s += (s.empty() ? "" : ",") + k + "=" + v;
  return s;
}

// The text kafka-topics.sh --describe prints for the rows shown.
std::string cli_text(const DashboardModel& m, const std::vector<const PartitionModel*>& rows) {
  std::string out;
  std::string topic;
  for (const auto* p : rows) {
    if (p->topic != topic) {
      topic = p->topic;
      int count = 0;
      for (const auto& q : m.partitions) count += q.topic == topic;
      char head[256];
      std::snprintf(head, sizeof head, "Topic: %s\tTopicId: -\tPartitionCount: %d\tReplicationFactor: %zu\tConfigs: %s\n",
                    topic.c_str(), count, p->replicas.size(), configs_text(m, topic).c_str());
      out += head;
    }
    out += "\tTopic: " + p->topic + "\tPartition: " + std::to_string(p->partition) +
           "\tLeader: " + (p->leader < 0 ? std::string("none") : std::to_string(p->leader)) +
           "\tReplicas: " + int_list_text(p->replicas) + "\tIsr: " + int_list_text(p->isr) +
           (p->adding.empty() && p->removing.empty()
                ? std::string()
                : "\tAdding Replicas: " + int_list_text(p->adding) + "\tRemoving Replicas: " + int_list_text(p->removing)) +
           "\n";
  }
  return out;
}

}  // namespace

void draw_topics_table(const DashboardModel& m, const ViewContext& c, UiState& ui) {
  (void)c;
  ImGui::TextDisabled("kafka-topics --describe");
  ImGui::SameLine();
  ImGui::Checkbox("--under-replicated-partitions", &ui.only_under_replicated);
  ImGui::SameLine();
  ImGui::Checkbox("--under-min-isr-partitions", &ui.only_under_min_isr);
  ImGui::SameLine();
  ImGui::Checkbox("--at-min-isr-partitions", &ui.only_at_min_isr);
  ImGui::SameLine();
  ImGui::Checkbox("--unavailable-partitions", &ui.only_unavailable);
  ImGui::Checkbox("CLI text", &ui.cli_text);
  ImGui::SameLine(0, 20);
  internal_topics_toggle(m, ui);

  // The user's topics first (the model's order), internal ones only when asked for.
  std::vector<const PartitionModel*> rows;
  for (const auto& p : m.partitions)
    if ((!p.internal || ui.show_internal) && passes(p, ui)) rows.push_back(&p);

  // Topic header lines, as the CLI prints them.
  std::string topic;
  for (const auto* p : rows) {
    if (p->topic == topic) continue;
    topic = p->topic;
    int count = 0;
    for (const auto& q : m.partitions) count += q.topic == topic;
    const std::string cfg = configs_text(m, topic);
    ImGui::Text("Topic: %s   PartitionCount: %d   ReplicationFactor: %zu   Configs: %s", topic.c_str(), count,
                p->replicas.size(), cfg.empty() ? "" : cfg.c_str());
  }

  if (ui.cli_text) {
    std::string text = cli_text(m, rows);
    if (ImGui::SmallButton("copy")) ImGui::SetClipboardText(text.c_str());
    ImGui::BeginChild("cli", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::TextUnformatted(text.c_str());
    ImGui::EndChild();
    return;
  }

  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("topics", 9, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Topic");
  ImGui::TableSetupColumn("Partition");
  ImGui::TableSetupColumn("Leader");
  ImGui::TableSetupColumn("Replicas");
  ImGui::TableSetupColumn("Isr");
  ImGui::TableSetupColumn("Preferred");
  ImGui::TableSetupColumn("HW");
  ImGui::TableSetupColumn("LEO");
  ImGui::TableSetupColumn("State", 0, 2.2f);
  ImGui::TableHeadersRow();

  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(rows.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; i++) {
      const PartitionModel& p = *rows[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      const char* state = "ok";
      ImU32 bg = 0;
      ImVec4 state_text(1, 1, 1, 1);
      if (p.offline) {
        state = "offline";
        bg = IM_COL32(130, 30, 30, 170);
        state_text = ImVec4(1, 0.45f, 0.45f, 1);
      } else if (!p.leader_alive) {
        state = "leader down (not noticed yet)";
        bg = IM_COL32(130, 30, 30, 170);
        state_text = ImVec4(1, 0.45f, 0.45f, 1);
      } else if (p.under_min_isr) {
        state = "under min ISR";
        bg = IM_COL32(140, 80, 20, 170);
        state_text = ImVec4(1, 0.65f, 0.3f, 1);
      } else if (p.under_replicated) {
        state = "under-replicated";
        bg = IM_COL32(120, 105, 20, 170);
        state_text = ImVec4(1, 0.9f, 0.35f, 1);
      } else if (!p.adding.empty() || !p.removing.empty()) {
        state = "reassigning";
        bg = IM_COL32(30, 80, 130, 170);
        state_text = ImVec4(0.55f, 0.8f, 1, 1);
      } else if (p.at_min_isr) {
        state = "at min ISR";
      }
      if (bg) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, bg);
      ImGui::TableNextColumn();
      // Not drawn as selected: the selection's highlight would hide the row's state color.
      if (ImGui::Selectable(p.topic.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) {
        ui.topic = p.topic;
        ui.partition = p.partition;
        ui.partition_chosen = true;
        ui.center_request = CenterView::kPartition;
      }
      ImGui::TableNextColumn();
      ImGui::Text("%d", p.partition);
      ImGui::TableNextColumn();
      if (p.leader < 0)
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "none");
      else if (!p.leader_alive)
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%d (down)", p.leader);
      else
        ImGui::Text("%d", p.leader);
      ImGui::TableNextColumn();
      for (size_t j = 0; j < p.rows.size(); j++) {
        const auto& r = p.rows[j];
        if (j) ImGui::SameLine(0, 6);
        const ImVec4 col = !r.alive ? ImVec4(0.55f, 0.55f, 0.58f, 1) : r.in_isr ? ImVec4(0.4f, 0.85f, 0.5f, 1) : ImVec4(1, 0.4f, 0.4f, 1);
        // A reassignment's replicas: +4 being added, -1 being removed.
        const bool adding = std::find(p.adding.begin(), p.adding.end(), r.broker) != p.adding.end();
        const bool removing = std::find(p.removing.begin(), p.removing.end(), r.broker) != p.removing.end();
        ImGui::TextColored(col, "%s%d", adding ? "+" : removing ? "-" : "", r.broker);
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("broker %d: %s, %s, LEO %lld%s", r.broker, r.alive ? "alive" : "down", r.in_isr ? "in sync" : "out of sync",
                            static_cast<long long>(r.leo),
                            adding ? " (being added by a reassignment)" : removing ? " (being removed by a reassignment)" : "");
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(int_list_text(p.isr).c_str());
      ImGui::TableNextColumn();
      if (p.preferred_leader >= 0 && p.preferred_leader != p.leader)
        ImGui::TextColored(ImVec4(0.95f, 0.85f, 0.3f, 1), "%d (not leading)", p.preferred_leader);
      else
        ImGui::Text("%d", p.preferred_leader);
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(p.hw));
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(p.leo));
      ImGui::TableNextColumn();
      if (bg) ImGui::TextColored(state_text, "%s", state);
      else ImGui::TextUnformatted(state);
    }
  }
  ImGui::EndTable();
}

}  // namespace gregor::gui
