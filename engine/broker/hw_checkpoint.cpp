#include "engine/broker/hw_checkpoint.h"

#include <cstdlib>
#include <sstream>

namespace gregor::broker {

Status write_hw_checkpoint(Disk& disk, const std::map<TopicPartition, int64_t>& hws) {
  std::string text = "0\n" + std::to_string(hws.size()) + "\n";
  for (const auto& [tp, hw] : hws) text += tp.topic + " " + std::to_string(tp.partition) + " " + std::to_string(hw) + "\n";
  return disk.write_file_atomic(kHwCheckpointFile, as_view(text));
}

Result<std::map<TopicPartition, int64_t>> read_hw_checkpoint(Disk& disk) {
  std::map<TopicPartition, int64_t> out;
  if (!disk.exists(kHwCheckpointFile)) return out;
  auto data = disk.read_all(kHwCheckpointFile);
  if (!data) return data.status();
  std::istringstream in(to_string(as_view(*data)));
  std::string version;
  size_t count = 0;
  if (!(in >> version >> count) || version != "0" || count > (1u << 20))
    return Status::error(StatusCode::kCorruption, std::string(kHwCheckpointFile) + ": bad header");
  for (size_t i = 0; i < count; i++) {
    std::string topic;
    int32_t partition;
    int64_t offset;
    if (!(in >> topic >> partition >> offset))
      return Status::error(StatusCode::kCorruption, std::string(kHwCheckpointFile) + ": truncated");
    out[TopicPartition{topic, partition}] = offset;
  }
  return out;
}

}  // namespace gregor::broker
