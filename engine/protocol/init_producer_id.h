// InitProducerId (api key 22): an idempotent (or transactional) producer obtains its producer id
// and epoch. The messages are generated from specs/init_producer_id.yaml (versions 0-5). The
// advertised minimum must stay 0, or librdkafka refuses enable.idempotence=true.
#pragma once

#include "generated/protocol/init_producer_id.h"
