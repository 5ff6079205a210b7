// The ZooKeeper view: the znode tree as a ZooKeeper-era Kafka operator reads it with zkCli.sh
// (ls, get -s), live or replayed: data, version, the ephemeral owner and its session, and which
// node wrote each znode last; beside it the sessions, and the latest activity, where the
// controller's election multi, a leader's conditional ISR write, a refused write and every watch
// that fired show up in order, each with the node behind it.
#include <algorithm>
#include <cstdio>

#include "engine/coord/zxid.h"
#include "gui/views.h"

namespace gregor::gui {

namespace {

// A zxid as ZooKeeper's tools print it (0x<hex>: the epoch is the digits above the low eight),
// with its epoch and counter spelled out (engine/coord/zxid.h).
std::string zxid_text(int64_t zxid) {
  if (zxid <= 0) return coord::zxid_hex(zxid);
  return coord::zxid_hex(zxid) + " (epoch " + std::to_string(coord::zxid_epoch(zxid)) + " #" +
         std::to_string(coord::zxid_counter(zxid)) + ")";
}

// How long a changed znode stays highlighted, in virtual time.
constexpr int64_t kRecentUs = 2'000'000;

std::string who(const DashboardModel& m, int32_t node) { return node < 0 ? "-" : node_label(m, node); }

std::string last_component(const std::string& path) {
  return path == "/" ? "/" : path.substr(path.rfind('/') + 1);
}

std::string shorten(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

bool under(const std::string& path, const std::string& dir) {
  return dir == "/" ? path.size() > 1
                    : path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/';
}

ImVec4 activity_color(const std::string& what) {
  if (what == "refused") return ImVec4(1.0f, 0.45f, 0.4f, 1);
  if (what == "watch") return ImVec4(0.55f, 0.75f, 1.0f, 1);
  if (what == "session") return ImVec4(0.85f, 0.75f, 0.45f, 1);
  if (what == "delete") return ImVec4(0.9f, 0.6f, 0.4f, 1);
  return ImVec4(0.75f, 0.9f, 0.7f, 1);
}

// Draws the znodes from index i on that sit below `dir`, as a tree; returns the first index after them.
size_t draw_subtree(const DashboardModel& m, const ViewContext& c, UiState& ui, size_t i, const std::string& dir) {
  const auto& zs = m.zk.znodes;
  while (i < zs.size() && (dir.empty() || under(zs[i].path, dir))) {
    const ZnodeModel& z = zs[i];
    const bool has_children = i + 1 < zs.size() && under(zs[i + 1].path, z.path);
    ImGui::TableNextRow();
    const bool recent = z.modified.us > 0 && c.head.us - z.modified.us >= 0 && c.head.us - z.modified.us < kRecentUs;
    if (recent) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(70, 90, 50, 160));
    ImGui::TableNextColumn();
    ImGuiTreeNodeFlags flags = ImGuiTreeNodeFlags_SpanFullWidth | ImGuiTreeNodeFlags_OpenOnArrow;
    if (!has_children) flags |= ImGuiTreeNodeFlags_Leaf | ImGuiTreeNodeFlags_NoTreePushOnOpen;
    // The cluster's own znodes start open; a big subtree (__consumer_offsets' partitions) does not.
    const bool internal = z.path.find("/topics/__") != std::string::npos;
    if (!internal && std::count(z.path.begin(), z.path.end(), '/') <= 2) flags |= ImGuiTreeNodeFlags_DefaultOpen;
    if (ui.zk_selected == z.path) flags |= ImGuiTreeNodeFlags_Selected;
    const bool open = ImGui::TreeNodeEx(z.path.c_str(), flags, "%s", last_component(z.path).c_str());
    if (ImGui::IsItemClicked()) ui.zk_selected = z.path;
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(shorten(z.data, 60).c_str());
    if (z.data.size() > 60 && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", z.data.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%d", z.version);
    ImGui::TableNextColumn();
    ImGui::Text("%d", z.cversion);
    ImGui::TableNextColumn();
    if (z.ephemeral_owner != 0)
      ImGui::Text("%s %s", who(m, z.owner_node).c_str(), session_hex(z.ephemeral_owner).c_str());
    else
      ImGui::TextDisabled("persistent");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(who(m, z.written_by).c_str());
    ImGui::TableNextColumn();
    if (z.mzxid > 0) ImGui::TextUnformatted(coord::zxid_hex(z.mzxid).c_str());
    i++;
    if (has_children) {
      if (open) {
        i = draw_subtree(m, c, ui, i, z.path);
        if (!(flags & ImGuiTreeNodeFlags_NoTreePushOnOpen)) ImGui::TreePop();
      } else {
        while (i < zs.size() && under(zs[i].path, z.path)) i++;  // folded: skip its descendants
      }
    }
  }
  return i;
}

void draw_selected(const DashboardModel& m, const UiState& ui) {
  const ZnodeModel* z = m.zk.znode(ui.zk_selected);
  if (!z) {
    ImGui::TextDisabled("Click a znode for its data, its Stat and its history.");
    return;
  }
  ImGui::Text("get -s %s", z->path.c_str());
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(z->data.empty() ? "(no data)" : z->data.c_str());
  ImGui::PopTextWrapPos();
  ImGui::TextDisabled("dataVersion = %d   cversion = %d   cZxid = %s   mZxid = %s   ephemeralOwner = %s",
                      z->version, z->cversion, zxid_text(z->czxid).c_str(), zxid_text(z->mzxid).c_str(),
                      z->ephemeral_owner ? session_hex(z->ephemeral_owner).c_str() : "0x0");
  ImGui::TextDisabled("created by %s, last written by %s at %s", who(m, z->created_by).c_str(),
                      who(m, z->written_by).c_str(), seconds_text(z->modified).c_str());
}

ImU32 role_color(const std::string& role) {
  if (role == "leading") return IM_COL32(245, 200, 60, 255);
  if (role == "following") return IM_COL32(80, 180, 110, 255);
  if (role == "looking") return IM_COL32(240, 120, 50, 255);
  if (role == "down") return IM_COL32(150, 45, 45, 255);
  return IM_COL32(90, 90, 100, 255);
}


// The replicated ensemble: each server's role, epoch, zxid, leader and sessions, then its role
// over the run as a strip (elections show as orange, a crash as dark red).
void draw_ensemble(const DashboardModel& m, const ViewContext& c) {
  const ZkModel& zk = m.zk;
  if (zk.ensemble_leader >= 0)
    ImGui::Text("ZooKeeper ensemble of %zu: leader %s in epoch %lld; last commit %s acked by %s", zk.ensemble.size(),
                node_label(m, zk.ensemble_leader).c_str(), static_cast<long long>(zk.ensemble_epoch),
                zxid_text(zk.last_commit_zxid).c_str(), int_list_text(zk.last_commit_acks).c_str());
  else
    ImGui::TextColored(ImVec4(1, 0.55f, 0.3f, 1), "ZooKeeper ensemble of %zu: NO LEADER (servers are looking: writes wait)",
                       zk.ensemble.size());
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersV | ImGuiTableFlags_BordersOuterH | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("ensemble", 8, flags)) {
    ImGui::TableSetupColumn("server", 0, 0.9f);
    ImGui::TableSetupColumn("role", 0, 0.8f);
    ImGui::TableSetupColumn("epoch", 0, 0.45f);
    ImGui::TableSetupColumn("last zxid", 0, 1.5f);
    ImGui::TableSetupColumn("leader", 0, 0.8f);
    ImGui::TableSetupColumn("sessions", 0, 0.55f);
    ImGui::TableSetupColumn("elections", 0, 0.55f);
    ImGui::TableSetupColumn("last sync", 0, 2.0f);
    ImGui::TableHeadersRow();
    for (const auto& s : zk.ensemble) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(node_label(m, s.id).c_str());
      ImGui::TableNextColumn();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(role_color(s.role)), "%s", s.role.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(s.epoch));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(zxid_text(s.zxid).c_str());
      ImGui::TableNextColumn();
      if (s.role == "following" || s.role == "leading")
        ImGui::TextUnformatted(node_label(m, s.leader).c_str());
      else
        ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      ImGui::Text("%d", s.sessions);
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(s.elections));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s.last_sync.empty() ? "-" : s.last_sync.c_str());
    }
    ImGui::EndTable();
  }
  // Roles over the run.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float label_w = 90, w = std::max(200.0f, ImGui::GetContentRegionAvail().x - label_w - 10), h = 14, gap = 3;
  const int64_t t1 = std::max<int64_t>(1, std::max(c.end.us, m.now.us));
  auto x_of = [&](int64_t us) {
    return o.x + label_w + w * static_cast<float>(static_cast<double>(std::clamp<int64_t>(us, 0, t1)) / static_cast<double>(t1));
  };
  float y = o.y;
  for (const auto& s : zk.ensemble) {
    dl->AddText(ImVec2(o.x, y), IM_COL32(200, 200, 210, 255), node_label(m, s.id).c_str());
    dl->AddRectFilled(ImVec2(x_of(0), y), ImVec2(x_of(t1), y + h), IM_COL32(30, 32, 40, 255));
    for (size_t i = 0; i < s.spans.size(); i++) {
      const int64_t from = s.spans[i].from.us;
      if (from > m.now.us) break;
      const int64_t to = i + 1 < s.spans.size() ? std::min(s.spans[i + 1].from.us, m.now.us) : m.now.us;
      const float x0 = x_of(from), x1 = std::max(x_of(to), x0 + 1);
      dl->AddRectFilled(ImVec2(x0, y + 1), ImVec2(x1, y + h - 1), role_color(s.spans[i].role));
      // The epoch a leader leads in, when there is room for it.
      if (s.spans[i].role == "leading" && x1 - x0 > 40) {
        char buf[24];
        std::snprintf(buf, sizeof buf, "epoch %lld", static_cast<long long>(s.spans[i].epoch));
        dl->AddText(ImVec2(x0 + 3, y - 1), IM_COL32(30, 25, 10, 255), buf);
      }
    }
    y += h + gap;
  }
  // Now, and the time axis.
  dl->AddLine(ImVec2(x_of(m.now.us), o.y - 2), ImVec2(x_of(m.now.us), y), IM_COL32(255, 255, 255, 200), 1.5f);
  const int64_t step = t1 > 60'000'000 ? 10'000'000 : 5'000'000;
  for (int64_t t = 0; t <= t1; t += step) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(t / 1'000'000));
    dl->AddText(ImVec2(x_of(t) - 4, y), IM_COL32(140, 140, 150, 255), buf);
  }
  ImGui::Dummy(ImVec2(label_w + w, y - o.y + 16));
  for (const char* r : {"leading", "following", "looking", "down"}) {
    const ImVec2 a = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(ImVec2(a.x, a.y + 3), ImVec2(a.x + 12, a.y + 13), role_color(r));
    ImGui::Dummy(ImVec2(14, 14));
    ImGui::SameLine(0, 3);
    ImGui::TextDisabled("%s", r);
    ImGui::SameLine(0, 12);
  }
  ImGui::TextDisabled("sessions: clients connected to the server now");
  ImGui::Separator();
}

}  // namespace

void draw_zk_view(const DashboardModel& m, const ViewContext& c, UiState& ui) {
  const ZkModel& zk = m.zk;
  if (!zk.ensemble.empty()) draw_ensemble(m, c);
  if (zk.server < 0) {
    ImGui::TextWrapped("No zk activity in this run yet. The tree, sessions and watches of the coordination service "
                       "show here as the zk server reports them.");
    return;
  }
  size_t live_sessions = 0;
  for (const auto& s : zk.sessions) live_sessions += s.state == "open" || s.state == "restored";
  ImGui::Text("%s %s   last zxid %s   %zu znodes   %zu live sessions   %lld watches fired   %lld writes refused",
              zk.ensemble.empty() ? "zk server" : "znodes as held by", node_label(m, zk.server).c_str(),
              zxid_text(zk.last_zxid).c_str(), zk.znodes.size(), live_sessions,
              static_cast<long long>(zk.watches_fired), static_cast<long long>(zk.refused));
  ImGui::TextDisabled("green rows: changed in the last 2 s of the run");
  // Without internal topics the toggle draws nothing: the tree must not start on this line.
  if (m.internal_partitions() > 0) {
    ImGui::SameLine();
    internal_topics_toggle(m, ui);
  }

  const float avail_h = ImGui::GetContentRegionAvail().y;
  const float tree_h = std::max(160.0f, avail_h * 0.58f);
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersV | ImGuiTableFlags_BordersOuterH | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_ScrollY | ImGuiTableFlags_NoBordersInBody;
  if (ImGui::BeginTable("znodes", 7, flags, ImVec2(0, tree_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("znode", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableSetupColumn("data", ImGuiTableColumnFlags_WidthStretch, 2.6f);
    ImGui::TableSetupColumn("ver", ImGuiTableColumnFlags_WidthFixed, 34);
    ImGui::TableSetupColumn("cver", ImGuiTableColumnFlags_WidthFixed, 34);
    ImGui::TableSetupColumn("ephemeral owner", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("last writer", ImGuiTableColumnFlags_WidthStretch, 0.6f);
    ImGui::TableSetupColumn("mzxid", ImGuiTableColumnFlags_WidthFixed, 80);
    ImGui::TableHeadersRow();
    draw_subtree(m, c, ui, 0, "");
    ImGui::EndTable();
  }
  draw_selected(m, ui);

  // Sessions, and the latest activity (newest at the bottom, following the run).
  if (!ui.zk_selected.empty()) ImGui::Checkbox("activity of the selected znode only", &ui.zk_only_selected);
  const float rest_h = std::max(120.0f, ImGui::GetContentRegionAvail().y);
  ImGui::BeginChild("zk-sessions", ImVec2(ImGui::GetContentRegionAvail().x * 0.34f, rest_h), true);
  ImGui::TextDisabled("sessions");
  for (const auto& s : zk.sessions) {
    const bool live = s.state == "open" || s.state == "restored";
    const ImVec4 color = live ? ImVec4(0.8f, 0.9f, 0.8f, 1) : ImVec4(0.55f, 0.55f, 0.6f, 1);
    ImGui::TextColored(color, "%s  %s  %s  %d ms  %d eph", session_hex(s.session).c_str(), who(m, s.node).c_str(),
                       s.state.c_str(), s.timeout_ms, s.ephemerals);
  }
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("zk-activity", ImVec2(0, rest_h), true);
  ImGui::TextDisabled("activity (writes, refusals, watches, sessions; ops of one multi share a zxid)");
  const bool filter = !ui.zk_selected.empty() && ui.zk_only_selected;
  size_t hidden_internal = 0;
  for (const auto& a : zk.activity) {
    if (filter && a.path != ui.zk_selected) continue;
    // Internal topics' znodes (__consumer_offsets' 50 partitions) are folded away like elsewhere.
    if (!ui.show_internal && !filter && a.path.find("/topics/__") != std::string::npos) {
      hidden_internal++;
      continue;
    }
    const std::string zxid = a.zxid > 0 ? coord::zxid_hex(a.zxid) : "";
    ImGui::TextColored(activity_color(a.what), "%s  %-11s %-7s %s %s  %s", seconds_text(a.at).c_str(), zxid.c_str(),
                       a.what.c_str(), who(m, a.node).c_str(), a.path.c_str(), shorten(a.detail, 90).c_str());
  }
  if (hidden_internal > 0)
    ImGui::TextDisabled("(%zu of internal topics' znodes not shown: see the internal topics toggle)", hidden_internal);
  if (ImGui::GetScrollY() >= ImGui::GetScrollMaxY() - 4) ImGui::SetScrollHereY(1.0f);
  ImGui::EndChild();
}

}  // namespace gregor::gui
