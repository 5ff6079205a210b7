// A file of engine/group/ that breaks the layer rule: the group coordinator may not see the broker.
// It is compiled as the group layer is (tests/CMakeLists.txt), and must fail to compile.
#include "engine/broker/partition.h"

int gregor_layer_probe() { return 0; }
