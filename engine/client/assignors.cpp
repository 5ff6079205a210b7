#include "engine/client/assignors.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

namespace gregor::client {

namespace {

using TopicPartitionPair = std::pair<std::string, int32_t>;

bool subscribes(const Subscription& s, const std::string& topic) {
  return std::find(s.topics.begin(), s.topics.end(), topic) != s.topics.end();
}

std::map<std::string, Assignment> empty_assignments(const std::map<std::string, Subscription>& subscriptions) {
  std::map<std::string, Assignment> out;
  for (const auto& [member, s] : subscriptions) out[member];
  return out;
}

void add(Assignment& a, const TopicPartitionPair& tp) {
  auto& v = a.partitions[tp.first];
  v.insert(std::upper_bound(v.begin(), v.end(), tp.second), tp.second);
}

class RangeAssignor final : public Assignor {
 public:
  const char* name() const override { return "range"; }
  std::map<std::string, Assignment> assign(const std::map<std::string, int32_t>& partitions_per_topic,
                                           const std::map<std::string, Subscription>& subscriptions) const override {
    auto out = empty_assignments(subscriptions);
    for (const auto& [topic, count] : partitions_per_topic) {
      std::vector<std::string> members;  // std::map keeps them sorted by member id
      for (const auto& [member, s] : subscriptions)
        if (subscribes(s, topic)) members.push_back(member);
      if (members.empty()) continue;
      const int32_t n = static_cast<int32_t>(members.size());
      const int32_t per_member = count / n;
      const int32_t extra = count % n;
      for (int32_t i = 0; i < n; i++) {
        const int32_t start = per_member * i + std::min(i, extra);
        const int32_t length = per_member + (i + 1 > extra ? 0 : 1);
        for (int32_t p = start; p < start + length; p++) add(out[members[static_cast<size_t>(i)]], {topic, p});
      }
    }
    return out;
  }
};

class RoundRobinAssignor final : public Assignor {
 public:
  const char* name() const override { return "roundrobin"; }
  std::map<std::string, Assignment> assign(const std::map<std::string, int32_t>& partitions_per_topic,
                                           const std::map<std::string, Subscription>& subscriptions) const override {
    auto out = empty_assignments(subscriptions);
    std::vector<std::string> members;
    for (const auto& [member, s] : subscriptions) members.push_back(member);
    if (members.empty()) return out;
    size_t next = 0;
    for (const auto& [topic, count] : partitions_per_topic) {
      bool anyone = false;
      for (const auto& [member, s] : subscriptions) anyone = anyone || subscribes(s, topic);
      if (!anyone) continue;
      for (int32_t p = 0; p < count; p++) {
        // Advance the circular iterator to the next member subscribed to this topic.
        while (!subscribes(subscriptions.at(members[next % members.size()]), topic)) next++;
        add(out[members[next % members.size()]], {topic, p});
        next++;
      }
    }
    return out;
  }
};

class CooperativeStickyAssignor final : public Assignor {
 public:
  const char* name() const override { return "cooperative-sticky"; }
  RebalanceProtocol protocol() const override { return RebalanceProtocol::kCooperative; }
  std::optional<Bytes> subscription_user_data(int32_t generation) const override {
    ByteWriter w;
    w.i32(generation);
    return w.take();
  }

  std::map<std::string, Assignment> assign(const std::map<std::string, int32_t>& partitions_per_topic,
                                           const std::map<std::string, Subscription>& subscriptions) const override {
    auto out = empty_assignments(subscriptions);
    if (subscriptions.empty()) return out;
    // Every partition some member subscribes to.
    std::vector<TopicPartitionPair> all;
    for (const auto& [topic, count] : partitions_per_topic) {
      bool anyone = false;
      for (const auto& [member, s] : subscriptions) anyone = anyone || subscribes(s, topic);
      if (anyone)
        for (int32_t p = 0; p < count; p++) all.emplace_back(topic, p);
    }
    // Current owners: valid claims (subscribed, existing partition); the latest generation wins,
    // then the smallest member id. A claim from an older generation may be stale.
    std::map<TopicPartitionPair, std::pair<int32_t, std::string>> owner;  // partition -> (generation, member)
    for (const auto& [member, s] : subscriptions) {
      const int32_t generation = generation_of(s);
      for (const auto& [topic, parts] : s.owned_partitions) {
        auto count = partitions_per_topic.find(topic);
        if (count == partitions_per_topic.end() || !subscribes(s, topic)) continue;
        for (int32_t p : parts) {
          if (p < 0 || p >= count->second) continue;
          auto it = owner.find({topic, p});
          if (it == owner.end() || generation > it->second.first) owner[{topic, p}] = {generation, member};
        }
      }
    }
    std::map<std::string, std::vector<TopicPartitionPair>> kept;
    for (const auto& [tp, o] : owner) kept[o.second].push_back(tp);

    std::map<std::string, std::vector<TopicPartitionPair>> target;
    if (same_subscriptions(subscriptions))
      target = balance_equal(all, subscriptions, kept);
    else
      target = balance_general(all, subscriptions, kept);

    // Cooperative: a partition owned by someone else is not handed over in this generation; its
    // owner revokes it (its new assignment lacks it) and a follow-up rebalance assigns it.
    for (auto& [member, parts] : target)
      for (const auto& tp : parts) {
        auto it = owner.find(tp);
        if (it != owner.end() && it->second.second != member) continue;
        add(out[member], tp);
      }
    return out;
  }

 private:
  static int32_t generation_of(const Subscription& s) {
    if (s.generation_id >= 0) return s.generation_id;
    if (s.user_data && s.user_data->size() >= 4) {
      ByteReader r(as_view(*s.user_data));
      return r.i32();
    }
    return -1;
  }

  static bool same_subscriptions(const std::map<std::string, Subscription>& subscriptions) {
    std::set<std::string> first(subscriptions.begin()->second.topics.begin(), subscriptions.begin()->second.topics.end());
    for (const auto& [member, s] : subscriptions)
      if (std::set<std::string>(s.topics.begin(), s.topics.end()) != first) return false;
    return true;
  }

  // Every member subscribes to the same topics: each gets floor(n/c) or ceil(n/c) partitions,
  // keeping as many of its own as the quota allows.
  static std::map<std::string, std::vector<TopicPartitionPair>> balance_equal(
      const std::vector<TopicPartitionPair>& all, const std::map<std::string, Subscription>& subscriptions,
      std::map<std::string, std::vector<TopicPartitionPair>> kept) {
    const size_t n = all.size();
    const size_t c = subscriptions.size();
    const size_t min_quota = n / c;
    const size_t max_quota = min_quota + (n % c ? 1 : 0);
    size_t max_slots = n % c;  // members that may hold max_quota (when it differs from min_quota)
    std::map<std::string, std::vector<TopicPartitionPair>> target;
    std::set<TopicPartitionPair> taken;
    // Members keep min_quota of their own; those with more keep one extra while slots remain.
    for (const auto& [member, s] : subscriptions) {
      auto& own = kept[member];
      size_t keep = std::min(own.size(), min_quota);
      if (own.size() > min_quota && max_quota > min_quota && max_slots > 0) {
        keep = max_quota;
        max_slots--;
      }
      for (size_t i = 0; i < keep; i++) {
        target[member].push_back(own[i]);
        taken.insert(own[i]);
      }
    }
    std::vector<TopicPartitionPair> unassigned;
    for (const auto& tp : all)
      if (!taken.count(tp)) unassigned.push_back(tp);
    size_t next = 0;
    // Fill everyone to min_quota, then hand out the remaining max_quota slots.
    for (const auto& [member, s] : subscriptions)
      while (target[member].size() < min_quota && next < unassigned.size()) target[member].push_back(unassigned[next++]);
    for (const auto& [member, s] : subscriptions) {
      if (next >= unassigned.size()) break;
      if (target[member].size() == min_quota && max_quota > min_quota && max_slots > 0) {
        target[member].push_back(unassigned[next++]);
        max_slots--;
      }
    }
    GREGOR_ASSERT(next == unassigned.size());
    return target;
  }

  // Different subscriptions: keep what is owned, give the rest to the least loaded eligible member,
  // then move partitions from the most to the least loaded while that narrows the gap.
  static std::map<std::string, std::vector<TopicPartitionPair>> balance_general(
      const std::vector<TopicPartitionPair>& all, const std::map<std::string, Subscription>& subscriptions,
      std::map<std::string, std::vector<TopicPartitionPair>> kept) {
    std::map<std::string, std::vector<TopicPartitionPair>> target;
    std::set<TopicPartitionPair> taken;
    for (const auto& [member, s] : subscriptions) {
      target[member] = kept[member];
      taken.insert(kept[member].begin(), kept[member].end());
    }
    auto least_loaded = [&](const std::string& topic) -> const std::string* {
      const std::string* best = nullptr;
      for (const auto& [member, s] : subscriptions)
        if (subscribes(s, topic) && (!best || target[member].size() < target[*best].size())) best = &member;
      return best;
    };
    for (const auto& tp : all) {
      if (taken.count(tp)) continue;
      if (const std::string* m = least_loaded(tp.first)) target[*m].push_back(tp);
    }
    // Bounded: each move narrows the spread, and there are at most |all| moves worth making.
    for (size_t round = 0; round < all.size(); round++) {
      bool moved = false;
      for (auto& [from, parts] : target) {
        for (size_t i = parts.size(); i-- > 0 && !moved;) {
          const std::string* to = least_loaded(parts[i].first);
          if (to && *to != from && target[*to].size() + 1 < parts.size()) {
            target[*to].push_back(parts[i]);
            parts.erase(parts.begin() + static_cast<long>(i));
            moved = true;
          }
        }
        if (moved) break;
      }
      if (!moved) break;
    }
    return target;
  }
};

}  // namespace

std::unique_ptr<Assignor> make_assignor(const std::string& name) {
  if (name == "range") return std::make_unique<RangeAssignor>();
  if (name == "roundrobin") return std::make_unique<RoundRobinAssignor>();
  if (name == "cooperative-sticky") return std::make_unique<CooperativeStickyAssignor>();
  return nullptr;
}

}  // namespace gregor::client
