#include "engine/protocol/api_specs.h"

namespace gregor::protocol {

const ApiSpec* find_api_spec(ApiKey key) {
  for (const ApiSpec& spec : kafka_api_specs()) {
    if (spec.api_key == key) return &spec;
  }
  return nullptr;
}

bool codec_supports(ApiKey key, int16_t version) {
  const ApiSpec* spec = find_api_spec(key);
  return spec != nullptr && spec->is_valid(version);
}

}  // namespace gregor::protocol
