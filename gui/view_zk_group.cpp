// A ZooKeeper-coordinated consumer group (Kafka 0.8's high-level consumer) in the Groups tab. There
// is no coordinator broker and no generation to show, so instead of kafka-consumer-groups' tables
// this shows what 0.8's tools read from ZooKeeper (ConsumerOffsetChecker: group, topic, partition,
// offset, log size, lag, owner), the members' registrations and sessions, what each member actually
// consumes (which may differ from what zk says it owns), and the rebalances: how many watches each
// cost (the herd) and where claims collided.
#include <string>

#include "gui/views.h"

namespace gregor::gui {

namespace {

const ImVec4 kRed(1.0f, 0.42f, 0.42f, 1);
const ImVec4 kOrange(1.0f, 0.7f, 0.3f, 1);
const ImVec4 kGreen(0.5f, 0.85f, 0.55f, 1);
const ImVec4 kGrey(0.6f, 0.6f, 0.65f, 1);

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out.empty() ? "-" : out;
}

ImVec2 table_size(size_t rows, size_t max_rows) {
  const size_t shown = std::min(rows, max_rows);
  return ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(shown + 1) + ImGui::GetStyle().ScrollbarSize + 8);
}

void text_or_dash(int64_t v) {
  if (v < 0) ImGui::TextUnformatted("-");
  else ImGui::Text("%" PRId64, v);
}

}  // namespace

void draw_zk_group(const DashboardModel& m, const GroupModel& g) {
  const ZkGroupModel& z = g.zk;
  int registered = 0;
  for (const auto& mem : z.members) registered += mem.registered;
  ImGui::Text("GROUP %s", g.group.c_str());
  ImGui::SameLine();
  ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1), "coordination: ZooKeeper (Kafka 0.8)");
  ImGui::SameLine();
  ImGui::Text("  STATE %s   #MEMBERS %d   consumed %lld", g.state.c_str(), registered, static_cast<long long>(g.consumed));
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("No coordinator broker and no generation: each member reads /consumers/%s, computes the range "
                     "assignment itself and claims its partitions with ephemeral owner znodes.",
                     g.group.c_str());
  ImGui::PopStyleColor();
  ImGui::TextWrapped("rebalances %lld (member rebalances %lld)   watches fired on ids/ %lld   retries %lld   claim "
              "conflicts (NodeExists) %lld   failed %lld   records processed again %lld",
              static_cast<long long>(z.rebalance_count), static_cast<long long>(z.member_rebalances),
              static_cast<long long>(z.watches_fired), static_cast<long long>(z.retries),
              static_cast<long long>(z.conflicts), static_cast<long long>(z.failed),
              static_cast<long long>(z.duplicates));
  if (z.conflicting_partitions > 0)
  {
    ImGui::PushStyleColor(ImGuiCol_Text, kRed);
    ImGui::TextWrapped("%d partition(s) consumed by two members at once: a member whose session expired goes on "
                       "until its next rebalance, and nothing fences it out.",
                       z.conflicting_partitions);
    ImGui::PopStyleColor();
  }

  const ImGuiTableFlags flags =
      ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;

  // Partitions: owner and offset as zk has them, then who really consumes.
  ImGui::TextDisabled("/consumers/%s/owners and /offsets (ConsumerOffsetChecker), and who consumes each partition",
                      g.group.c_str());
  if (ImGui::BeginTable("zk-partitions", 7, flags, table_size(z.partitions.size(), 64))) {
    for (const char* h : {"TOPIC", "PARTITION", "OWNER (zk)", "OFFSET (zk)", "LOG-END-OFFSET", "LAG", "CONSUMING (member@position)"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const auto& p : z.partitions) {
      ImGui::TableNextRow();
      if (p.conflict) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, IM_COL32(110, 40, 40, 200));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(p.topic.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d", p.partition);
      ImGui::TableNextColumn();
      if (p.owner.empty()) ImGui::TextColored(kGrey, "(none)");
      else ImGui::TextUnformatted(p.owner.c_str());
      ImGui::TableNextColumn();
      text_or_dash(p.committed);
      ImGui::TableNextColumn();
      text_or_dash(p.log_end);
      ImGui::TableNextColumn();
      text_or_dash(p.lag);
      ImGui::TableNextColumn();
      std::string who;
      for (const auto& [member, position] : p.consumers)
        who += (who.empty() ? "" : "  ") + member + "@" + (position < 0 ? std::string("-") : std::to_string(position)) +
               (member != p.owner ? " (not the owner)" : "");
      if (p.duplicates > 0) who += (who.empty() ? "" : "  ") + std::string("[") + std::to_string(p.duplicates) + " again]";
      if (p.conflict) ImGui::TextColored(kRed, "%s", who.c_str());
      else ImGui::TextUnformatted(who.empty() ? "-" : who.c_str());
    }
    ImGui::EndTable();
  }

  // Members: registration and session.
  ImGui::TextDisabled("/consumers/%s/ids: the members, their zk sessions and what they own", g.group.c_str());
  if (ImGui::BeginTable("zk-members", 8, flags, table_size(z.members.size(), 32))) {
    for (const char* h : {"MEMBER", "NODE", "NOW", "ZK SESSION", "ids/ znode", "OWNS (zk)", "CONSUMES", "REBALANCES (last: attempts)"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const auto& mem : z.members) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(mem.member_id.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(mem.client < 0 ? "-" : node_label(m, mem.client).c_str());
      ImGui::TableNextColumn();
      if (!mem.alive) ImGui::TextColored(kRed, "down");
      else if (mem.rebalancing) ImGui::TextColored(kOrange, "rebalancing");
      else ImGui::TextUnformatted("consuming");
      ImGui::TableNextColumn();
      const std::string session = mem.session != 0 ? session_hex(mem.session) + " " : "";
      const bool expired = mem.session_state == "expired";
      ImGui::TextColored(expired ? kRed : mem.session_state == "open" ? kGreen : kGrey, "%s%s", session.c_str(),
                         mem.session_state.c_str());
      ImGui::TableNextColumn();
      if (mem.registered) ImGui::TextColored(kGreen, "registered");
      else ImGui::TextColored(kGrey, "gone");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(join(mem.owned).c_str());
      ImGui::TableNextColumn();
      if (mem.stale) ImGui::TextColored(kOrange, "%s (stale)", join(mem.believed).c_str());
      else ImGui::TextUnformatted(join(mem.believed).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%lld (%d)%s", static_cast<long long>(mem.rebalances), mem.last_attempts,
                  mem.failed > 0 ? (" " + std::to_string(mem.failed) + " FAILED").c_str() : "");
    }
    ImGui::EndTable();
  }

  // Rebalance history, newest first.
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("Rebalances (newest first): every member watches ids/, so each change fires a watch and a "
                     "rebalance on every member");
  ImGui::PopStyleColor();
  if (!z.rebalances.empty() && ImGui::BeginTable("zk-rebalances", 8, flags | ImGuiTableFlags_ScrollY, table_size(z.rebalances.size(), 8))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* h : {"#", "START", "END", "TRIGGER", "MEMBERS", "WATCHES", "RETRIES", "CONFLICTS / FAILED"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    const int64_t first_number = z.rebalance_count - static_cast<int64_t>(z.rebalances.size()) + 1;
    for (size_t i = z.rebalances.size(); i-- > 0;) {
      const ZkRebalanceModel& r = z.rebalances[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(first_number + static_cast<int64_t>(i)));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(seconds_text(r.start).c_str());
      ImGui::TableNextColumn();
      if (r.open) ImGui::TextColored(kOrange, "running");
      else ImGui::TextUnformatted(seconds_text(r.end).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%s (%s)", r.trigger.c_str(), r.first_member.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.members);
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(r.watches_fired));
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(r.retries));
      ImGui::TableNextColumn();
      if (r.conflicts > 0 || r.failed > 0)
        ImGui::TextColored(kOrange, "%lld / %lld", static_cast<long long>(r.conflicts), static_cast<long long>(r.failed));
      else
        ImGui::TextUnformatted("0 / 0");
    }
    ImGui::EndTable();
  }
}

}  // namespace gregor::gui
