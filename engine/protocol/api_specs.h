// Kafka 3.9's version ranges of every API whose messages Gregor's codec describes, taken from the
// message specs (specs/*.yaml) when the codec is generated: the valid versions, the first flexible
// version and the versions KIP-896 deprecates (still served by 3.9; removed by 4.0).
//
// This is what Kafka 3.9 speaks, not what a Gregor broker advertises: api_versions_table.h holds
// the advertised ranges, which grow toward these as the broker implements each version's
// semantics. The codec itself encodes and decodes every version listed here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "engine/protocol/api_keys.h"

namespace gregor::protocol {

struct ApiSpec {
  ApiKey api_key;
  const char* name;                // Kafka's name, "Produce"
  int16_t min_version;             // validVersions
  int16_t max_version;
  int16_t first_flexible_version;  // -1: never flexible
  int16_t deprecated_min_version;  // -1: no deprecated version
  int16_t deprecated_max_version;

  bool is_valid(int16_t version) const { return version >= min_version && version <= max_version; }
  bool is_flexible(int16_t version) const { return first_flexible_version >= 0 && version >= first_flexible_version; }
  bool is_deprecated(int16_t version) const {
    return deprecated_min_version >= 0 && version >= deprecated_min_version && version <= deprecated_max_version;
  }
};

// Every API of the specs, ordered by api key (generated: api_table.cpp).
std::span<const ApiSpec> kafka_api_specs();

// The spec of one API, or null when Gregor's codec does not describe it.
const ApiSpec* find_api_spec(ApiKey key);

// Whether the codec encodes and decodes (key, version): Kafka 3.9's valid versions of the API.
bool codec_supports(ApiKey key, int16_t version);

}  // namespace gregor::protocol
