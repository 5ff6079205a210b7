// gregor groups: kafka-consumer-groups --describe for a real-socket cluster.
#include <iostream>

#include "app/commands.h"

namespace gregor::app {

int cmd_groups(const Args& args) {
  (void)args;
  std::cerr << "gregor groups: not implemented yet\n";
  return 2;
}

}  // namespace gregor::app
