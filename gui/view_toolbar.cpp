// The top bar: mode and time, play / pause / single step / speed (log scale), and the health strip
// in Kafka's metric names.
#include <cmath>
#include <cstdio>

#include "gui/session.h"
#include "gui/views.h"

namespace gregor::gui {

namespace {

void tile(const char* name, const std::string& value, bool bad) {
  ImGui::SameLine(0, 14);
  ImGui::TextDisabled("%s", name);
  ImGui::SameLine(0, 4);
  if (bad)
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", value.c_str());
  else
    ImGui::TextColored(ImVec4(0.55f, 0.9f, 0.6f, 1), "%s", value.c_str());
}

}  // namespace

void draw_toolbar(const DashboardModel& m, const ViewContext& c, UiState& ui) {
  const char* mode = !c.live ? "REPLAY" : c.in_past ? "PAST" : "LIVE";
  const ImVec4 mode_color = !c.live ? ImVec4(0.6f, 0.75f, 1, 1) : c.in_past ? ImVec4(1, 0.8f, 0.3f, 1) : ImVec4(1, 0.4f, 0.4f, 1);
  ImGui::TextColored(mode_color, "%s", mode);
  ImGui::SameLine();
  ImGui::Text("t = %s / %s", seconds_text(m.now).c_str(), seconds_text(c.end).c_str());
  ImGui::SameLine(0, 20);
  if (ImGui::Button(c.playing ? "Pause" : "Play", ImVec2(60, 0))) ui.toggle_play = true;
  ImGui::SameLine();
  if (ImGui::Button("Step")) ui.step = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("to the next event");
  ImGui::SameLine();
  float lg = static_cast<float>(std::log10(c.speed));
  char label[32];
  std::snprintf(label, sizeof label, c.speed < 0.1 ? "speed x%.3f" : "speed x%.2f", c.speed);
  ImGui::SetNextItemWidth(180);
  if (ImGui::SliderFloat("##speed", &lg, static_cast<float>(std::log10(Session::kSpeedMin)),
                         static_cast<float>(std::log10(Session::kSpeedMax)), label))
    ui.speed = std::pow(10.0, static_cast<double>(lg));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("virtual seconds per wall second (log scale)");
  if (c.live && c.in_past) {
    ImGui::SameLine();
    if (ImGui::Button("Back to live")) ui.back_to_live = true;
  }
  ImGui::SameLine(0, 20);
  ImGui::TextDisabled("%s", c.title.c_str());

  // Health strip, in Kafka's metric names.
  const HealthModel& h = m.health;
  ImGui::TextDisabled("brokers");
  ImGui::SameLine(0, 4);
  ImGui::TextColored(h.brokers_alive < h.brokers_total ? ImVec4(1, 0.4f, 0.4f, 1) : ImVec4(0.55f, 0.9f, 0.6f, 1), "%d/%d alive",
                     h.brokers_alive, h.brokers_total);
  tile("ActiveControllerCount", std::to_string(h.active_controllers) + (m.controller >= 0 ? " (broker " + std::to_string(m.controller) + ")" : ""),
       h.active_controllers != 1);
  // Kafka's metrics count internal topics too; with internal topics folded away the tiles count
  // the user's partitions and say how many internal ones the metric adds.
  auto count = [&](const char* name, int all, int internal) {
    const int shown = ui.show_internal ? all : all - internal;
    std::string v = std::to_string(shown);
    if (!ui.show_internal && internal > 0) v += " (+" + std::to_string(internal) + ")";
    tile(name, v, shown > 0);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s = %d: %d of the scenario's topics, %d of internal topics (__consumer_offsets)", name, all, all - internal,
                        internal);
  };
  count("UnderReplicatedPartitions", h.under_replicated, h.internal_under_replicated);
  count("UnderMinIsrPartitionCount", h.under_min_isr, h.internal_under_min_isr);
  count("OfflinePartitionsCount", h.offline, h.internal_offline);
  const bool fold = !ui.show_internal;
  const int64_t internal_isr = h.internal_isr_shrinks + h.internal_isr_expands;
  tile("IsrShrinks/Expands",
       std::to_string(h.isr_shrinks - (fold ? h.internal_isr_shrinks : 0)) + "/" + std::to_string(h.isr_expands - (fold ? h.internal_isr_expands : 0)) +
           (fold && internal_isr > 0 ? " (+" + std::to_string(internal_isr) + ")" : ""),
       false);
  if (fold && internal_isr > 0 && ImGui::IsItemHovered())
    ImGui::SetTooltip("(+%lld): ISR changes of internal topics (__consumer_offsets), not counted here", static_cast<long long>(internal_isr));
  const int64_t elections = h.leader_elections - (fold ? h.internal_leader_elections : 0);
  tile("LeaderElections",
       std::to_string(elections) + (fold && h.internal_leader_elections > 0 ? " (+" + std::to_string(h.internal_leader_elections) + ")" : "") +
           (h.unclean_elections ? " (" + std::to_string(h.unclean_elections) + " unclean)" : ""),
       h.unclean_elections > 0);
  if (fold && h.internal_leader_elections > 0 && ImGui::IsItemHovered())
    ImGui::SetTooltip("(+%lld): elections of internal topics' leaders (__consumer_offsets), not counted here",
                      static_cast<long long>(h.internal_leader_elections));
  tile("acked batches", std::to_string(h.produce_acked), false);
  tile("produce errors", std::to_string(h.produce_errors + h.produce_rejected) +
                             (h.last_produce_error.empty() ? "" : " (last " + h.last_produce_error + ")"),
       h.produce_errors + h.produce_rejected > 0);
}

}  // namespace gregor::gui
