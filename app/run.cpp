// gregor run SCENARIO: replays a scenario exactly and tells its story: the timeline (faults, leader
// and ISR changes, truncations, acknowledgements, losses), the checkers' verdicts, whether the
// expectations hold, and last the run's fingerprint. Exit 0: every expectation holds; 1: one does
// not; 2: bad input.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/scenario_cli.h"
#include "sim/scenario/duration.h"
#include "trace/recorder.h"

namespace po = boost::program_options;

namespace gregor::app {

int cmd_run(const Args& args) {
  po::options_description desc(
      "usage: gregor run SCENARIO [options]\n\n"
      "Runs a scenario file (scenarios/*.yaml) and prints its timeline, the checkers' verdicts and\n"
      "the run's fingerprint. The same file and seed give the same run, event for event.\n"
      "Exit status: 0 every expectation holds, 1 one does not, 2 bad input.\n\n"
      "options");
  std::string file, variant, trace_path, until_text;
  uint64_t seed = 0;
  bool json = false, quiet = false, verbose = false, story = false, force = false;
  desc.add_options()("help,h", "show this help")("seed", po::value<uint64_t>(&seed),
                                                  "the run's seed (default: the file's `seed`, else 1)")(
      "variant", po::value<std::string>(&variant), "apply one of the file's variants (e.g. fixed)")(
      "trace", po::value<std::string>(&trace_path), "record every event to this SQLite file (FILE.db); an existing file is kept unless --force")(
      "force", po::bool_switch(&force), "let --trace replace an existing file")(
      "until", po::value<std::string>(&until_text), "end the run at this virtual time instead (e.g. 30s)")(
      "json", po::bool_switch(&json), "print a machine-readable report instead of the timeline")(
      "story", po::bool_switch(&story), "print the scenario's story first")(
      "quiet,q", po::bool_switch(&quiet), "no timeline, only verdicts and fingerprint")(
      "verbose", po::bool_switch(&verbose), "echo the nodes' log lines to stderr");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::string>(&file));
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (auto done = parse_command_line("run", args, desc, vm, &hidden, &pos)) return *done;
  if (file.empty()) {
    std::cerr << "gregor run: which scenario? (e.g. gregor run scenarios/leader-failover.yaml)\n";
    return 2;
  }
  if (!trace_path.empty()) {
    // A trace is often the only record of a long run: never replace one by accident.
    std::error_code ec;
    const auto st = std::filesystem::symlink_status(trace_path, ec);
    if (std::filesystem::exists(st)) {
      if (std::filesystem::is_directory(st)) {
        std::cerr << "gregor run: --trace: " << trace_path << " is a directory\n";
        return 2;
      }
      if (!force) {
        std::cerr << "gregor run: --trace: " << trace_path
                  << " already exists; choose another file, or add --force to replace it\n";
        return 2;
      }
    }
  }
  auto scenario = load_scenario_or_report("run", file, variant);
  if (!scenario) return 2;
  if (!vm.count("seed")) seed = scenario->seed;
  sim::RunOptions opts;
  opts.verbose = verbose;
  if (!until_text.empty()) {
    auto d = sim::parse_duration(until_text);
    if (!d) {
      std::cerr << "gregor run: --until: " << d.status().message() << "\n";
      return 2;
    }
    opts.until = *d;
  }

  sim::ScenarioRun run(*scenario, seed, opts);
  std::unique_ptr<trace::TraceRecorder> recorder;
  if (!trace_path.empty()) {
    auto r = trace::TraceRecorder::open(trace_path, {{"scenario", sim::to_yaml(*scenario)},
                                                     {"scenario_name", scenario->name},
                                                     {"scenario_file", file},
                                                     {"variant", variant},
                                                     {"seed", std::to_string(seed)},
                                                     {"runtime", "sim"}});
    if (!r) {
      std::cerr << "gregor run: --trace: " << r.status().to_string() << "\n";
      return 2;
    }
    recorder = std::move(*r);
    trace::TraceRecorder* rec = recorder.get();
    run.add_listener([rec](const TraceEvent& e) { rec->record(e); });
  }

  if (!json) {
    std::printf("scenario: %s (%s%s), seed %llu, %s of virtual time\n", scenario->name.c_str(), file.c_str(),
                variant.empty() ? "" : (", variant " + variant).c_str(), static_cast<unsigned long long>(seed),
                sim::format_duration(run.end_time() - Time{0}).c_str());
    if (story && !scenario->story.empty()) std::printf("\n%s\n", scenario->story.c_str());
    if (!quiet) {
      std::printf("\n");
      run.timeline().set_sink([](const sim::TimelineEntry& e) {
        std::printf("%10s  %s\n", seconds_text(e.time).c_str(), e.text.c_str());
      });
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  run.run_to_end();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.timeline().set_sink(nullptr);
  const sim::Verdicts v = run.verdicts();
  if (recorder) {
    Status s = recorder->set_run_info("fingerprint", run.fingerprint());
    if (s.is_ok()) s = recorder->close();
    if (!s.is_ok()) std::cerr << "gregor run: --trace: " << s.to_string() << "\n";
  }
  if (json) {
    std::printf("%s\n", run_report_json(run, wall).dump().c_str());
    return v.all_hold() ? 0 : 1;
  }
  std::printf("\n%s", verdicts_text(v).c_str());
  const double virtual_s = static_cast<double>(run.now().us) / 1e6;
  std::printf("run: %.3fs of virtual time in %.3fs (%.0fx), %llu events, %lld records acknowledged\n", virtual_s, wall,
              wall > 0 ? virtual_s / wall : 0.0, static_cast<unsigned long long>(run.sim().events_emitted()),
              static_cast<long long>(v.acked));
  std::printf("replay: %s\n", replay_command(file, seed, variant).c_str());
  std::printf("fingerprint: %s\n", run.fingerprint().c_str());
  return v.all_hold() ? 0 : 1;
}

}  // namespace gregor::app
