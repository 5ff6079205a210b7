#include "engine/protocol/topic_name.h"

namespace gregor::protocol {

std::optional<std::string> topic_name_problem(std::string_view name) {
  if (name.empty()) return std::string("Topic name is illegal, it can't be empty");
  if (name == "." || name == "..") return "Topic name cannot be \".\" or \"..\"";
  if (name.size() > kTopicNameLengthMax)
    return "Topic name is illegal, it can't be longer than " + std::to_string(kTopicNameLengthMax) + " characters, topic name: " +
           std::string(name.substr(0, 32)) + "...";
  for (char c : name) {
    const bool legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!legal)
      return "Topic name \"" + std::string(name) +
             "\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'";
  }
  return std::nullopt;
}

std::string topic_collision_key(std::string_view name) {
  std::string key(name);
  for (char& c : key)
    if (c == '.') c = '_';
  return key;
}

}  // namespace gregor::protocol
