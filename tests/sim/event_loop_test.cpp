// The event loop: (time, insertion) order, cancel, the run_* stopping rules and the event limit.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "engine/core/rng.h"
#include "sim/event_loop.h"

using namespace gregor;
using gregor::sim::EventLoop;
using gregor::sim::RunOutcome;

TEST_CASE("EventLoop: events run by time, equal times in insertion order") {
  EventLoop loop;
  std::vector<std::string> order;
  auto at = [&](int64_t us, std::string name) {
    loop.schedule(Time{us}, [&order, &loop, name, us] {
      CHECK(loop.now() == Time{us});
      order.push_back(name);
    });
  };
  at(30, "c1");
  at(10, "a1");
  at(20, "b1");
  at(10, "a2");
  at(30, "c2");
  at(10, "a3");
  at(0, "z");
  CHECK(loop.pending() == 7);
  CHECK(loop.next_time() == Time{0});
  while (loop.step()) {
  }
  CHECK(order == std::vector<std::string>{"z", "a1", "a2", "a3", "b1", "c1", "c2"});
  CHECK(loop.now() == Time{30});
  CHECK(loop.events_run() == 7);
  CHECK(loop.empty());
  CHECK_FALSE(loop.step());
}

TEST_CASE("EventLoop: an event scheduled at now from a running event runs after the ones already due") {
  EventLoop loop;
  std::vector<int> order;
  loop.schedule(Time{5}, [&] {
    order.push_back(1);
    loop.schedule(loop.now(), [&] { order.push_back(3); });
    loop.schedule_after(Duration::micros(0), [&] { order.push_back(4); });
  });
  loop.schedule(Time{5}, [&] { order.push_back(2); });
  while (loop.step()) {
  }
  CHECK(order == std::vector<int>{1, 2, 3, 4});
}

TEST_CASE("EventLoop: cancel") {
  EventLoop loop;
  std::vector<int> ran;
  auto a = loop.schedule(Time{1}, [&] { ran.push_back(1); });
  auto b = loop.schedule(Time{2}, [&] { ran.push_back(2); });
  auto c = loop.schedule(Time{3}, [&] { ran.push_back(3); });
  CHECK(loop.pending() == 3);
  loop.cancel(b);
  CHECK(loop.pending() == 2);
  loop.cancel(b);  // twice: no-op
  CHECK(loop.pending() == 2);
  loop.cancel(987654);  // unknown: no-op
  CHECK(loop.pending() == 2);
  REQUIRE(loop.step());
  loop.cancel(a);  // already ran: no-op
  CHECK(loop.pending() == 1);
  // An event may cancel a later one, and itself (a no-op, it is running).
  loop.schedule(Time{2}, [&] {
    loop.cancel(c);
    ran.push_back(20);
  });
  while (loop.step()) {
  }
  CHECK(ran == std::vector<int>{1, 20});
  CHECK(loop.empty());
  CHECK(loop.pending() == 0);
}

TEST_CASE("EventLoop: cancelled events release what they captured at once or when popped") {
  EventLoop loop;
  auto token = std::make_shared<int>(1);
  auto id = loop.schedule(Time{10}, [token] {});
  CHECK(token.use_count() == 2);
  loop.cancel(id);
  loop.run_until(Time{20});
  CHECK(token.use_count() == 1);
}

TEST_CASE("EventLoop: next_time and pending ignore cancelled events") {
  EventLoop loop;
  auto first = loop.schedule(Time{5}, [] {});
  loop.schedule(Time{100}, [] {});
  loop.cancel(first);
  CHECK(loop.pending() == 1);
  CHECK_FALSE(loop.empty());
  CHECK(loop.next_time() == Time{100});
}

TEST_CASE("EventLoop: run_until does not run past its time when the earliest event was cancelled") {
  // Regression: run_until peeked at a cancelled head (time 5 <= 10), then step() skipped it and ran
  // the next live event at time 100, leaving the clock at 100 after run_until(10).
  EventLoop loop;
  bool late_ran = false;
  auto early = loop.schedule(Time{5}, [] {});
  loop.schedule(Time{100}, [&] { late_ran = true; });
  loop.cancel(early);
  CHECK(loop.run_until(Time{10}) == RunOutcome::kReachedTime);
  CHECK_FALSE(late_ran);
  CHECK(loop.now() == Time{10});
  CHECK(loop.pending() == 1);
}

TEST_CASE("EventLoop: run_while_not does not run past its deadline when the earliest event was cancelled") {
  EventLoop loop;
  bool late_ran = false;
  auto early = loop.schedule(Time{5}, [] {});
  loop.schedule(Time{100}, [&] { late_ran = true; });
  loop.cancel(early);
  CHECK(loop.run_while_not([] { return false; }, Time{10}) == RunOutcome::kReachedTime);
  CHECK_FALSE(late_ran);
  CHECK(loop.now() == Time{10});
}

TEST_CASE("EventLoop: run_until runs everything up to and including t, then sets now to t") {
  EventLoop loop;
  std::vector<int64_t> ran;
  for (int64_t t : {1, 5, 10, 11, 20}) loop.schedule(Time{t}, [&ran, t] { ran.push_back(t); });
  CHECK(loop.run_until(Time{10}) == RunOutcome::kReachedTime);
  CHECK(ran == std::vector<int64_t>{1, 5, 10});
  CHECK(loop.now() == Time{10});
  CHECK(loop.pending() == 2);
  // Into an empty stretch: time still advances.
  CHECK(loop.run_until(Time{10}) == RunOutcome::kReachedTime);
  CHECK(loop.run_until(Time{50}) == RunOutcome::kReachedTime);
  CHECK(ran == std::vector<int64_t>{1, 5, 10, 11, 20});
  CHECK(loop.now() == Time{50});
  // An empty queue: run_until still moves the clock.
  CHECK(loop.run_until(Time{70}) == RunOutcome::kReachedTime);
  CHECK(loop.now() == Time{70});
  // Never backwards.
  loop.run_until(Time{60});
  CHECK(loop.now() == Time{70});
}

TEST_CASE("EventLoop: run_events runs exactly n events") {
  EventLoop loop;
  int count = 0;
  for (int i = 0; i < 5; i++) loop.schedule(Time{i * 10}, [&] { count++; });
  CHECK(loop.run_events(3) == RunOutcome::kEventCountReached);
  CHECK(count == 3);
  CHECK(loop.now() == Time{20});
  CHECK(loop.run_events(0) == RunOutcome::kEventCountReached);
  CHECK(loop.run_events(5) == RunOutcome::kQueueEmpty);
  CHECK(count == 5);
}

TEST_CASE("EventLoop: run_while_not stops when the predicate holds, checked after each event") {
  EventLoop loop;
  int count = 0;
  for (int i = 1; i <= 10; i++) loop.schedule(Time{i}, [&] { count++; });
  CHECK(loop.run_while_not([&] { return count == 4; }, Time{100}) == RunOutcome::kPredicateMet);
  CHECK(count == 4);
  CHECK(loop.now() == Time{4});
  // Already true: nothing runs.
  CHECK(loop.run_while_not([&] { return true; }, Time{100}) == RunOutcome::kPredicateMet);
  CHECK(count == 4);
  // Deadline first: events after the deadline stay queued, and now moves to the deadline.
  CHECK(loop.run_while_not([&] { return count == 100; }, Time{7}) == RunOutcome::kReachedTime);
  CHECK(count == 7);
  CHECK(loop.now() == Time{7});
  // A predicate that becomes true exactly at the deadline.
  CHECK(loop.run_while_not([&] { return loop.now() >= Time{9}; }, Time{9}) == RunOutcome::kPredicateMet);
}

TEST_CASE("EventLoop: the event limit stops a run that would never end") {
  EventLoop loop;
  loop.set_event_limit(1000);
  std::function<void()> storm = [&] { loop.schedule_after(Duration::micros(1), storm); };
  loop.schedule(Time{0}, storm);
  CHECK(loop.run_until(Time{1'000'000}) == RunOutcome::kEventLimitHit);
  CHECK(loop.events_run() == 1000);
  CHECK(loop.limit_hit());
  CHECK(loop.run_events(10) == RunOutcome::kEventLimitHit);
  CHECK(loop.run_while_not([] { return false; }, Time{2'000'000}) == RunOutcome::kEventLimitHit);
  CHECK(loop.events_run() == 1000);
}

TEST_CASE("EventLoop: many interleaved events keep (time, insertion) order") {
  EventLoop loop;
  struct Fired {
    int64_t at;
    uint64_t order;
  };
  std::vector<Fired> fired;
  uint64_t scheduled = 0;
  // A deterministic pseudo-random pattern of times with many ties, some cancelled.
  std::vector<EventLoop::EventId> ids;
  for (int i = 0; i < 5000; i++) {
    int64_t at = (i * 7919) % 97;
    uint64_t order = scheduled++;
    ids.push_back(loop.schedule(Time{at}, [&fired, at, order] { fired.push_back({at, order}); }));
  }
  for (size_t i = 0; i < ids.size(); i += 3) loop.cancel(ids[i]);
  CHECK(loop.pending() == 5000 - (5000 + 2) / 3);
  while (loop.step()) {
  }
  REQUIRE(fired.size() == 5000 - (5000 + 2) / 3);
  for (size_t i = 1; i < fired.size(); i++) {
    bool ordered = fired[i - 1].at < fired[i].at ||
                   (fired[i - 1].at == fired[i].at && fired[i - 1].order < fired[i].order);
    REQUIRE(ordered);
  }
  for (const auto& f : fired) REQUIRE(f.order % 3 != 0);
}

TEST_CASE("run_outcome_name names every outcome") {
  CHECK(std::string(sim::run_outcome_name(RunOutcome::kReachedTime)) == "reached time");
  CHECK(std::string(sim::run_outcome_name(RunOutcome::kEventLimitHit)) == "event limit hit");
  CHECK(std::string(sim::run_outcome_name(RunOutcome::kQueueEmpty)) == "queue empty");
}

TEST_CASE("EventLoop: random schedule/cancel/step agrees with a reference model") {
  // The reference is a sorted map from (time, order) to a label; ids of events that ran or were
  // cancelled are kept and cancelled again later, which must do nothing even after their slots were
  // reused by newer events.
  for (uint64_t seed = 1; seed <= 20; seed++) {
    Rng rng(seed);
    EventLoop loop;
    std::map<std::pair<int64_t, uint64_t>, int> model;
    std::map<int, std::pair<int64_t, uint64_t>> key_of;  // label -> model key, while pending
    std::vector<std::pair<EventLoop::EventId, int>> ids;  // every id ever returned, with its label
    std::vector<int> ran, expected;
    uint64_t order = 0;
    int next_label = 0;
    for (int op = 0; op < 3000; op++) {
      uint64_t what = rng.uniform(10);
      if (what < 5) {
        int label = next_label++;
        int64_t at = loop.now().us + static_cast<int64_t>(rng.uniform(20));
        auto id = loop.schedule(Time{at}, [&ran, label] { ran.push_back(label); });
        model[{at, order}] = label;
        key_of[label] = {at, order};
        order++;
        ids.push_back({id, label});
      } else if (what < 8 && !ids.empty()) {
        auto [id, label] = ids[rng.uniform(ids.size())];
        loop.cancel(id);
        auto it = key_of.find(label);
        if (it != key_of.end()) {
          model.erase(it->second);
          key_of.erase(it);
        }
      } else {
        bool stepped = loop.step();
        REQUIRE(stepped == !model.empty());
        if (stepped) {
          auto first = model.begin();
          expected.push_back(first->second);
          REQUIRE(loop.now().us == first->first.first);
          key_of.erase(first->second);
          model.erase(first);
        }
      }
      REQUIRE(loop.pending() == model.size());
      if (!model.empty()) REQUIRE(loop.next_time().us == model.begin()->first.first);
    }
    while (loop.step()) {
      expected.push_back(model.begin()->second);
      model.erase(model.begin());
    }
    CHECK(model.empty());
    CHECK(ran == expected);
  }
}

TEST_CASE("EventLoop: after most of the queue is cancelled, the rest still runs in (time, insertion) order") {
  // Cancelling more than half of a large queue rebuilds it from the live entries. What runs, its
  // order, pending() and next_time() must not notice, nor may the ids of the cancelled events
  // (cancelled again after their slots were reused).
  Rng rng(5);
  EventLoop loop;
  std::map<std::pair<int64_t, int>, int> model;  // (time, label) -> label: labels grow with insertion
  std::vector<std::pair<EventLoop::EventId, int>> ids;
  std::vector<int> ran;
  int next_label = 0;
  auto add = [&](int n) {
    for (int i = 0; i < n; i++) {
      const int label = next_label++;
      const int64_t at = loop.now().us + 1 + static_cast<int64_t>(rng.uniform(1000));
      ids.push_back({loop.schedule(Time{at}, [&ran, label] { ran.push_back(label); }), label});
      model[{at, label}] = label;
    }
  };
  std::vector<EventLoop::EventId> cancelled;
  auto cancel_most = [&] {
    for (auto& [id, label] : ids) {
      if (rng.uniform(10) < 8) {
        loop.cancel(id);
        cancelled.push_back(id);
        std::erase_if(model, [label](const auto& kv) { return kv.second == label; });
      }
    }
    ids.clear();
  };
  add(2000);
  cancel_most();
  REQUIRE(loop.pending() == model.size());
  REQUIRE(loop.next_time().us == model.begin()->first.first);
  std::vector<int> expected;
  for (int i = 0; i < 100; i++) {
    REQUIRE(loop.step());
    REQUIRE(loop.now().us == model.begin()->first.first);
    expected.push_back(model.begin()->second);
    model.erase(model.begin());
  }
  add(500);  // reuses the slots the rebuild released
  for (EventLoop::EventId id : cancelled) loop.cancel(id);
  cancel_most();
  REQUIRE(loop.pending() == model.size());
  while (loop.step()) {
  }
  for (const auto& [key, label] : model) expected.push_back(label);
  REQUIRE(ran.size() == expected.size());
  CHECK(ran == expected);
}
