// UserAction::describe: the one-line form of a dashboard action, for the event log and the timeline.
#include "gui/live_runner.h"

namespace gregor::gui {

namespace {
std::string id_list(const std::vector<int32_t>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); i++) out += (i ? "," : "") + std::to_string(ids[i]);
  return out;
}
}  // namespace

std::string UserAction::describe() const {
  if (kind == sim::FaultKind::kSetConfig) return "set " + key + "=" + value;
  const bool cut = kind == sim::FaultKind::kPartition || kind == sim::FaultKind::kHeal;
  if (cut && targets.empty()) return "heal all";
  std::string out = sim::fault_kind_name(kind);
  if (!targets.empty()) out += " " + id_list(targets);
  if (cut) out += " | " + (others.empty() ? std::string("others") : id_list(others));
  return out;
}

}  // namespace gregor::gui
