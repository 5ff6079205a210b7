// The event log: every trace event up to the view time, filtered by category and by text, in a
// clipped table (runs have millions of events). The filtered index list is kept between frames and
// extended as the run goes on.
#include <algorithm>
#include <cstring>

#include "gui/views.h"

namespace gregor::gui {

namespace {

const char* kCategories[] = {"all", "faults", "leadership", "ISR", "HW and logs", "produce", "groups", "ZooKeeper", "other"};

bool in_category(const TraceEvent& e, int category) {
  const std::string_view k = e.kind();
  auto starts = [&](const char* p) { return k.rfind(p, 0) == 0; };
  const bool fault = e.node.value == 0;
  const bool leadership = k == "leader_change" || k == "partition_offline" || k == "become_leader" ||
                          k == "become_follower" || starts("controller") || k == "broker_change";
  const bool isr = starts("isr_");
  const bool log = k == "hw_advance" || starts("log_");
  const bool produce = starts("produce");
  const bool group = e.has("group");
  const bool zk = starts("zk_");
  switch (category) {
    case 0: return true;
    case 1: return fault;
    case 2: return leadership;
    case 3: return isr;
    case 4: return log;
    case 5: return produce;
    case 6: return group;
    case 7: return zk;
    case 8: return !(fault || leadership || isr || log || produce || group || zk);
  }
  return true;
}

// An event of an internal topic's partition, or a zk write under one (/brokers/topics/__consumer_offsets/...).
bool about_internal_topic(const TraceEvent& e) {
  if (is_internal_topic(e.get_string("topic"))) return true;
  return e.kind().rfind("zk_", 0) == 0 && e.get_string("path").find("/topics/__") != std::string::npos;
}

bool matches(const TraceEvent& e, const char* filter) {
  if (!*filter) return true;
  // Case-sensitive substring of "kind fields" (node names are in the fields of world events).
  return e.kind().find(filter) != std::string::npos || e.fields_json().find(filter) != std::string::npos ||
         std::to_string(e.node.value) == filter;
}

// The filtered list of event indices, kept across frames.
struct FilterCache {
  const History* history = nullptr;
  const TraceEvent* first = nullptr;  // detects a History that was replaced (a fork)
  std::string filter;
  int category = -1;
  bool internal = false;
  size_t scanned = 0;
  std::vector<size_t> rows;
};

}  // namespace

void draw_event_log(const DashboardModel& m, const ViewContext& c, UiState& ui) {
  static FilterCache cache;
  if (!c.history) return;
  const auto& events = c.history->events();
  ImGui::SetNextItemWidth(130);
  ImGui::Combo("##category", &ui.event_category, kCategories, IM_ARRAYSIZE(kCategories));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(240);
  ImGui::InputTextWithHint("##filter", "filter: kind, field text or node id", ui.event_filter, sizeof ui.event_filter);
  ImGui::SameLine();
  ImGui::Checkbox("follow", &ui.events_follow);
  if (m.internal_partitions() > 0) {
    ImGui::SameLine();
    internal_topics_toggle(m, ui);
  }

  const size_t n = c.history->events_until(m.now);
  const TraceEvent* first = events.empty() ? nullptr : &events.front();
  if (cache.history != c.history || cache.first != first || cache.filter != ui.event_filter || cache.category != ui.event_category ||
      cache.internal != ui.show_internal) {
    cache = FilterCache{c.history, first, ui.event_filter, ui.event_category, ui.show_internal, 0, {}};
  }
  if (n < cache.scanned) {
    cache.rows.erase(std::lower_bound(cache.rows.begin(), cache.rows.end(), n), cache.rows.end());
    cache.scanned = n;
  }
  for (; cache.scanned < n; cache.scanned++) {
    const TraceEvent& e = events[cache.scanned];
    if (!ui.show_internal && about_internal_topic(e)) continue;
    if (in_category(e, ui.event_category) && matches(e, ui.event_filter)) cache.rows.push_back(cache.scanned);
  }
  ImGui::SameLine();
  ImGui::TextDisabled("%zu of %zu events up to %s%s", cache.rows.size(), n, seconds_text(m.now).c_str(),
                      c.history->truncated() ? " (history full: later events not kept)" : "");

  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("events", 4, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("time", ImGuiTableColumnFlags_WidthFixed, 90);
  ImGui::TableSetupColumn("node", ImGuiTableColumnFlags_WidthFixed, 90);
  ImGui::TableSetupColumn("kind", ImGuiTableColumnFlags_WidthFixed, 150);
  ImGui::TableSetupColumn("fields", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(cache.rows.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; i++) {
      const TraceEvent& e = events[cache.rows[static_cast<size_t>(i)]];
      ImGui::TableNextRow();
      if (e.node.value == 0) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, IM_COL32(110, 35, 35, 150));
      else if (e.kind() == "leader_change" || e.kind() == "partition_offline") ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, IM_COL32(100, 85, 20, 150));
      else if (e.kind() == "isr_change") ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, IM_COL32(100, 60, 20, 150));
      ImGui::TableNextColumn();
      ImGui::Text("%.6f", static_cast<double>(e.time.us) / 1e6);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(e.node.value == 0 ? "world" : node_label(m, e.node.value).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(e.kind().data(), e.kind().data() + e.kind().size());
      ImGui::TableNextColumn();
      const std::string f = e.fields_json();
      ImGui::TextUnformatted(f.c_str());
    }
  }
  if (ui.events_follow) ImGui::SetScrollHereY(1.0f);
  ImGui::EndTable();
}

}  // namespace gregor::gui
