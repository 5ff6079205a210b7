// TraceRecorder: writes a run's events to a SQLite file; TraceReader reads them back.
//
// One file per run. Schema (query it with the sqlite3 shell; see README "Trace files"):
//   run(key TEXT PRIMARY KEY, value TEXT)  -- seed, scenario (its text), build, runtime, ...
//   events(seq INTEGER PRIMARY KEY,        -- emission order, from 1
//          time_us INTEGER,                -- virtual (sim) or steady-clock (net) microseconds
//          node INTEGER,                   -- emitting node; 0 is the simulated world (faults)
//          kind TEXT,                      -- "leader_change", "isr_shrink", "node_crash", ...
//          fields TEXT)                    -- JSON object: use json_extract(fields, '$.leader')
// Recording is buffered and written in batched transactions so it does not dominate a run's cost.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/trace_event.h"

namespace gregor::trace {

class TraceRecorder {
 public:
  // Creates (or replaces) the file and writes the run metadata.
  static Result<std::unique_ptr<TraceRecorder>> open(const std::string& path,
                                                     const std::map<std::string, std::string>& run_info);
  ~TraceRecorder();
  void record(const TraceEvent& e);
  // Writes what is buffered; close() also finishes the file. Both report the first write error.
  Status flush();
  Status close();
  // Adds or replaces one run key (e.g. the final fingerprint, written at the end).
  Status set_run_info(const std::string& key, const std::string& value);
  uint64_t recorded() const { return recorded_; }

 private:
  struct Impl;
  explicit TraceRecorder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::vector<TraceEvent> buffer_;
  uint64_t recorded_ = 0;
  Status error_;
};

struct TraceFile {
  std::map<std::string, std::string> run_info;
  std::vector<TraceEvent> events;
};

// Reads a whole trace file (the GUI's replay and the tests use it).
Result<TraceFile> read_trace(const std::string& path);

}  // namespace gregor::trace
