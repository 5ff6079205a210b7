// Partition view: one row per replica with its log as cells colored by leader epoch, committed
// cells (below the HW) solid and uncommitted ones faded, each row's LEO marked, the HW as a line
// across the rows, the leader's crown, ISR membership, and each follower's lag and time since it
// was last caught up against replica.lag.time.max.ms (the clock that shrinks the ISR).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gui/views.h"

namespace gregor::gui {

namespace {

// Transactions in the log: commit and abort markers, aborted records, the LSO.
constexpr ImU32 kCommitColor = IM_COL32(70, 235, 140, 255);
constexpr ImU32 kAbortColor = IM_COL32(255, 70, 90, 255);
constexpr ImU32 kAbortedColor = IM_COL32(255, 90, 90, 230);
constexpr ImU32 kLsoColor = IM_COL32(255, 165, 40, 255);

std::string tp_name(const PartitionModel& p) { return p.topic + "-" + std::to_string(p.partition); }

ImU32 partition_status_color(const PartitionModel& p) {
  if (p.offline || !p.leader_alive) return IM_COL32(215, 60, 60, 255);
  if (p.under_min_isr) return IM_COL32(240, 140, 40, 255);
  if (p.under_replicated) return IM_COL32(225, 200, 60, 255);
  return IM_COL32(80, 180, 100, 255);
}

void crown(ImDrawList* dl, ImVec2 at, float w, ImU32 color) {
  const float h = w * 0.7f, base = at.y + h * 0.5f;
  for (int i = 0; i < 3; i++) {
    const float x = at.x + w * static_cast<float>(i) / 3.0f;
    dl->AddTriangleFilled(ImVec2(x, base), ImVec2(x + w / 6, at.y), ImVec2(x + w / 3, base), color);
  }
  dl->AddRectFilled(ImVec2(at.x, base), ImVec2(at.x + w, at.y + h), color);
}

void choose_partition(const DashboardModel& m, UiState& ui) {
  const PartitionModel* first = m.default_partition();
  if (!first) return;
  if (!ui.partition_chosen || !m.partition(ui.topic, ui.partition)) {
    ui.topic = first->topic;
    ui.partition = first->partition;
  }
}

void partition_picker(const DashboardModel& m, UiState& ui) {
  const PartitionModel* cur = m.partition(ui.topic, ui.partition);
  const float start_x = ImGui::GetCursorScreenPos().x;
  ImGui::SetNextItemWidth(160);
  if (ImGui::BeginCombo("##partition", cur ? tp_name(*cur).c_str() : "-")) {
    for (const auto& p : m.partitions) {
      const bool sel = cur == &p;
      if (p.internal && !ui.show_internal && !sel) continue;
      if (ImGui::Selectable(tp_name(p).c_str(), sel)) {
        ui.topic = p.topic;
        ui.partition = p.partition;
        ui.partition_chosen = true;
        ui.window_start = -1;
      }
    }
    ImGui::EndCombo();
  }
  const int internal = m.internal_partitions();
  if (internal > 0) {
    ImGui::SameLine();
    internal_topics_toggle(m, ui);
  }
  std::vector<const PartitionModel*> chips;
  for (const auto& p : m.partitions)
    if (!p.internal || ui.show_internal) chips.push_back(&p);
  if (chips.size() <= 1) return;
  // Every partition as a chip colored by its state; click one to show it.
  ImGui::SameLine();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float chip = 11, gap = 2;
  const float avail = ImGui::GetContentRegionAvail().x;
  const int per_row = std::max(1, static_cast<int>(avail / (chip + gap)));
  const ImVec2 o = ImGui::GetCursorScreenPos();
  for (size_t i = 0; i < chips.size(); i++) {
    const auto& p = *chips[i];
    const ImVec2 a(o.x + static_cast<float>(static_cast<int>(i) % per_row) * (chip + gap),
                   o.y + static_cast<float>(static_cast<int>(i) / per_row) * (chip + gap));
    ImGui::SetCursorScreenPos(a);
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::InvisibleButton("chip", ImVec2(chip, chip))) {
      ui.topic = p.topic;
      ui.partition = p.partition;
      ui.partition_chosen = true;
      ui.window_start = -1;
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s  leader %d  ISR [%s]", tp_name(p).c_str(), p.leader, int_list_text(p.isr).c_str());
    ImGui::PopID();
    dl->AddRectFilled(a, ImVec2(a.x + chip, a.y + chip), partition_status_color(p), 2);
    if (cur == &p) dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(a.x + chip + 1, a.y + chip + 1), IM_COL32(255, 255, 255, 255), 2, 0, 2);
  }
  const int rows = (static_cast<int>(chips.size()) + per_row - 1) / per_row;
  ImGui::SetCursorScreenPos(ImVec2(start_x, o.y + static_cast<float>(rows) * (chip + gap) + 4));
  ImGui::Dummy(ImVec2(1, 1));
}

}  // namespace

void draw_partition_view(const DashboardModel& m, const ViewContext& c, UiState& ui) {
  choose_partition(m, ui);
  if (m.partitions.empty()) {
    ImGui::TextWrapped("No partitions yet: the cluster is starting (brokers register, a controller is elected, "
                       "then topics are created).");
    return;
  }
  partition_picker(m, ui);
  const PartitionModel* pp = m.partition(ui.topic, ui.partition);
  if (!pp) return;
  const PartitionModel& p = *pp;

  // The kafka-topics line for this partition, then its HW and LEO.
  ImGui::Text("Topic: %s  Partition: %d  Leader: %s  Replicas: %s  Isr: %s", p.topic.c_str(), p.partition,
              p.leader < 0 ? "none" : std::to_string(p.leader).c_str(), int_list_text(p.replicas).c_str(),
              int_list_text(p.isr).c_str());
  const bool txns = p.commit_markers + p.abort_markers > 0 || !p.open_txns.empty();
  if (txns)
    ImGui::Text("leader epoch %d   HW %lld   LSO %lld   LEO %lld   min.insync.replicas=%d   unclean.leader.election.enable=%s",
                p.leader_epoch, static_cast<long long>(p.hw), static_cast<long long>(p.lso), static_cast<long long>(p.leo),
                p.min_insync_replicas, p.unclean_leader_election ? "true" : "false");
  else
    ImGui::Text("leader epoch %d   HW %lld   LEO %lld   min.insync.replicas=%d   unclean.leader.election.enable=%s",
                p.leader_epoch, static_cast<long long>(p.hw), static_cast<long long>(p.leo), p.min_insync_replicas,
                p.unclean_leader_election ? "true" : "false");
  if (txns) {
    std::string open;
    for (const auto& [pid, first] : p.open_txns)
      open += (open.empty() ? "" : ", ") + std::string("producer ") + std::to_string(pid) + " from offset " + std::to_string(first);
    ImGui::TextColored(p.lso < p.hw ? ImVec4(1, 0.65f, 0.25f, 1) : ImVec4(0.7f, 0.7f, 0.75f, 1),
                       "transactions: %lld commit / %lld abort markers;  open: %s%s", static_cast<long long>(p.commit_markers),
                       static_cast<long long>(p.abort_markers), open.empty() ? "none" : open.c_str(),
                       p.lso < p.hw ? "  (they hold the LSO below the HW: read_committed consumers wait)" : "");
  }
  if (!p.adding.empty() || !p.removing.empty())
    ImGui::TextColored(ImVec4(0.45f, 0.75f, 1, 1),
                       "REASSIGNING: adding %s (they copy the log as followers), removing %s (once every target replica "
                       "is in the ISR)",
                       int_list_text(p.adding).c_str(), int_list_text(p.removing).c_str());
  if (p.offline) {
    ImGui::TextColored(ImVec4(1, 0.35f, 0.35f, 1), "OFFLINE: no replica of the ISR is alive to lead; writes fail.");
  } else if (!p.leader_alive) {
    ImGui::TextColored(ImVec4(1, 0.35f, 0.35f, 1),
                       "The leader (broker %d) is down, but the controller has not noticed yet: it waits for the "
                       "broker's ZooKeeper session to expire.",
                       p.leader);
  } else if (p.under_min_isr) {
    ImGui::TextColored(ImVec4(1, 0.6f, 0.2f, 1), "Under min ISR: acks=all writes fail with NOT_ENOUGH_REPLICAS.");
  } else if (p.under_replicated) {
    ImGui::TextColored(ImVec4(0.95f, 0.85f, 0.3f, 1), "Under-replicated: the ISR is smaller than the replica set.");
  }

  // Geometry.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x;
  const float label_w = 170, info_w = 250, row_h = 30, row_gap = 10, axis_h = 34;
  const float strip_x0 = origin.x + label_w, strip_w = std::max(60.0f, width - label_w - info_w - 10);
  const float strip_x1 = strip_x0 + strip_w;
  const float rows_y0 = origin.y + axis_h;

  int64_t lo = INT64_MAX, hi = 0;
  for (const auto& r : p.rows) {
    if (!r.has_log) continue;
    lo = std::min(lo, r.log_start);
    hi = std::max(hi, r.leo);
  }
  if (lo == INT64_MAX) lo = 0;
  const int64_t span = std::max<int64_t>(hi - lo + 2, 8);
  float cell_w = strip_w / static_cast<float>(span);
  int64_t w0 = lo;
  if (cell_w < 9) {
    cell_w = 9;
    const int64_t visible = static_cast<int64_t>(strip_w / cell_w);
    w0 = ui.window_start >= 0 ? std::clamp(ui.window_start, lo, std::max(lo, hi + 2 - visible)) : std::max(lo, hi + 2 - visible);
  }
  cell_w = std::min(cell_w, 30.0f);
  const int64_t visible = static_cast<int64_t>(strip_w / cell_w);
  const int64_t w1 = w0 + visible;
  auto x_of = [&](int64_t offset) { return strip_x0 + static_cast<float>(offset - w0) * cell_w; };

  // Offset axis.
  const int64_t tick = std::max<int64_t>(1, static_cast<int64_t>(std::pow(10.0, std::ceil(std::log10(70.0 / cell_w)))));
  for (int64_t o = (w0 + tick - 1) / tick * tick; o <= w1; o += tick) {
    const float x = x_of(o);
    dl->AddLine(ImVec2(x, rows_y0 - 6), ImVec2(x, rows_y0 - 2), IM_COL32(150, 150, 160, 255));
    char buf[24];
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(o));
    dl->AddText(ImVec2(x + 2, rows_y0 - 20), IM_COL32(150, 150, 160, 255), buf);
  }
  if (w0 > lo) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "< %lld earlier", static_cast<long long>(w0 - lo));
    dl->AddText(ImVec2(strip_x0 - ImGui::CalcTextSize(buf).x - 6, rows_y0 - 20), IM_COL32(150, 150, 160, 255), buf);
  }

  const float rows_y1 = rows_y0 + static_cast<float>(p.rows.size()) * (row_h + row_gap);
  for (size_t i = 0; i < p.rows.size(); i++) {
    const auto& r = p.rows[i];
    const float y = rows_y0 + static_cast<float>(i) * (row_h + row_gap);
    const ImU32 text = r.alive ? IM_COL32(225, 225, 230, 255) : IM_COL32(130, 130, 135, 255);
    // Label: crown, broker, ISR badge.
    float lx = origin.x;
    if (r.leader) crown(dl, ImVec2(lx, y + 6), 18, r.alive ? IM_COL32(250, 210, 60, 255) : IM_COL32(120, 110, 70, 255));
    lx += 22;
    std::string name = "broker " + std::to_string(r.broker);
    dl->AddText(ImVec2(lx, y + 1), text, name.c_str());
    const char* badge = r.in_isr ? "ISR" : "out of ISR";
    const ImU32 badge_bg = r.in_isr ? IM_COL32(50, 130, 70, 255) : IM_COL32(150, 50, 50, 255);
    const ImVec2 bs = ImGui::CalcTextSize(badge);
    const ImVec2 bpos(lx, y + row_h - bs.y - 1);
    dl->AddRectFilled(ImVec2(bpos.x - 2, bpos.y), ImVec2(bpos.x + bs.x + 2, bpos.y + bs.y), badge_bg, 3);
    dl->AddText(bpos, IM_COL32(240, 240, 240, 255), badge);
    std::string state;
    if (!r.alive) state = "down";
    else if (r.paused) state = "paused";
    else if (r.acting_leader && !r.leader) state = "zombie leader";
    if (!state.empty())
      dl->AddText(ImVec2(bpos.x + bs.x + 8, bpos.y), r.acting_leader && !r.leader ? IM_COL32(220, 130, 255, 255) : IM_COL32(230, 110, 110, 255),
                  state.c_str());

    // The strip: empty slots, then the log's cells.
    dl->AddRectFilled(ImVec2(strip_x0, y), ImVec2(strip_x1, y + row_h), IM_COL32(34, 36, 44, 255));
    for (const auto& run : r.runs) {
      const int64_t a = std::max(run.start, w0), b = std::min(run.end, w1);
      for (int64_t o = a; o < b; o++) {
        const float x = x_of(o);
        const bool committed = o < p.hw;
        const ImVec2 c0(x + 0.5f, y + 1), c1(x + cell_w - 0.5f, y + row_h - 1);
        dl->AddRectFilled(c0, c1, epoch_color(run.epoch, committed ? 1.0f : 0.28f));
        if (!committed) dl->AddRect(c0, c1, epoch_color(run.epoch, 0.9f));
      }
    }
    // Transactions: aborted data batches crossed out, markers (control batches) in their own colors.
    for (const auto& ab : r.aborted) {
      const int64_t a = std::max(ab.start, w0), b = std::min(ab.end, w1);
      if (a >= b) continue;
      const float x0 = x_of(a), x1 = x_of(b);
      dl->AddRectFilled(ImVec2(x0, y + 1), ImVec2(x1, y + row_h - 1), IM_COL32(25, 10, 12, 150));
      dl->AddLine(ImVec2(x0 + 1, y + row_h * 0.5f), ImVec2(x1 - 1, y + row_h * 0.5f), kAbortedColor, 2);
    }
    auto draw_markers = [&](const std::vector<int64_t>& offsets, ImU32 color, const char* letter) {
      for (int64_t o : offsets) {
        if (o < w0 || o >= w1) continue;
        const float x = x_of(o);
        const ImVec2 c0(x + 0.5f, y + 1), c1(x + cell_w - 0.5f, y + row_h - 1);
        // Dark with a colored frame and letter: unlike any epoch's (pastel) color.
        const ImU32 faded = o < p.hw ? color : (color & 0x00FFFFFF) | 0x90000000;
        if (cell_w >= 9) {
          dl->AddRectFilled(c0, c1, IM_COL32(12, 12, 16, 255));
          dl->AddRect(c0, c1, faded, 0, 0, 2);
          const ImVec2 ts = ImGui::CalcTextSize(letter);
          dl->AddText(ImVec2(x + (cell_w - ts.x) / 2, y + (row_h - ts.y) / 2), faded, letter);
        } else {
          dl->AddRectFilled(c0, c1, faded);
        }
      }
    };
    draw_markers(r.commit_markers, kCommitColor, "C");
    draw_markers(r.abort_markers, kAbortColor, "A");
    // This replica's LSO when a transaction holds it below its HW: an orange tick at the top.
    if (txns && r.has_log && r.lso >= w0 && r.lso <= w1 && r.lso < r.hw) {
      const float x = x_of(r.lso);
      dl->AddLine(ImVec2(x, y), ImVec2(x, y + 8), kLsoColor, 3);
    }
    if (!r.alive) dl->AddRectFilled(ImVec2(strip_x0, y), ImVec2(strip_x1, y + row_h), IM_COL32(20, 20, 24, 140));
    // LEO: where the next append goes.
    if (r.has_log && r.leo >= w0 && r.leo <= w1) {
      const float x = x_of(r.leo);
      dl->AddLine(ImVec2(x, y - 3), ImVec2(x, y + row_h + 3), IM_COL32(255, 255, 255, 255), 2);
      const ImVec2 tri[] = {ImVec2(x - 5, y + row_h + 7), ImVec2(x + 5, y + row_h + 7), ImVec2(x, y + row_h + 2)};
      dl->AddConvexPolyFilled(tri, 3, IM_COL32(255, 255, 255, 255));
    }
    // This replica's own HW (a follower learns it from the leader's fetch responses).
    if (r.has_log && r.hw >= w0 && r.hw <= w1 && r.hw != p.hw) {
      const float x = x_of(r.hw);
      dl->AddLine(ImVec2(x, y + row_h - 8), ImVec2(x, y + row_h), IM_COL32(80, 220, 255, 255), 3);
    }

    // Info: LEO, lag, and the lag clock against replica.lag.time.max.ms.
    const float ix = strip_x1 + 12;
    char buf[128];
    if (txns)
      std::snprintf(buf, sizeof buf, "LEO %lld  HW %lld  LSO %lld", static_cast<long long>(r.leo), static_cast<long long>(r.hw),
                    static_cast<long long>(r.lso));
    else
      std::snprintf(buf, sizeof buf, "LEO %lld  HW %lld", static_cast<long long>(r.leo), static_cast<long long>(r.hw));
    dl->AddText(ImVec2(ix, y), text, buf);
    if (r.leader) {
      dl->AddText(ImVec2(ix, y + 15), IM_COL32(250, 210, 60, 255), r.acting_leader ? "leader" : "leader (not acting)");
    } else if (r.has_log) {
      const double max_ms = static_cast<double>(std::max<int64_t>(1, c.replica_lag_time_max_ms));
      const double frac = r.since_caught_up_ms < 0 ? 1.0 : std::min(1.0, static_cast<double>(r.since_caught_up_ms) / max_ms);
      if (!r.alive) {
        std::snprintf(buf, sizeof buf, "lag %lld, down (not fetching)", static_cast<long long>(r.lag));
      } else if (r.lag == 0) {
        std::snprintf(buf, sizeof buf, "lag 0, caught up");
      } else if (r.since_caught_up_ms < 0) {
        std::snprintf(buf, sizeof buf, "lag %lld, never caught up", static_cast<long long>(r.lag));
      } else {
        std::snprintf(buf, sizeof buf, "lag %lld, behind %.1f/%.0f s", static_cast<long long>(r.lag),
                      static_cast<double>(r.since_caught_up_ms) / 1000.0, max_ms / 1000.0);
      }
      dl->AddText(ImVec2(ix, y + 15), text, buf);
      if (!r.alive) continue;  // no lag clock for a replica that is not running
      const float bar_w = info_w - 20;
      dl->AddRectFilled(ImVec2(ix, y + row_h + 1), ImVec2(ix + bar_w, y + row_h + 4), IM_COL32(50, 52, 60, 255));
      const ImU32 bar = frac > 0.8 ? IM_COL32(230, 70, 70, 255) : frac > 0.3 ? IM_COL32(240, 160, 50, 255) : IM_COL32(80, 190, 110, 255);
      dl->AddRectFilled(ImVec2(ix, y + row_h + 1), ImVec2(ix + bar_w * static_cast<float>(frac), y + row_h + 4), bar);
    }
  }

  // The HW: one line across every row; everything left of it is committed.
  if (p.hw >= w0 && p.hw <= w1) {
    const float x = x_of(p.hw);
    dl->AddLine(ImVec2(x, rows_y0 - 4), ImVec2(x, rows_y1 - row_gap + 4), IM_COL32(80, 220, 255, 255), 2.5f);
    char buf[32];
    std::snprintf(buf, sizeof buf, "HW %lld", static_cast<long long>(p.hw));
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    dl->AddRectFilled(ImVec2(x - ts.x / 2 - 3, rows_y0 - 36), ImVec2(x + ts.x / 2 + 3, rows_y0 - 36 + ts.y), IM_COL32(20, 70, 90, 255), 3);
    dl->AddText(ImVec2(x - ts.x / 2, rows_y0 - 36), IM_COL32(80, 220, 255, 255), buf);
  }
  // The LSO: where read_committed consumers stop. Drawn across the rows when a transaction holds
  // it below the HW (otherwise it is the HW), with its number beside the HW's.
  if (txns && p.lso < p.hw && p.lso >= w0 && p.lso <= w1) {
    const float x = x_of(p.lso);
    for (float yy = rows_y0 - 4; yy < rows_y1 - row_gap + 4; yy += 8)
      dl->AddLine(ImVec2(x, yy), ImVec2(x, std::min(yy + 5, rows_y1 - row_gap + 4)), kLsoColor, 2.5f);
    char buf[32];
    std::snprintf(buf, sizeof buf, "LSO %lld", static_cast<long long>(p.lso));
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    // Left of its line, so that it does not cover the HW's label when the two are close.
    const float lx = x - ts.x - 6;
    dl->AddRectFilled(ImVec2(lx - 3, rows_y0 - 36), ImVec2(x - 3, rows_y0 - 36 + ts.y), IM_COL32(90, 55, 15, 255), 3);
    dl->AddText(ImVec2(lx, rows_y0 - 36), kLsoColor, buf);
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, rows_y1 + 6));

  // Legend: the epochs present, and what solid and faded mean.
  std::vector<int32_t> epochs;
  for (const auto& r : p.rows)
    for (const auto& run : r.runs)
      if (std::find(epochs.begin(), epochs.end(), run.epoch) == epochs.end()) epochs.push_back(run.epoch);
  std::sort(epochs.begin(), epochs.end());
  ImGui::TextDisabled("leader epoch:");
  for (int32_t e : epochs) {
    ImGui::SameLine();
    const ImVec2 a = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(ImVec2(a.x, a.y + 2), ImVec2(a.x + 14, a.y + 14), epoch_color(e));
    ImGui::Dummy(ImVec2(16, 14));
    ImGui::SameLine(0, 2);
    ImGui::Text("%d", e);
  }
  ImGui::SameLine(0, 20);
  ImGui::TextDisabled("solid: committed (below HW)   faded: not yet committed   white bar: LEO   cyan: HW");
  if (txns) {
    auto swatch = [&](ImU32 col, const char* text) {
      if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(text).x + 20) ImGui::NewLine();
      const ImVec2 a = ImGui::GetCursorScreenPos();
      dl->AddRectFilled(ImVec2(a.x, a.y + 2), ImVec2(a.x + 14, a.y + 14), IM_COL32(12, 12, 16, 255));
      dl->AddRect(ImVec2(a.x, a.y + 2), ImVec2(a.x + 14, a.y + 14), col, 0, 0, 2);
      ImGui::Dummy(ImVec2(16, 14));
      ImGui::SameLine(0, 3);
      ImGui::TextDisabled("%s", text);
      ImGui::SameLine(0, 14);
    };
    swatch(kCommitColor, "C: commit marker");
    swatch(kAbortColor, "A: abort marker");
    swatch(kAbortedColor, "crossed out: aborted records");
    swatch(kLsoColor, "orange dashes: LSO (read_committed reads below it)");
    ImGui::NewLine();
  }
  if (hi - lo + 2 > visible) {
    bool follow = ui.window_start < 0;
    if (ImGui::Checkbox("follow the tail", &follow)) ui.window_start = follow ? -1 : w0;
    if (!follow) {
      ImGui::SameLine();
      int start = static_cast<int>(w0);
      ImGui::SetNextItemWidth(300);
      if (ImGui::SliderInt("first offset shown", &start, static_cast<int>(lo), static_cast<int>(std::max(lo, hi + 2 - visible))))
        ui.window_start = start;
    }
  }

  // This partition's story: its leader and ISR changes so far.
  if (c.history) {
    const std::string prefix = tp_name(p) + " ";
    std::vector<const TimelineMarker*> mine;
    for (const auto& mk : c.history->markers())
      if (mk.at <= m.now && mk.label.compare(0, prefix.size(), prefix) == 0) mine.push_back(&mk);
    // Counted from the same markers as listed: the controller shrinking the ISR as it elects a new
    // leader is an ISR change too, though no isr_change event is written for it.
    int leader_changes = 0, isr_changes = 0;
    for (const auto* mk : mine) {
      leader_changes += mk->kind == MarkerKind::kLeader;
      isr_changes += mk->kind == MarkerKind::kIsrShrink || mk->kind == MarkerKind::kIsrExpand;
    }
    ImGui::Separator();
    ImGui::Text("Leader and ISR changes of %s (%d leader elections, %d ISR changes):", tp_name(p).c_str(), leader_changes,
                isr_changes);
    const size_t first = mine.size() > 8 ? mine.size() - 8 : 0;
    for (size_t i = first; i < mine.size(); i++) {
      const ImU32 col = marker_color(mine[i]->kind);
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(col), "%10s  %s", seconds_text(mine[i]->at).c_str(), mine[i]->label.c_str());
    }
    if (mine.empty()) ImGui::TextDisabled("none yet");
  }
}

}  // namespace gregor::gui
