// The dashboard's ImGui frames, headless (no window, no GPU): every view draws, and a right-click
// on a broker followed by "Crash" in its menu crashes it in the running world.
#include <catch2/catch.hpp>

#include "gui/dashboard.h"
#include "gui/headless.h"
#include "gui_test_support.h"

using namespace gregor;

TEST_CASE("every view of the dashboard draws without a window", "[gui]") {
  auto session = test::live_session(test::scenario_path("leader-failover"));
  session->run_to(Time{Duration::seconds(14).us});
  gui::Dashboard dashboard(std::move(session), {});
  gui::HeadlessDriver driver(dashboard, 1600, 900);
  for (const char* view : {"partition", "topics", "groups", "events"}) {
    INFO(view);
    REQUIRE(dashboard.show_view(view));
    const gui::HeadlessReport r = driver.settle(3);
    CHECK(r.draw_data_valid);
    CHECK(r.vertices > 2000);
    for (const char* window : {"Cluster", "Faults", "Story", "Verdicts", "Timeline"}) CHECK(driver.has_window(window));
  }
  CHECK_FALSE(dashboard.show_view("nonsense"));
  // The frames drew the model of the world as it is (the view follows the live world).
  CHECK(dashboard.model().now == Time{Duration::seconds(14).us});
  CHECK(dashboard.model().partition("orders", 0) != nullptr);
}

TEST_CASE("right-clicking a broker and choosing Crash crashes it", "[gui]") {
  auto session = test::live_session(test::scenario_path("leader-failover"));
  session->run_to(Time{Duration::seconds(5).us});
  gui::Dashboard dashboard(std::move(session), {});
  gui::HeadlessDriver driver(dashboard, 1600, 900);
  driver.settle(2);
  const gui::PartitionModel* p = dashboard.model().partition("orders", 0);
  REQUIRE(p != nullptr);
  const int32_t victim = p->leader;
  float x = 0, y = 0;
  REQUIRE(driver.node_position(victim, &x, &y));
  // Hover, press and release the right button: the node's fault menu opens.
  gui::HeadlessInput in;
  in.mouse_x = x;
  in.mouse_y = y;
  driver.frame(in, 0);
  in.right = true;
  driver.frame(in, 0);
  in.right = false;
  driver.frame(in, 0);
  float mx = 0, my = 0;
  REQUIRE(driver.popup_item("Crash (kill -9)", &mx, &my));
  gui::HeadlessInput click;
  click.mouse_x = mx;
  click.mouse_y = my;
  click.left = true;
  driver.frame(click, 0);
  click.left = false;
  driver.frame(click, 0);
  driver.frame({}, 0);

  gui::LiveRunner* runner = dashboard.session().runner();
  REQUIRE(runner->applied().size() == 1);
  CHECK(runner->applied()[0].kind == sim::FaultKind::kCrash);
  CHECK(runner->applied()[0].targets == std::vector<int32_t>{victim});
  CHECK(runner->sim().state(NodeId{victim}) == sim::NodeState::kCrashed);
  CHECK(dashboard.model().node(victim)->status == gui::NodeStatus::kCrashed);
  // The action is on the timeline, and in the scenario a save would write.
  bool marked = false;
  for (const auto& m : dashboard.session().history().markers()) marked = marked || m.kind == gui::MarkerKind::kUser;
  CHECK(marked);
  auto text = runner->scenario_text();
  REQUIRE(text.is_ok());
  CHECK(text->find("broker-" + std::to_string(victim)) != std::string::npos);
}
