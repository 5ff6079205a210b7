// gregor gui: the dashboard. Live over a scenario (the user injects faults by clicking), or over a
// recorded trace (--replay). Headless forms for docs, tests and machines without a display:
// --screenshot (a PNG at a virtual time, under Xvfb), --bench-frames (frame times), --text (the
// timeline and verdicts in the terminal).
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "app/commands.h"
#include "gui/dashboard.h"
#include "gui/runner_factory.h"
#include "gui/text_report.h"
#include "gui/window.h"

namespace po = boost::program_options;

namespace gregor::app {
namespace {

bool parse_size(const std::string& s, int* w, int* h) {
  return std::sscanf(s.c_str(), "%dx%d", w, h) == 2 && *w >= 320 && *h >= 240 && *w <= 8192 && *h <= 8192;
}

bool have_xvfb_run() { return std::system("command -v xvfb-run >/dev/null 2>&1") == 0; }

// Runs this same command again under a virtual X server; returns only if that cannot start.
int reexec_under_xvfb(const Args& args, int width, int height) {
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 2;
  exe[n] = 0;
  setenv("GREGOR_UNDER_XVFB", "1", 1);
  const std::string screen = "-screen 0 " + std::to_string(width) + "x" + std::to_string(height) + "x24";
  std::vector<std::string> argv_s = {"xvfb-run", "-a", "-s", screen, exe, "gui"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  execvp("xvfb-run", argv.data());
  std::perror("gregor gui: xvfb-run");
  return 2;
}

}  // namespace

int cmd_gui(const Args& args) {
  po::options_description opts("gregor gui [SCENARIO] [options]");
  std::string scenario, replay, screenshot, at_text, size_text = "1600x900", view = "partition", record, focus;
  uint64_t seed = 1;
  int bench_frames = 0;
  double speed = 1;
  opts.add_options()("help,h", "this help")
      ("scenario", po::value(&scenario), "scenario to run live: a file, a library name (leader-failover, the default) or builtin:bench")
      ("seed", po::value(&seed)->default_value(1), "the run's seed")
      ("replay", po::value(&replay), "replay a recorded trace file (.db) instead")
      ("screenshot", po::value(&screenshot), "render at --at to this PNG and exit (uses xvfb-run when there is no display)")
      ("at", po::value(&at_text), "virtual time for --screenshot/--bench-frames/--text: 20, 20s, 1500ms")
      ("size", po::value(&size_text)->default_value("1600x900"), "window size WxH")
      ("view", po::value(&view)->default_value("partition"), "middle tab first shown: partition, topics, groups, txn, zk, events")
      ("partition", po::value(&focus), "the partition the partition view shows first, e.g. orders-0")
      ("bench-frames", po::value(&bench_frames)->default_value(0), "render N frames and print frame times")
      ("bench-play", "play at --speed while benchmarking (simulation included in frame time)")
      ("speed", po::value(&speed)->default_value(1.0), "playback speed, virtual seconds per wall second")
      ("play", "start playing")
      ("text", "no window: run to the end and print the timeline and verdicts")
      ("record", po::value(&record), "record the live run's events to this trace file");
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << "gregor gui: " << e.what() << "\n" << opts;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << opts
              << "\nExamples:\n"
                 "  gregor gui                                   the leader-failover demo, live\n"
                 "  gregor gui --replay run.db                   replay a recorded trace\n"
                 "  gregor gui --text --record run.db            no window: print the story, record the trace\n"
                 "  gregor gui --screenshot shot.png --at 20s    a PNG of the dashboard at 20 s\n"
                 "  gregor gui builtin:bench --bench-frames 300  frame times with 5 brokers, 100 partitions\n";
    return 0;
  }
  int width = 0, height = 0;
  if (!parse_size(size_text, &width, &height)) {
    std::cerr << "gregor gui: bad --size '" << size_text << "' (WxH, e.g. 1600x900)\n";
    return 2;
  }
  std::optional<Time> at;
  if (!at_text.empty()) {
    auto t = gui::parse_time(at_text);
    if (!t.is_ok()) {
      std::cerr << "gregor gui: --at: " << t.status().to_string() << "\n";
      return 2;
    }
    at = *t;
  }
  if (!gui::center_view_known(view)) {
    std::cerr << "gregor gui: unknown --view '" << view << "' (partition, topics, groups, txn, zk, events)\n";
    return 2;
  }
  const bool text = vm.count("text") > 0;
  const bool headless_window = !screenshot.empty() || bench_frames > 0;
  if (headless_window && !gui::display_available()) {
    if (!std::getenv("GREGOR_UNDER_XVFB") && have_xvfb_run()) return reexec_under_xvfb(args, width, height);
    std::cerr << "gregor gui: no display, and xvfb-run is not installed (apt-get install xvfb xauth)\n";
    return 2;
  }

  // The session.
  std::unique_ptr<gui::Session> session;
  if (!replay.empty()) {
    auto s = gui::Session::replay(replay);
    if (!s.is_ok()) {
      std::cerr << "gregor gui: " << s.status().to_string() << "\n";
      return 2;
    }
    session = std::move(s).value();
  } else {
    if (scenario.empty()) scenario = gui::default_scenario();
    auto factory = gui::runner_factory_for(scenario);
    if (!factory.is_ok()) {
      std::cerr << "gregor gui: " << factory.status().to_string() << "\n";
      return 2;
    }
    auto s = gui::Session::live(*factory, seed);
    if (!s.is_ok()) {
      std::cerr << "gregor gui: " << s.status().to_string() << "\n";
      return 2;
    }
    session = std::move(s).value();
    if (!record.empty()) {
      Status r = session->record_to(record);
      if (!r.is_ok()) {
        std::cerr << "gregor gui: " << r.to_string() << "\n";
        return 2;
      }
    }
  }
  session->speed = speed;

  const bool no_display = !gui::display_available();
  if (text || (!headless_window && no_display)) {
    if (!text) std::cout << "gregor gui: no display (DISPLAY is not set), so here is the run in text.\n\n";
    gui::print_text_report(*session, std::cout);
    Status closed = session->close_recording();
    if (!closed.is_ok()) std::cerr << "gregor gui: " << closed.to_string() << "\n";
    if (!record.empty()) std::cout << "\ntrace written to " << record << " (gregor gui --replay " << record << ")\n";
    return 0;
  }

  if (at) session->run_to(*at);
  if (vm.count("play")) session->playing = true;
  gui::DashboardOptions dopts;
  dopts.view = view;
  if (!focus.empty()) {
    auto dash = focus.rfind('-');
    if (dash != std::string::npos) {
      dopts.topic = focus.substr(0, dash);
      dopts.partition = std::atoi(focus.c_str() + dash + 1);
    }
  }
  gui::Dashboard dashboard(std::move(session), dopts);
  gui::WindowOptions wopts;
  wopts.width = width;
  wopts.height = height;
  wopts.hidden = headless_window;
  wopts.screenshot_path = screenshot;
  wopts.bench_frames = bench_frames;
  wopts.bench_play = vm.count("bench-play") > 0;
  gui::WindowReport report;
  Status s = gui::run_window(dashboard, wopts, &report);
  (void)dashboard.session().close_recording();
  if (!s.is_ok()) {
    std::cerr << "gregor gui: " << s.to_string() << "\n";
    return 2;
  }
  if (!screenshot.empty())
    std::printf("wrote %s (%dx%d) at t=%.3f s on %s\n", screenshot.c_str(), report.framebuffer_width,
                report.framebuffer_height, static_cast<double>(dashboard.model().now.us) / 1e6, report.renderer.c_str());
  if (bench_frames > 0) {
    const auto& m = dashboard.model();
    std::printf("frames %d at %dx%d on %s (%zu nodes, %zu partitions, %s):\n"
                "  median %.2f ms  mean %.2f ms  p95 %.2f ms  p99 %.2f ms  max %.2f ms  (%.0f fps at the median)\n"
                "  of which the dashboard's CPU part (model and ImGui, before OpenGL): median %.2f ms; %d vertices a frame\n"
                "  baseline, the same window with an empty frame (%d frames, same run): median %.2f ms;"
                " the dashboard takes %.1fx that\n",
                report.frames, width, height, report.renderer.c_str(), m.nodes.size(), m.partitions.size(),
                wopts.bench_play ? "playing" : "paused", report.median_frame_ms, report.mean_frame_ms, report.p95_frame_ms,
                report.p99_frame_ms, report.max_frame_ms, report.median_frame_ms > 0 ? 1000.0 / report.median_frame_ms : 0.0,
                report.median_ui_ms, report.vertices, bench_frames, report.median_baseline_ms,
                report.median_baseline_ms > 0 ? report.median_frame_ms / report.median_baseline_ms : 0.0);
  }
  return 0;
}

}  // namespace gregor::app
