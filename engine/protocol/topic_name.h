// Topic names as Kafka accepts them (org.apache.kafka.common.internals.Topic).
//
// A legal name is 1..249 characters of [a-zA-Z0-9._-] and is neither "." nor "..". Two names
// that differ only where one has '.' and the other '_' collide: Kafka's metric names replace '.'
// with '_', so it refuses to create the second one (CreateTopics answers INVALID_TOPIC_EXCEPTION).
// The scenario parser, the broker (CreateTopics, Metadata auto-creation, Produce) and the clients
// use these same rules.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gregor::protocol {

inline constexpr size_t kTopicNameLengthMax = 249;  // Kafka's Topic.MAX_NAME_LENGTH

// Why the name is illegal, in Kafka's words; std::nullopt when it is legal.
std::optional<std::string> topic_name_problem(std::string_view name);
inline bool valid_topic_name(std::string_view name) { return !topic_name_problem(name).has_value(); }

// The name with every '.' replaced by '_': names with the same key collide.
std::string topic_collision_key(std::string_view name);
inline bool topic_names_collide(std::string_view a, std::string_view b) {
  return a != b && topic_collision_key(a) == topic_collision_key(b);
}

}  // namespace gregor::protocol
