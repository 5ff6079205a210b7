#include "engine/group/group_metadata.h"

#include <algorithm>

namespace gregor::group {

const char* group_state_name(GroupState s) {
  switch (s) {
    case GroupState::kEmpty: return "Empty";
    case GroupState::kPreparingRebalance: return "PreparingRebalance";
    case GroupState::kCompletingRebalance: return "CompletingRebalance";
    case GroupState::kStable: return "Stable";
    case GroupState::kDead: return "Dead";
  }
  return "Unknown";
}

bool valid_transition(GroupState from, GroupState to) {
  switch (to) {
    case GroupState::kDead: return true;
    case GroupState::kCompletingRebalance: return from == GroupState::kPreparingRebalance;
    case GroupState::kStable: return from == GroupState::kCompletingRebalance;
    case GroupState::kPreparingRebalance:
      return from == GroupState::kStable || from == GroupState::kCompletingRebalance || from == GroupState::kEmpty;
    case GroupState::kEmpty: return from == GroupState::kPreparingRebalance;
  }
  return false;
}

const Bytes* MemberMetadata::metadata(const std::string& protocol) const {
  for (const auto& [name, data] : protocols)
    if (name == protocol) return &data;
  return nullptr;
}

bool MemberMetadata::matches(const std::vector<protocol::JoinGroupRequest::JoinGroupRequestProtocol>& p) const {
  if (p.size() != protocols.size()) return false;
  for (size_t i = 0; i < p.size(); i++)
    if (p[i].name != protocols[i].first || p[i].metadata != protocols[i].second) return false;
  return true;
}

size_t GroupMetadata::awaiting_join_count() const {
  size_t n = 0;
  for (const auto& [id, m] : members)
    if (m.awaiting_join) n++;
  return n;
}

int32_t GroupMetadata::rebalance_timeout_ms() const {
  int32_t t = 0;
  for (const auto& [id, m] : members) t = std::max(t, m.rebalance_timeout_ms);
  return t;
}

bool GroupMetadata::supports_protocols(const std::string& type,
                                       const std::vector<protocol::JoinGroupRequest::JoinGroupRequestProtocol>& p) const {
  if (type.empty() || p.empty()) return false;
  if (members.empty()) return true;
  if (!protocol_type || *protocol_type != type) return false;
  // Some protocol of the new member must be supported by every current member.
  for (const auto& candidate : p) {
    bool everyone = true;
    for (const auto& [id, m] : members) everyone = everyone && m.metadata(candidate.name) != nullptr;
    if (everyone) return true;
  }
  return false;
}

std::string GroupMetadata::select_protocol() const {
  GREGOR_ASSERT(!members.empty());
  // Candidates in the leader's (or first member's) order of preference, so ties break the same way
  // on every run.
  const MemberMetadata& reference = leader_id && members.count(*leader_id) ? members.at(*leader_id) : members.begin()->second;
  std::vector<std::string> candidates;
  for (const auto& [name, data] : reference.protocols) {
    bool everyone = true;
    for (const auto& [id, m] : members) everyone = everyone && m.metadata(name) != nullptr;
    if (everyone) candidates.push_back(name);
  }
  GREGOR_ASSERT_MSG(!candidates.empty(), "group members share no protocol");
  std::map<std::string, int> votes;
  for (const auto& [id, m] : members)
    for (const auto& [name, data] : m.protocols)
      if (std::find(candidates.begin(), candidates.end(), name) != candidates.end()) {
        votes[name]++;
        break;
      }
  std::string best = candidates.front();
  for (const auto& c : candidates)
    if (votes[c] > votes[best]) best = c;
  return best;
}

}  // namespace gregor::group
