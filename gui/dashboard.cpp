#include "gui/dashboard.h"

#include <algorithm>
#include <fstream>

#include "gui/views.h"

namespace gregor::gui {

namespace {

constexpr ImGuiWindowFlags kPanel = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;

bool begin_panel(const char* name, ImVec2 pos, ImVec2 size, ImGuiWindowFlags extra = 0) {
  ImGui::SetNextWindowPos(pos);
  ImGui::SetNextWindowSize(size);
  return ImGui::Begin(name, nullptr, kPanel | extra);
}

bool file_exists(const std::string& path) { return !path.empty() && std::ifstream(path).good(); }

}  // namespace

bool center_view_known(const std::string& name) { return center_view_from(name).has_value(); }

Dashboard::Dashboard(std::unique_ptr<Session> session, DashboardOptions options)
    : session_(std::move(session)), options_(std::move(options)), ui_(std::make_unique<UiState>()) {
  show_view(options_.view);
  if (!options_.topic.empty()) {
    ui_->topic = options_.topic;
    ui_->partition = options_.partition;
    ui_->partition_chosen = true;
  }
}

Dashboard::~Dashboard() = default;

bool Dashboard::show_view(const std::string& name) {
  auto v = center_view_from(name);
  if (!v) return false;
  ui_->center_request = *v;
  return true;
}

std::string Dashboard::shown_partition() const {
  if (ui_->topic.empty()) return "";
  return ui_->topic + "-" + std::to_string(ui_->partition);
}

bool Dashboard::node_screen_position(int32_t node, float* x, float* y) const {
  auto it = ui_->node_positions.find(node);
  if (it == ui_->node_positions.end()) return false;
  *x = it->second.x;
  *y = it->second.y;
  return true;
}

void Dashboard::setup_style() const {
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout comes from the window size, never from a saved file
  std::string font = options_.font_path;
  if (font.empty()) font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  if (file_exists(font)) io.Fonts->AddFontFromFileTTF(font.c_str(), options_.font_size);
  else io.Fonts->AddFontDefault();
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 0;
  style.FrameRounding = 3;
  style.WindowPadding = ImVec2(8, 6);
  style.ItemSpacing = ImVec2(7, 4);
  style.Colors[ImGuiCol_WindowBg] = ImVec4(0.10f, 0.11f, 0.13f, 1);
  style.Colors[ImGuiCol_TitleBg] = ImVec4(0.14f, 0.16f, 0.20f, 1);
  style.Colors[ImGuiCol_TitleBgActive] = ImVec4(0.16f, 0.20f, 0.27f, 1);
}

void Dashboard::frame(double wall_seconds, float width, float height) {
  session_->tick(wall_seconds);
  model_ = session_->model();

  ViewContext c;
  c.live = session_->is_live();
  c.in_past = session_->in_past();
  c.playing = session_->playing;
  c.speed = session_->speed;
  c.head = session_->head_time();
  c.end = session_->end_time();
  c.title = session_->title();
  c.seed = session_->seed();
  c.message = session_->message;
  c.history = &session_->history();
  c.story = session_->story();
  c.schedule = session_->schedule();
  c.settings = session_->settings();
  c.expectations = session_->expectations();
  if (const LiveRunner* r = session_->runner()) c.applied = r->applied();
  c.replica_lag_time_max_ms = session_->history().head().defaults().replica_lag_time_max_ms;

  const float top_h = 58, bottom_h = 150;
  const float mid_y = top_h, mid_h = std::max(200.0f, height - top_h - bottom_h);
  const float left_w = std::max(380.0f, width * 0.29f), right_w = std::max(300.0f, width * 0.21f);
  const float center_x = left_w, center_w = std::max(300.0f, width - left_w - right_w);
  const float cluster_h = mid_h * 0.60f;

  if (begin_panel("##toolbar", ImVec2(0, 0), ImVec2(width, top_h), ImGuiWindowFlags_NoTitleBar))
    draw_toolbar(model_, c, *ui_);
  ImGui::End();
  if (begin_panel("Cluster", ImVec2(0, mid_y), ImVec2(left_w, cluster_h)))
    draw_cluster_graph(model_, c, *ui_);
  ImGui::End();
  if (begin_panel("Faults", ImVec2(0, mid_y + cluster_h), ImVec2(left_w, mid_h - cluster_h)))
    draw_fault_panel(model_, c, *ui_);
  ImGui::End();
  if (begin_panel("##center", ImVec2(center_x, mid_y), ImVec2(center_w, mid_h), ImGuiWindowFlags_NoTitleBar)) {
    if (ImGui::BeginTabBar("views")) {
      struct Tab {
        CenterView view;
        const char* title;
        void (*draw)(const DashboardModel&, const ViewContext&, UiState&);
      };
      const Tab tabs[] = {{CenterView::kPartition, "Partition (replica logs)", draw_partition_view},
                          {CenterView::kTopics, "Topics (kafka-topics --describe)", draw_topics_table},
                          {CenterView::kGroups, "Consumer groups", draw_groups_view},
                          {CenterView::kTxn, "Transactions", draw_txn_view},
                          {CenterView::kZk, "ZooKeeper", draw_zk_view},
                          {CenterView::kEvents, "Event log", draw_event_log}};
      const auto request = ui_->center_request;
      ui_->center_request.reset();
      for (const auto& t : tabs) {
        const ImGuiTabItemFlags f = request && *request == t.view ? ImGuiTabItemFlags_SetSelected : 0;
        if (ImGui::BeginTabItem(t.title, nullptr, f)) {
          ui_->center = t.view;
          ImGui::BeginChild("content", ImVec2(0, 0), false, t.view == CenterView::kPartition ? ImGuiWindowFlags_HorizontalScrollbar : 0);
          t.draw(model_, c, *ui_);
          ImGui::EndChild();
          ImGui::EndTabItem();
        }
      }
      ImGui::EndTabBar();
    }
  }
  ImGui::End();
  if (begin_panel("Story", ImVec2(center_x + center_w, mid_y), ImVec2(right_w, mid_h * 0.58f)))
    draw_story(model_, c, *ui_);
  ImGui::End();
  if (begin_panel("Verdicts", ImVec2(center_x + center_w, mid_y + mid_h * 0.58f), ImVec2(right_w, mid_h * 0.42f)))
    draw_verdicts(model_, c, *ui_);
  ImGui::End();
  if (begin_panel("Timeline", ImVec2(0, mid_y + mid_h), ImVec2(width, height - mid_y - mid_h)))
    draw_timeline(model_, c, *ui_);
  ImGui::End();

  // Keyboard, as RaftScope has it: space plays or pauses, the right arrow steps.
  if (!ImGui::GetIO().WantTextInput) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space))) ui_->toggle_play = true;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) ui_->step = true;
  }
  apply_requests();
}

void Dashboard::apply_requests() {
  UiState& ui = *ui_;
  Session& s = *session_;
  if (ui.speed) s.speed = std::clamp(*ui.speed, Session::kSpeedMin, Session::kSpeedMax);
  if (ui.toggle_play) s.playing = !s.playing;
  if (ui.step) {
    s.playing = false;
    s.step();
  }
  if (ui.seek) {
    s.seek(*ui.seek);
    s.playing = false;
  }
  if (ui.back_to_live) s.back_to_live();
  if (ui.fork) (void)s.fork_here();
  for (const auto& a : ui.actions) (void)s.act(a);
  if (ui.save) {
    Status st = s.save_scenario(ui.save_path);
    s.message = st.is_ok() ? std::string("saved ") + ui.save_path : st.to_string();
  }
  ui.actions.clear();
  ui.seek.reset();
  ui.speed.reset();
  ui.fork = ui.back_to_live = ui.save = ui.toggle_play = ui.step = false;
}

}  // namespace gregor::gui
