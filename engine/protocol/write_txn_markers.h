// WriteTxnMarkers (api key 27, inter-broker): a transaction coordinator asks partition leaders to
// write COMMIT or ABORT markers. The messages are generated from specs/write_txn_markers.yaml
// (versions 0-1, v1 flexible).
#pragma once

#include "generated/protocol/write_txn_markers.h"
