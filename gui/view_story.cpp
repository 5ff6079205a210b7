// The scenario's story (captions that appear as their time comes, as in The Secret Lives of Data)
// and the checker verdicts, colored as Maelstrom colors results: orange while undecided, blue once
// passed, pink when violated, with the violation's message.
#include "gui/session.h"
#include "gui/views.h"

namespace gregor::gui {

void draw_story(const DashboardModel& m, const ViewContext& c, UiState& ui) {
  (void)ui;
  ImGui::TextWrapped("%s", c.title.c_str());
  ImGui::TextDisabled("seed %llu", static_cast<unsigned long long>(c.seed));
  ImGui::Separator();
  int current = -1;
  for (size_t i = 0; i < c.story.size(); i++)
    if (c.story[i].at <= m.now) current = static_cast<int>(i);
  for (size_t i = 0; i < c.story.size(); i++) {
    const auto& s = c.story[i];
    if (static_cast<int>(i) > current) continue;
    // The story's hand-wrapped lines joined, so that ImGui's wrapping at the panel's width is the only one.
    const std::string text = unwrap_paragraphs(s.text);
    const std::string shown = s.at == Time{0} ? text : seconds_text(s.at) + "  " + text;
    const bool now = static_cast<int>(i) == current;
    ImGui::PushStyleColor(ImGuiCol_Text, now ? ImVec4(0.93f, 0.93f, 0.95f, 1) : ImVec4(0.55f, 0.57f, 0.62f, 1));
    ImGui::TextWrapped("%s", shown.c_str());
    ImGui::PopStyleColor();
    if (now && i + 1 < c.story.size()) ImGui::TextDisabled("next at %s", seconds_text(c.story[i + 1].at).c_str());
  }
  if (c.story.empty()) ImGui::TextDisabled("(this run has no story)");
  if (!c.schedule.empty()) {
    ImGui::Separator();
    ImGui::Text("Fault schedule:");
    for (const auto& [at, what] : c.schedule) {
      const bool done = at <= m.now;
      ImGui::TextColored(done ? ImVec4(0.55f, 0.57f, 0.62f, 1) : ImVec4(1, 0.55f, 0.55f, 1), "%s %s  %s", done ? "x" : " ",
                         seconds_text(at).c_str(), what.c_str());
    }
  }
}

void draw_verdicts(const DashboardModel& m, const ViewContext& c, UiState& ui) {
  (void)ui;
  int failed = 0, pending = 0;
  for (const auto& v : m.verdicts) {
    failed += v.state == VerdictState::kFail;
    pending += v.state == VerdictState::kPending;
  }
  ImGui::Text("Checkers: %d violated, %d undecided, %d passed", failed, pending, static_cast<int>(m.verdicts.size()) - failed - pending);
  for (const auto& v : m.verdicts) {
    const char* word = v.state == VerdictState::kPass ? "pass" : v.state == VerdictState::kFail ? "FAIL" : "....";
    ImGui::TextColored(verdict_color(v.state), "%-4s", word);
    ImGui::SameLine();
    ImGui::TextUnformatted(v.checker.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", v.description.c_str());
    if (v.state == VerdictState::kFail) {
      ImGui::PushStyleColor(ImGuiCol_Text, verdict_color(VerdictState::kFail));
      ImGui::TextWrapped("  at %s: %s", seconds_text(v.at).c_str(), v.message.c_str());
      ImGui::PopStyleColor();
    }
  }
  if (!c.expectations.empty()) {
    ImGui::Separator();
    ImGui::Text("Scenario expectations:");
    for (const auto& e : c.expectations) {
      const char* word = e.state == VerdictState::kPass ? "pass" : e.state == VerdictState::kFail ? "FAIL" : "....";
      ImGui::TextColored(verdict_color(e.state), "%-4s", word);
      ImGui::SameLine();
      ImGui::TextWrapped("%s%s%s", e.name.c_str(), e.detail.empty() ? "" : ": ", e.detail.c_str());
    }
  }
}

}  // namespace gregor::gui
