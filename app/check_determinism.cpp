// gregor check-determinism SCENARIO: runs each seed twice and compares the runs event by event
// (FoundationDB's "unseed" check, made precise as madsim's is): on a difference it names the first
// event where the two runs part ways. Exit 0: every seed gave the same run twice; 1: one did not.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/scenario_cli.h"
#include "sim/scenario/duration.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

// One run, remembering the running hash after every event (8 bytes an event).
struct Recorded {
  std::string fingerprint;
  std::vector<uint64_t> hashes;
  uint64_t events = 0;
};

Recorded record_run(const sim::Scenario& s, uint64_t seed, const sim::RunOptions& opts) {
  sim::ScenarioRun run(s, seed, opts);
  Recorded r;
  auto fp = std::make_shared<Fingerprint>();
  run.add_listener([&r, fp](const TraceEvent& e) {
    fp->add(e);
    r.hashes.push_back(fp->value());
  });
  run.run_to_end();
  r.fingerprint = run.fingerprint();
  r.events = run.sim().events_emitted();
  return r;
}

// The index-th event (from 0) of a run, as text.
std::string event_at(const sim::Scenario& s, uint64_t seed, const sim::RunOptions& opts, size_t index) {
  sim::ScenarioRun run(s, seed, opts);
  size_t n = 0;
  std::string out = "(the run has fewer events)";
  run.add_listener([&](const TraceEvent& e) {
    if (n++ == index) out = e.to_string();
  });
  run.run_to_end();
  return out;
}

}  // namespace

int cmd_check_determinism(const Args& args) {
  po::options_description desc(
      "usage: gregor check-determinism SCENARIO [options]\n\n"
      "Runs every seed twice and compares the two runs event by event.\n"
      "Exit status: 0 deterministic, 1 a seed gave two different runs, 2 bad input.\n\n"
      "options");
  std::string file, variant, until_text;
  uint64_t seeds = 20, first = 1;
  desc.add_options()("help,h", "show this help")("seeds", po::value<uint64_t>(&seeds)->default_value(seeds),
                                                  "how many seeds")(
      "first-seed", po::value<uint64_t>(&first)->default_value(first), "the first seed")(
      "variant", po::value<std::string>(&variant), "apply one of the file's variants")(
      "until", po::value<std::string>(&until_text), "end each run at this virtual time (e.g. 30s)");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::string>(&file));
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (auto done = parse_command_line("check-determinism", args, desc, vm, &hidden, &pos)) return *done;
  if (file.empty()) {
    std::cerr << "gregor check-determinism: which scenario?\n";
    return 2;
  }
  if (seeds == 0 || seeds > 1'000'000) {
    std::cerr << "gregor check-determinism: --seeds must be between 1 and 1000000\n";
    return 2;
  }
  auto scenario = load_scenario_or_report("check-determinism", file, variant);
  if (!scenario) return 2;
  sim::RunOptions opts;
  if (!until_text.empty()) {
    auto d = sim::parse_duration(until_text);
    if (!d) {
      std::cerr << "gregor check-determinism: --until: " << d.status().message() << "\n";
      return 2;
    }
    opts.until = *d;
  }
  // Seeds are 64-bit: a range that would run past the largest one ends there (first + seeds must
  // not wrap around to seed 0, which would also end the loop at once).
  if (seeds - 1 > UINT64_MAX - first) {
    seeds = UINT64_MAX - first + 1;
    std::printf("(%llu seed(s): the seed range ends at %llu)\n", static_cast<unsigned long long>(seeds),
                static_cast<unsigned long long>(UINT64_MAX));
  }
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t same = 0;
  for (uint64_t k = 0; k < seeds; k++) {
    const uint64_t seed = first + k;
    Recorded a = record_run(*scenario, seed, opts);
    Recorded b = record_run(*scenario, seed, opts);
    const bool equal = a.fingerprint == b.fingerprint && a.hashes == b.hashes;
    std::printf("seed %-6llu %s %s  %s  (%llu events)\n", static_cast<unsigned long long>(seed), a.fingerprint.c_str(),
                b.fingerprint.c_str(), equal ? "same" : "DIFFERENT", static_cast<unsigned long long>(a.events));
    if (equal) {
      same++;
      continue;
    }
    size_t i = 0;
    while (i < a.hashes.size() && i < b.hashes.size() && a.hashes[i] == b.hashes[i]) i++;
    std::printf("  the runs part at event %zu:\n    first run:  %s\n", i, event_at(*scenario, seed, opts, i).c_str());
    // The second look at the second run: a third run, which itself may differ again (that too is
    // a finding, and the text says so by not matching either).
    std::printf("    again:      %s\n", event_at(*scenario, seed, opts, i).c_str());
    std::printf("  replay: %s\n", replay_command(file, seed, variant).c_str());
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("determinism: %llu of %llu seeds gave the same run twice (%.1fs)\n", static_cast<unsigned long long>(same),
              static_cast<unsigned long long>(seeds), wall);
  return same == seeds ? 0 : 1;
}

}  // namespace gregor::app
