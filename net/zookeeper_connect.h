// zookeeper.connect: the connect string a Kafka broker (and every ZooKeeper client) is given,
// "host:port[,host:port...][/chroot]", as ZooKeeper's ConnectStringParser reads it.
//
// A host without a port gets ZooKeeper's default client port, 2181; an IPv6 address is written in
// brackets ("[::1]:2181"). The chroot starts at the first '/'; "/" alone means none. The servers
// become peers of the broker's node under ids of their own (kZkPeerIdBase + index), which the
// broker's zk client tries in a shuffled order, failing over from one to the next.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"
#include "net/transport_config.h"

namespace gregor::net {

constexpr uint16_t kZookeeperDefaultPort = 2181;
constexpr size_t kZookeeperServersMax = 100;

struct ZookeeperConnect {
  std::vector<PeerAddress> servers;
  std::string chroot;  // "" or a valid znode path other than "/"
};

// Bad input (no server, a bad address or port, an invalid chroot, too many servers) is
// kInvalidArgument with a message naming the part at fault.
Result<ZookeeperConnect> parse_zookeeper_connect(std::string_view text);

}  // namespace gregor::net
