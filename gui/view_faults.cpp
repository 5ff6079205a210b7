// Fault panel: partition or heal the selected nodes, crash/restart/pause them, change acks,
// min.insync.replicas and unclean.leader.election.enable, fork or save the session. Every button
// becomes a UserAction the session hands to the runner (and records).
#include <algorithm>
#include <cstdlib>

#include "gui/views.h"

namespace gregor::gui {

namespace {

void selection_action(UiState& ui, sim::FaultKind kind) {
  UserAction a;
  a.kind = kind;
  a.targets.assign(ui.selected_nodes.begin(), ui.selected_nodes.end());
  ui.actions.push_back(a);
}

void config_action(UiState& ui, const std::string& key, const std::string& value) {
  UserAction a;
  a.kind = sim::FaultKind::kSetConfig;
  a.key = key;
  a.value = value;
  ui.actions.push_back(a);
}

}  // namespace

void draw_fault_panel(const DashboardModel& m, const ViewContext& c, UiState& ui) {
  if (!c.live) {
    ImGui::TextWrapped("Replay of a recorded trace: read-only. Scrub the timeline; open the scenario live "
                       "(gregor gui SCENARIO) to inject faults.");
    return;
  }
  if (!ui.settings_loaded && !c.settings.empty()) {
    auto get = [&](const char* k) {
      auto it = c.settings.find(k);
      return it == c.settings.end() ? std::string() : it->second;
    };
    const std::string acks = get("acks");
    ui.acks_choice = acks == "0" ? 0 : acks == "1" ? 1 : 2;
    ui.min_isr_choice = std::max(1, std::atoi(get("min.insync.replicas").c_str()));
    ui.unclean_choice = get("unclean.leader.election.enable") == "true";
    ui.settings_loaded = true;
  }

  // Selection.
  std::string names;
  for (int32_t id : ui.selected_nodes) names += (names.empty() ? "" : ", ") + node_label(m, id);
  ImGui::Text("Selected: %s", names.empty() ? "(click nodes in the graph; ctrl-click adds)" : names.c_str());
  const bool any = !ui.selected_nodes.empty();
  ImGui::BeginDisabled(!any);
  if (ImGui::Button("Partition: selected | rest")) selection_action(ui, sim::FaultKind::kPartition);
  ImGui::SameLine();
  if (ImGui::Button("Heal selected")) selection_action(ui, sim::FaultKind::kHeal);
  if (ImGui::Button("Crash")) selection_action(ui, sim::FaultKind::kCrash);
  ImGui::SameLine();
  if (ImGui::Button("Restart")) selection_action(ui, sim::FaultKind::kRestart);
  ImGui::SameLine();
  if (ImGui::Button("Pause")) selection_action(ui, sim::FaultKind::kPause);
  ImGui::SameLine();
  if (ImGui::Button("Resume")) selection_action(ui, sim::FaultKind::kResume);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Heal all")) {
    UserAction a;
    a.kind = sim::FaultKind::kHeal;
    ui.actions.push_back(a);
  }

  // Durability settings, applied to the running scenario.
  ImGui::Separator();
  static const char* kAcks[] = {"0", "1", "all"};
  ImGui::SetNextItemWidth(70);
  ImGui::Combo("acks", &ui.acks_choice, kAcks, 3);
  ImGui::SameLine();
  if (ImGui::SmallButton("apply##acks")) config_action(ui, "acks", kAcks[ui.acks_choice]);
  // The controls start from what the brokers hold and follow it when it changes.
  for (const auto& p : m.partitions) {
    if (p.internal) continue;
    if (p.min_insync_replicas != ui.shown_min_isr) ui.min_isr_choice = ui.shown_min_isr = p.min_insync_replicas;
    if (int(p.unclean_leader_election) != ui.shown_unclean) {
      ui.shown_unclean = p.unclean_leader_election;
      ui.unclean_choice = p.unclean_leader_election;
    }
    break;
  }
  ImGui::SetNextItemWidth(90);
  ImGui::InputInt("min.insync.replicas", &ui.min_isr_choice, 1, 1);
  ui.min_isr_choice = std::clamp(ui.min_isr_choice, 1, 5);
  ImGui::SameLine();
  if (ImGui::SmallButton("apply##minisr")) config_action(ui, "min.insync.replicas", std::to_string(ui.min_isr_choice));
  ImGui::Checkbox("unclean.leader.election.enable", &ui.unclean_choice);
  ImGui::SameLine();
  if (ImGui::SmallButton("apply##unclean")) config_action(ui, "unclean.leader.election.enable", ui.unclean_choice ? "true" : "false");
  // What the brokers hold now (the scenario's own set-config entries change it too).
  std::string now_text;
  std::string last_topic;
  for (const auto& p : m.partitions) {
    if (p.internal || p.topic == last_topic) continue;
    last_topic = p.topic;
    now_text += (now_text.empty() ? "" : "; ") + p.topic + ": min.insync.replicas=" + std::to_string(p.min_insync_replicas) +
                (p.unclean_leader_election ? ", unclean election on" : "");
  }
  if (!now_text.empty()) ImGui::TextDisabled("in effect: %s", now_text.c_str());

  // Session.
  ImGui::Separator();
  if (c.in_past) {
    ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "Viewing the past (the world is at %s).", seconds_text(c.head).c_str());
    if (ImGui::Button("Fork from here")) ui.fork = true;
    ImGui::SameLine();
    if (ImGui::Button("Back to live")) ui.back_to_live = true;
  }
  ImGui::SetNextItemWidth(180);
  ImGui::InputText("##save", ui.save_path, sizeof ui.save_path);
  ImGui::SameLine();
  if (ImGui::Button("Save session as scenario")) ui.save = true;

  if (!c.applied.empty()) {
    ImGui::Text("Your actions (the fault schedule a saved scenario replays):");
    for (const auto& a : c.applied) ImGui::BulletText("%s  %s", seconds_text(a.at).c_str(), a.describe().c_str());
  }
  if (!c.message.empty()) ImGui::TextWrapped("%s", c.message.c_str());
}

}  // namespace gregor::gui
