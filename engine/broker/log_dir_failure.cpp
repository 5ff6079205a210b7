#include "engine/broker/log_dir_failure.h"

namespace gregor::broker {

void LogDirFailureChannel::report(const Status& s, const char* operation, const std::string& path) {
  if (s.code() != StatusCode::kDiskFull && s.code() != StatusCode::kIoError) return;
  if (offline_) return;
  offline_ = true;
  if (listener_) listener_(s, operation, path);
}

}  // namespace gregor::broker
