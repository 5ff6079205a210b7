// gregor swarm: thousands of seeds, each a random cluster, configuration and fault schedule, run
// with the checkers. Each seed runs in a child process (at most --jobs at once), so that a failed
// assertion in one seed is a finding with a replay command rather than the end of the swarm.
// Failing seeds are written out as scenario files with the command that replays them; the first
// ones are shrunk to a minimal scenario. --shard I/N runs one share of the seeds so that a batch
// scheduler can spread a swarm over machines; --report writes a JSON summary and --merge joins the
// shards' summaries. Exit 0: no seed failed; 1: one did; 2: bad input.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/scenario_cli.h"
#include "sim/scenario/duration.h"
#include "sim/scenario/swarm.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

constexpr const char* kResultMarker = "\x1eGREGOR-SWARM-RESULT ";
constexpr unsigned kSeedTimeLimitSeconds = 900;  // a seed that runs longer than this is a finding
constexpr size_t kChildOutputMax = 64 * 1024;    // what is kept of a child's stderr

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Json outcome_json(const sim::SeedOutcome& o) {
  Json::Object j;
  j["seed"] = static_cast<int64_t>(o.seed);
  j["ok"] = o.ok;
  j["broken"] = o.broken;
  j["checker"] = o.checker;
  j["message"] = o.message;
  j["violation_time_us"] = o.violation_time.us;
  j["fingerprint"] = o.fingerprint;
  j["acked"] = o.acked;
  j["events"] = static_cast<int64_t>(o.events);
  return Json(std::move(j));
}

struct Failure {
  uint64_t seed = 0;
  std::string checker;  // or "crash" / "timeout"
  std::string message;
  std::string file;
  std::string replay;
};

struct Child {
  pid_t pid = -1;
  int fd = -1;
  uint64_t seed = 0;
  std::string output;
};

// Runs in the child: one seed, its result on fd as one marked line.
[[noreturn]] void child_main(const std::string& profile, uint64_t seed, int fd) {
  dup2(fd, 2);  // assertion messages go to the parent too
  alarm(kSeedTimeLimitSeconds);
  sim::Scenario s = sim::generate_swarm_scenario(profile, seed);
  sim::SeedOutcome o = sim::run_seed(s, seed);
  std::string line = std::string(kResultMarker) + outcome_json(o).dump() + "\n";
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = write(fd, line.data() + off, line.size() - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  _exit(0);
}

Child spawn(const std::string& profile, uint64_t seed) {
  int fds[2];
  if (pipe(fds) != 0) {
    std::perror("gregor swarm: pipe");
    std::exit(2);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("gregor swarm: fork");
    std::exit(2);
  }
  if (pid == 0) {
    close(fds[0]);
    child_main(profile, seed, fds[1]);
  }
  close(fds[1]);
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  return Child{pid, fds[0], seed, {}};
}

// The child finished: its outcome, or a crash or timeout as a failure.
sim::SeedOutcome collect(Child& c) {
  int status = 0;
  waitpid(c.pid, &status, 0);
  close(c.fd);
  sim::SeedOutcome o;
  o.seed = c.seed;
  size_t at = c.output.rfind(kResultMarker);
  if (at != std::string::npos && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    std::string line = c.output.substr(at + std::strlen(kResultMarker));
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    auto j = Json::parse(line);
    if (j) {
      o.ok = (*j)["ok"].as_bool();
      o.broken = (*j)["broken"].as_string();
      o.checker = (*j)["checker"].as_string();
      o.message = (*j)["message"].as_string();
      o.violation_time = Time{(*j)["violation_time_us"].as_int()};
      o.fingerprint = (*j)["fingerprint"].as_string();
      o.acked = (*j)["acked"].as_int();
      o.events = static_cast<uint64_t>((*j)["events"].as_int());
      return o;
    }
  }
  o.ok = false;
  const bool timed_out = WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
  o.checker = timed_out ? "timeout" : "crash";
  std::string tail = at == std::string::npos ? c.output : c.output.substr(0, at);
  // The last lines of what the child wrote: the assertion, with seed and virtual time.
  if (tail.size() > 600) tail = "..." + tail.substr(tail.size() - 600);
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  o.message = timed_out ? "the seed ran longer than " + std::to_string(kSeedTimeLimitSeconds) + "s of wall time"
                        : (WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status)) : "exited abnormally") +
                              (tail.empty() ? "" : ": " + tail);
  o.broken = o.checker;
  return o;
}

bool parse_shard(const std::string& text, uint64_t& index, uint64_t& count) {
  size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  char* end = nullptr;
  index = std::strtoull(text.substr(0, slash).c_str(), &end, 10);
  if (*end) return false;
  count = std::strtoull(text.substr(slash + 1).c_str(), &end, 10);
  if (*end) return false;
  return count >= 1 && index >= 1 && index <= count;
}

std::string write_scenario_file(const std::string& dir, const std::string& name, const sim::Scenario& s) {
  mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/" + name + ".yaml";
  std::ofstream out(path);
  out << "# " << name << ": written by gregor swarm. Replay: gregor run " << path << " --seed " << s.seed << "\n";
  out << sim::to_yaml(s);
  return path;
}

void print_progress(bool tty, uint64_t done, uint64_t total, size_t failures, double wall, bool final_line) {
  const double rate = wall > 0 ? static_cast<double>(done) / wall : 0;
  const int width = 30;
  const int filled = total ? static_cast<int>(width * done / total) : width;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(width, '.');
  char line[200];
  std::snprintf(line, sizeof line, "[%s] %llu/%llu seeds  %zu failure(s)  %.1f seeds/s (%.0f/min)", bar.c_str(),
                static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), failures, rate, rate * 60);
  if (tty)
    std::printf("\r%s%s", line, final_line ? "\n" : "");
  else
    std::printf("%s\n", line);
  std::fflush(stdout);
}

int merge_reports(const std::vector<std::string>& files) {
  uint64_t done = 0;
  double wall = 0;
  std::vector<std::string> lines;
  std::string profile;
  for (const auto& f : files) {
    std::ifstream in(f);
    if (!in) {
      std::cerr << "gregor swarm --merge: cannot open " << f << "\n";
      return 2;
    }
    // Read with a bound: a report is a few KiB; a wrong path (a device, a huge file) must not exhaust memory.
    constexpr size_t kReportBytesMax = 16u << 20;
    std::string text(kReportBytesMax + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    if (text.size() > kReportBytesMax) {
      std::cerr << "gregor swarm --merge: " << f << " is larger than 16 MiB: not a swarm report\n";
      return 2;
    }
    auto j = Json::parse(text);
    if (!j || !j->is_object()) {
      std::cerr << "gregor swarm --merge: " << f << " is not a swarm report\n";
      return 2;
    }
    if (profile.empty()) profile = (*j)["profile"].as_string();
    done += static_cast<uint64_t>((*j)["seeds_run"].as_int());
    wall = std::max(wall, (*j)["wall_seconds"].as_double());
    for (const auto& fail : (*j)["failures"].as_array())
      lines.push_back("FAIL seed " + std::to_string(fail["seed"].as_int()) + ": " + fail["checker"].as_string() + ": " +
                      fail["message"].as_string() + "\n  replay: " + fail["replay"].as_string());
  }
  for (const auto& l : lines) std::printf("%s\n", l.c_str());
  std::printf("swarm (%s, %zu report(s)): %llu seeds, %zu failure(s); the slowest shard took %.1fs\n", profile.c_str(),
              files.size(), static_cast<unsigned long long>(done), lines.size(), wall);
  return lines.empty() ? 0 : 1;
}

}  // namespace

int cmd_swarm(const Args& args) {
  std::string profile_help = "the configuration and faults to draw from:";
  for (const auto& p : sim::swarm_profiles()) profile_help += "\n  " + p.name + ": " + p.description;
  po::options_description desc(
      "usage: gregor swarm [options]\n"
      "       gregor swarm --merge REPORT.json...\n\n"
      "Runs many seeds, each a random cluster, configuration and fault schedule, with the checkers.\n"
      "Exit status: 0 no seed failed, 1 a seed failed, 2 bad input.\n\n"
      "options");
  uint64_t seeds = 100, first = 1;
  unsigned jobs = std::max(1u, static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN)));
  std::string profile = "safe", shard_text, out_dir = "swarm-out", report_path;
  int shrink = 1, shrink_runs = 150;
  std::vector<std::string> merge;
  desc.add_options()("help,h", "show this help")("seeds", po::value<uint64_t>(&seeds)->default_value(seeds), "how many seeds")(
      "first-seed", po::value<uint64_t>(&first)->default_value(first), "the first seed")(
      "jobs,j", po::value<unsigned>(&jobs)->default_value(jobs), "seeds run at once (processes)")(
      "profile", po::value<std::string>(&profile)->default_value(profile), profile_help.c_str())(
      "shard", po::value<std::string>(&shard_text), "run only share I of N (I/N, 1-based): seeds first+I-1, first+I-1+N, ...")(
      "out", po::value<std::string>(&out_dir)->default_value(out_dir), "where failing seeds' scenario files go")(
      "shrink", po::value<int>(&shrink)->default_value(shrink), "shrink the first N failures to minimal scenarios")(
      "shrink-runs", po::value<int>(&shrink_runs)->default_value(shrink_runs), "at most this many runs per shrink")(
      "report", po::value<std::string>(&report_path), "write a JSON summary here (for --merge)")(
      "merge", po::value<std::vector<std::string>>(&merge)->multitoken(), "merge shard reports and exit");
  po::variables_map vm;
  if (auto done = parse_command_line("swarm", args, desc, vm)) return *done;
  if (!merge.empty()) return merge_reports(merge);
  if (!sim::is_swarm_profile(profile)) {
    std::cerr << "gregor swarm: unknown profile '" << profile << "'\n" << profile_help << "\n";
    return 2;
  }
  uint64_t shard = 1, shards = 1;
  if (!shard_text.empty() && !parse_shard(shard_text, shard, shards)) {
    std::cerr << "gregor swarm: --shard expects I/N with 1 <= I <= N, got '" << shard_text << "'\n";
    return 2;
  }
  if (seeds == 0 || seeds > 100'000'000 || jobs == 0 || jobs > 256) {
    std::cerr << "gregor swarm: --seeds must be 1..100000000 and --jobs 1..256\n";
    return 2;
  }
  if (seeds - 1 > UINT64_MAX - first) {
    seeds = UINT64_MAX - first + 1;  // the seed range ends at the largest seed; it does not wrap to 0
    std::printf("(%llu seed(s): the seed range ends at %llu)\n", static_cast<unsigned long long>(seeds),
                static_cast<unsigned long long>(UINT64_MAX));
  }
  std::vector<uint64_t> mine;
  for (uint64_t i = 0; i < seeds; i++)
    if (i % shards == shard - 1) mine.push_back(first + i);

  const bool tty = isatty(1);
  std::printf("swarm: profile %s, %zu seed(s)%s, %u job(s)\n", profile.c_str(), mine.size(),
              shards > 1 ? (" (shard " + std::to_string(shard) + "/" + std::to_string(shards) + ")").c_str() : "", jobs);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Failure> failures;
  std::map<uint64_t, sim::SeedOutcome> failed_outcomes;
  std::vector<Child> running;
  size_t next = 0;
  uint64_t done = 0, events = 0;
  double last_progress = -1;
  while (done < mine.size()) {
    while (running.size() < jobs && next < mine.size()) running.push_back(spawn(profile, mine[next++]));
    std::vector<pollfd> fds;
    for (const auto& c : running) fds.push_back(pollfd{c.fd, POLLIN, 0});
    poll(fds.data(), fds.size(), 250);
    for (size_t i = running.size(); i-- > 0;) {
      Child& c = running[i];
      char buf[4096];
      bool eof = false;
      while (true) {
        ssize_t n = read(c.fd, buf, sizeof buf);
        if (n > 0) {
          if (c.output.size() < kChildOutputMax) c.output.append(buf, static_cast<size_t>(n));
          continue;
        }
        eof = n == 0;
        break;
      }
      if (!eof) continue;
      sim::SeedOutcome o = collect(c);
      running.erase(running.begin() + static_cast<long>(i));
      done++;
      events += o.events;
      if (!o.ok) {
        sim::Scenario s = sim::generate_swarm_scenario(profile, o.seed);
        Failure f;
        f.seed = o.seed;
        f.checker = o.checker.empty() ? o.broken : o.checker;
        f.message = o.message;
        f.file = write_scenario_file(out_dir, s.name, s);
        f.replay = replay_command(f.file, o.seed, "");
        if (tty) std::printf("\r%*s\r", 100, "");
        std::printf("FAIL seed %llu: %s: %s\n  replay: %s\n", static_cast<unsigned long long>(o.seed), f.checker.c_str(),
                    f.message.c_str(), f.replay.c_str());
        failures.push_back(f);
        failed_outcomes[o.seed] = o;
      }
    }
    const double wall = since(t0);
    if (tty || wall - last_progress >= 10 || done == mine.size()) {
      if (done == mine.size() || tty || last_progress < 0 || wall - last_progress >= 10) {
        print_progress(tty, done, mine.size(), failures.size(), wall, done == mine.size());
        last_progress = wall;
      }
    }
  }
  const double wall = since(t0);
  std::printf("swarm: %zu seed(s) in %.1fs: %.1f seeds/min, %zu failure(s)\n", mine.size(), wall,
              wall > 0 ? static_cast<double>(mine.size()) * 60 / wall : 0.0, failures.size());

  // Shrink the first failures, each in a child process of its own (a crashing seed crashes its
  // shrink too; that child's death is reported and the swarm goes on).
  int shrunk = 0;
  for (const auto& f : failures) {
    if (shrunk >= shrink) break;
    if (f.checker == "crash" || f.checker == "timeout") continue;
    shrunk++;
    std::printf("shrinking seed %llu ...\n", static_cast<unsigned long long>(f.seed));
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      sim::Scenario s = sim::generate_swarm_scenario(profile, f.seed);
      sim::ShrinkResult r = sim::shrink_scenario(s, f.seed, shrink_runs);
      if (!r.still_fails) {
        std::printf("  seed %llu did not fail again: not deterministic? (gregor check-determinism %s)\n",
                    static_cast<unsigned long long>(f.seed), f.file.c_str());
        std::fflush(stdout);
        _exit(1);
      }
      const std::string path = write_scenario_file(out_dir, r.minimal.name, r.minimal);
      std::printf("  %zu fault(s) -> %zu, %s -> %s, %d runs; still breaks: %s\n  minimal: %s\n  replay:  %s\n",
                  r.faults_before, r.faults_after, sim::format_duration(r.length_before).c_str(),
                  sim::format_duration(r.length_after).c_str(), r.runs, r.outcome.broken.c_str(), path.c_str(),
                  replay_command(path, f.seed, "").c_str());
      std::fflush(stdout);
      _exit(0);
    }
    int status = 0;
    if (pid > 0) waitpid(pid, &status, 0);
    if (pid < 0 || !WIFEXITED(status)) std::printf("  the shrink of seed %llu died\n", static_cast<unsigned long long>(f.seed));
  }

  if (!report_path.empty()) {
    Json::Object r;
    r["profile"] = profile;
    r["first_seed"] = static_cast<int64_t>(first);
    r["seeds"] = static_cast<int64_t>(seeds);
    r["shard"] = std::to_string(shard) + "/" + std::to_string(shards);
    r["seeds_run"] = static_cast<int64_t>(mine.size());
    r["wall_seconds"] = wall;
    r["seeds_per_minute"] = wall > 0 ? static_cast<double>(mine.size()) * 60 / wall : 0.0;
    Json::Array fl;
    for (const auto& f : failures) {
      Json::Object j;
      j["seed"] = static_cast<int64_t>(f.seed);
      j["checker"] = f.checker;
      j["message"] = f.message;
      j["file"] = f.file;
      j["replay"] = f.replay;
      fl.push_back(std::move(j));
    }
    r["failures"] = std::move(fl);
    std::ofstream out(report_path);
    out << Json(std::move(r)).dump() << "\n";
    if (!out) std::cerr << "gregor swarm: could not write " << report_path << "\n";
  }
  return failures.empty() ? 0 : 1;
}

}  // namespace gregor::app
