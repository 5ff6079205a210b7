// The transactions view (KIP-98), as kafka-transactions.sh --list / describe would show it, over
// time: every transactional.id with its producer id and epoch, its state as the coordinator wrote
// it (Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, PrepareEpochFence),
// the partitions of its transaction and its coordinator; the producer instances behind the id
// (a fenced zombie shows its PRODUCER_FENCED); the states of the last seconds as a strip; and per
// partition the LSO beside the HW, the transactions that hold the LSO back, and the markers.
#include <algorithm>
#include <cstdio>

#include "gui/views.h"

namespace gregor::gui {

ImU32 txn_state_color(const std::string& state) {
  if (state == "Ongoing") return IM_COL32(90, 150, 240, 255);
  if (state == "PrepareCommit") return IM_COL32(170, 230, 120, 255);
  if (state == "CompleteCommit") return IM_COL32(60, 190, 90, 255);
  if (state == "PrepareAbort") return IM_COL32(245, 160, 80, 255);
  if (state == "CompleteAbort") return IM_COL32(220, 70, 70, 255);
  if (state == "PrepareEpochFence") return IM_COL32(200, 110, 240, 255);
  if (state == "Dead") return IM_COL32(90, 90, 95, 255);
  return IM_COL32(120, 120, 130, 255);  // Empty
}

namespace {

constexpr int64_t kStripUs = 10'000'000;  // the state strip shows the last 10 s

std::string tp_text(const PartitionModel& p) { return p.topic + "-" + std::to_string(p.partition); }

// The states of one transactional id over [now - 10 s, now], one colored span per state.
void state_strip(const TransactionModel& t, Time now) {
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float w = std::max(200.0f, ImGui::GetContentRegionAvail().x - 10), h = 18;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(o, ImVec2(o.x + w, o.y + h), IM_COL32(30, 32, 40, 255));
  const int64_t t0 = std::max<int64_t>(0, now.us - kStripUs), t1 = std::max<int64_t>(t0 + 1, now.us);
  auto x_of = [&](int64_t us) {
    return o.x + w * static_cast<float>(static_cast<double>(std::clamp(us, t0, t1) - t0) / static_cast<double>(t1 - t0));
  };
  for (size_t i = 0; i < t.history.size(); i++) {
    const int64_t from = t.history[i].from.us;
    const int64_t to = i + 1 < t.history.size() ? t.history[i + 1].from.us : now.us;
    if (from > now.us || to < t0) continue;
    const float x0 = x_of(from), x1 = std::max(x_of(to), x0 + 1);
    dl->AddRectFilled(ImVec2(x0, o.y + 1), ImVec2(x1, o.y + h - 1), txn_state_color(t.history[i].state));
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(t0) / 1e6);
  dl->AddText(ImVec2(o.x, o.y + h + 1), IM_COL32(150, 150, 160, 255), buf);
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(t1) / 1e6);
  dl->AddText(ImVec2(o.x + w - ImGui::CalcTextSize(buf).x, o.y + h + 1), IM_COL32(150, 150, 160, 255), buf);
  ImGui::Dummy(ImVec2(w, h + 16));
}

void state_legend() {
  for (const char* s : {"Empty", "Ongoing", "PrepareCommit", "CompleteCommit", "PrepareAbort", "CompleteAbort", "PrepareEpochFence"}) {
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(s).x + 20) ImGui::NewLine();
    const ImVec2 a = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(a.x, a.y + 3), ImVec2(a.x + 12, a.y + 13), txn_state_color(s));
    ImGui::Dummy(ImVec2(14, 14));
    ImGui::SameLine(0, 3);
    ImGui::TextUnformatted(s);
    ImGui::SameLine(0, 12);
  }
  ImGui::NewLine();
}

}  // namespace

void draw_txn_view(const DashboardModel& m, const ViewContext& c, UiState& ui) {
  (void)c;
  if (m.transactions.empty()) {
    ImGui::TextWrapped("No transactions in this run yet. When a producer with a transactional.id starts, this tab lists "
                       "its transactions as its coordinator records them (Ongoing, PrepareCommit, CompleteCommit, "
                       "PrepareAbort, CompleteAbort), and per partition the last stable offset (LSO) beside the high "
                       "watermark: read_committed consumers read only below the LSO.");
    return;
  }
  ImGui::Text("%zu transactional id%s (kafka-transactions --list / describe)", m.transactions.size(),
              m.transactions.size() == 1 ? "" : "s");
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersV | ImGuiTableFlags_BordersOuterH | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("txns", 9, flags)) {
    ImGui::TableSetupColumn("TransactionalId", 0, 1.4f);
    ImGui::TableSetupColumn("ProducerId", 0, 0.8f);
    ImGui::TableSetupColumn("Epoch", 0, 0.5f);
    ImGui::TableSetupColumn("State", 0, 1.2f);
    ImGui::TableSetupColumn("since", 0, 0.8f);
    ImGui::TableSetupColumn("Partitions", 0, 2.0f);
    ImGui::TableSetupColumn("Coordinator", 0, 0.8f);
    ImGui::TableSetupColumn("commits", 0, 0.6f);
    ImGui::TableSetupColumn("aborts", 0, 0.6f);
    ImGui::TableHeadersRow();
    for (const auto& t : m.transactions) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(t.transactional_id.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(t.producer_id));
      ImGui::TableNextColumn();
      ImGui::Text("%d", t.producer_epoch);
      ImGui::TableNextColumn();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(txn_state_color(t.state)), "%s", t.state.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(seconds_text(t.since).c_str());
      ImGui::TableNextColumn();
      std::string parts;
      for (const auto& p : t.partitions) parts += (parts.empty() ? "" : ", ") + p;
      ImGui::TextUnformatted(parts.empty() ? "-" : parts.c_str());
      ImGui::TableNextColumn();
      if (t.coordinator >= 0) {
        const NodeModel* n = m.node(t.coordinator);
        const bool alive = n && n->status == NodeStatus::kAlive;
        ImGui::TextColored(alive ? ImVec4(0.85f, 0.85f, 0.9f, 1) : ImVec4(1, 0.4f, 0.4f, 1), "broker %d%s", t.coordinator,
                           alive ? "" : " (down)");
      } else {
        ImGui::TextDisabled("-");
      }
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(t.commits));
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(t.aborts));
    }
    ImGui::EndTable();
  }

  for (const auto& t : m.transactions) {
    ImGui::PushID(t.transactional_id.c_str());
    ImGui::Separator();
    ImGui::Text("%s: the producer instances using it", t.transactional_id.c_str());
    for (const auto& cl : t.clients) {
      const bool failed = !cl.outcome.empty() && cl.outcome != "NONE";
      const bool bad = failed || cl.fenced;
      const bool current = cl.producer_id == t.producer_id && cl.epoch == t.producer_epoch;
      char line[256];
      std::snprintf(line, sizeof line, "  %s  producer id %lld epoch %d  last %s%s%s at %s%s", node_label(m, cl.client).c_str(),
                    static_cast<long long>(cl.producer_id), cl.epoch, cl.last.c_str(), failed ? " failed: " : "",
                    failed ? cl.outcome.c_str() : "", seconds_text(cl.at).c_str(),
                    cl.fenced ? "   FENCED (a zombie: a newer instance has the epoch)"
                    : current ? "   (the current epoch)"
                              : "");
      ImGui::TextColored(bad ? ImVec4(1, 0.45f, 0.4f, 1) : ImVec4(0.8f, 0.9f, 0.8f, 1), "%s", line);
    }
    ImGui::TextDisabled("its states over the last 10 s (as the coordinator wrote them to __transaction_state):");
    state_strip(t, m.now);
    ImGui::PopID();
  }
  state_legend();

  // Per partition: the LSO beside the HW.
  ImGui::Separator();
  ImGui::TextUnformatted("Partitions written in transactions: the LSO beside the HW (read_committed reads below the LSO)");
  if (ImGui::BeginTable("txn-partitions", 6, flags)) {
    ImGui::TableSetupColumn("partition", 0, 1.0f);
    ImGui::TableSetupColumn("HW", 0, 0.6f);
    ImGui::TableSetupColumn("LSO", 0, 0.6f);
    ImGui::TableSetupColumn("open transactions (producer id @ first offset)", 0, 2.2f);
    ImGui::TableSetupColumn("commit markers", 0, 0.8f);
    ImGui::TableSetupColumn("abort markers", 0, 0.8f);
    ImGui::TableHeadersRow();
    for (const auto& p : m.partitions) {
      if (p.commit_markers + p.abort_markers == 0 && p.open_txns.empty()) continue;
      if (p.internal && !ui.show_internal) continue;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (ImGui::Selectable(tp_text(p).c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) {
        ui.topic = p.topic;
        ui.partition = p.partition;
        ui.partition_chosen = true;
        ui.window_start = -1;
        ui.center_request = CenterView::kPartition;
      }
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(p.hw));
      ImGui::TableNextColumn();
      if (p.lso < p.hw)
        ImGui::TextColored(ImVec4(1, 0.65f, 0.25f, 1), "%lld (-%lld)", static_cast<long long>(p.lso),
                           static_cast<long long>(p.hw - p.lso));
      else
        ImGui::Text("%lld", static_cast<long long>(p.lso));
      ImGui::TableNextColumn();
      std::string open;
      for (const auto& [pid, first] : p.open_txns)
        open += (open.empty() ? "" : ", ") + std::to_string(pid) + " @ " + std::to_string(first);
      ImGui::TextUnformatted(open.empty() ? "none" : open.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(p.commit_markers));
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(p.abort_markers));
    }
    ImGui::EndTable();
  }
  ImGui::SameLine();
  internal_topics_toggle(m, ui);
  ImGui::TextDisabled("Click a partition for its replica logs, the markers drawn in them.");
}

}  // namespace gregor::gui
