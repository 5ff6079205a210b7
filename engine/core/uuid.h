// Uuid: Kafka's 128-bit identifier (org.apache.kafka.common.Uuid), used for topic ids (KIP-516)
// and a few other ids of the wire protocol (fetch directories, KRaft incarnations).
//
// On the wire it is 16 bytes, the most significant 64 bits first. Its text form is Kafka's:
// the 16 bytes in URL-safe base64 without padding (22 characters), e.g. "AAAAAAAAAAAAAAAAAAAAAA"
// for the zero id, which Kafka reserves to mean "no id" (Uuid.ZERO_UUID); Uuid 1 is reserved for
// the KRaft metadata topic (Uuid.METADATA_TOPIC_ID).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gregor {

class Uuid {
 public:
  constexpr Uuid() = default;
  constexpr explicit Uuid(uint64_t most_significant, uint64_t least_significant)
      : high_(most_significant), low_(least_significant) {}

  constexpr uint64_t most_significant() const { return high_; }
  constexpr uint64_t least_significant() const { return low_; }
  constexpr bool is_zero() const { return high_ == 0 && low_ == 0; }

  // Kafka's text form (22 characters of URL-safe base64).
  std::string to_string() const;
  // The inverse of to_string(); nullopt for anything else.
  static std::optional<Uuid> parse(std::string_view text);

  constexpr auto operator<=>(const Uuid&) const = default;

 private:
  uint64_t high_ = 0;
  uint64_t low_ = 0;
};

inline constexpr Uuid kZeroUuid{};

}  // namespace gregor
