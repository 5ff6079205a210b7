#include "net/zookeeper_connect.h"

#include "engine/coord/zk_types.h"

namespace gregor::net {

Result<ZookeeperConnect> parse_zookeeper_connect(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Status::error(StatusCode::kInvalidArgument, "zookeeper.connect \"" + std::string(text) + "\": " + why);
  };
  ZookeeperConnect out;
  std::string_view hosts = text;
  // The chroot starts at the first '/' (an IPv6 address has none).
  const size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    hosts = text.substr(0, slash);
    std::string chroot(text.substr(slash));
    if (chroot != "/") {
      if (!coord::valid_path(chroot)) return bad("the chroot " + chroot + " is not a valid znode path");
      out.chroot = std::move(chroot);
    }
  }
  size_t start = 0;
  while (start <= hosts.size()) {
    size_t comma = hosts.find(',', start);
    if (comma == std::string_view::npos) comma = hosts.size();
    std::string entry(hosts.substr(start, comma - start));
    start = comma + 1;
    if (entry.empty()) return bad("an empty server entry");
    // host or [v6]: no port given, so ZooKeeper's default.
    const size_t colon = entry.rfind(':');
    const bool bracketed = entry.front() == '[';
    if (colon == std::string::npos || (bracketed && entry.back() == ']'))
      entry += ":" + std::to_string(kZookeeperDefaultPort);
    auto address = net::parse_peer_address(entry);
    if (!address) return bad(address.status().message());
    if (out.servers.size() == kZookeeperServersMax)
      return bad("more than " + std::to_string(kZookeeperServersMax) + " servers");
    out.servers.push_back(*address);
  }
  if (out.servers.empty()) return bad("no server");
  return out;
}

}  // namespace gregor::net
