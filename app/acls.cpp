// gregor acls: kafka-acls.sh for a real-socket cluster whose brokers run an authorizer
// (authorizer.class.name). One resource option or more (--topic T, --group G, --cluster,
// --transactional-id X; each may repeat), then one action:
//   --add     --allow-principal P / --deny-principal P [--allow-host H / --deny-host H]
//             [--operation OP ...] [--resource-pattern-type literal|prefixed]     (CreateAcls)
//   --remove  the same filters; --resource-pattern-type may also be any or match; asks before
//             removing unless --force                                            (DeleteAcls)
//   --list    [--principal P] [--resource-pattern-type ...]; without a resource option every
//             ACL is listed                                                     (DescribeAcls)
// Operations are Kafka's (Read, Write, Create, Delete, Alter, Describe, ClusterAction,
// DescribeConfigs, AlterConfigs, IdempotentWrite, All; the default is All), hosts default to *.
// The output is kafka-acls':
//   Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:
//    	(principal=User:bob, host=*, operation=READ, permissionType=ALLOW)
#include <boost/program_options.hpp>
#include <iostream>
#include <map>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/real_client.h"
#include "engine/broker/acl.h"
#include "engine/protocol/create_acls.h"
#include "engine/protocol/delete_acls.h"
#include "engine/protocol/describe_acls.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

using broker::AccessControlEntry;
using broker::AclBinding;
using broker::AclOperation;
using broker::AclPatternType;
using broker::AclPermission;
using broker::AclResourceType;
using broker::ResourcePattern;

constexpr Duration kCallTimeout = Duration::seconds(15);
constexpr int16_t kAclsVersion = 3;  // Kafka 3.9's newest, as its AdminClient sends

// Kafka's enum spelling in kafka-acls' output: ClusterAction -> CLUSTER_ACTION.
std::string upper_snake(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); i++) {
    const char c = name[i];
    if (c >= 'A' && c <= 'Z' && i > 0 && name[i - 1] >= 'a' && name[i - 1] <= 'z') out.push_back('_');
    out.push_back(static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c));
  }
  return out;
}

std::string pattern_text(const ResourcePattern& p) {
  return "ResourcePattern(resourceType=" + upper_snake(broker::resource_type_name(p.type)) + ", name=" + p.name +
         ", patternType=" + broker::pattern_type_name(p.pattern) + ")";
}

std::string entry_text(const AccessControlEntry& e) {
  return "(principal=" + e.principal + ", host=" + e.host + ", operation=" + upper_snake(broker::operation_name(e.operation)) +
         ", permissionType=" + upper_snake(broker::permission_name(e.permission)) + ")";
}

void print_acls(const std::string& heading, const std::map<ResourcePattern, std::vector<AccessControlEntry>>& acls) {
  for (const auto& [pattern, entries] : acls) {
    std::cout << heading << " `" << pattern_text(pattern) << "`: \n";
    for (const auto& e : entries) std::cout << " \t" << entry_text(e) << " \n";
    std::cout << "\n";
  }
}

// DescribeAcls with a filter; nullopt (after a message) on failure.
std::optional<std::map<ResourcePattern, std::vector<AccessControlEntry>>> describe(ClientSession& session, NodeId to,
                                                                                  const broker::AclBindingFilter& f) {
  protocol::DescribeAclsRequest req;
  req.resource_type_filter = static_cast<int8_t>(f.type);
  req.resource_name_filter = f.name;
  req.pattern_type_filter = static_cast<int8_t>(f.pattern);
  req.principal_filter = f.principal;
  req.host_filter = f.host;
  req.operation = static_cast<int8_t>(f.operation);
  req.permission_type = static_cast<int8_t>(f.permission);
  auto resp = call<protocol::DescribeAclsResponse>(session, to, req, kAclsVersion, kCallTimeout);
  if (!resp) {
    std::cerr << "Error while executing ACL command: no answer to DescribeAcls\n";
    return std::nullopt;
  }
  if (resp->error_code != protocol::ErrorCode::NONE) {
    std::cerr << "Error while executing ACL command: " << protocol::error_name(resp->error_code)
              << (resp->error_message ? ": " + *resp->error_message : "") << "\n";
    return std::nullopt;
  }
  std::map<ResourcePattern, std::vector<AccessControlEntry>> out;
  for (const auto& r : resp->resources) {
    ResourcePattern p{broker::resource_type_of(r.resource_type), r.resource_name, broker::pattern_type_of(r.pattern_type)};
    for (const auto& a : r.acls)
      out[p].push_back({a.principal, a.host, broker::operation_of(a.operation), broker::permission_of(a.permission_type)});
  }
  return out;
}

}  // namespace

int cmd_acls(const Args& args) {
  po::options_description desc(
      "usage: gregor acls --bootstrap-server H:P (--add | --remove [--force] | --list)\n"
      "                   [--topic T] [--group G] [--cluster] [--transactional-id X]\n"
      "                   [--allow-principal User:P] [--deny-principal User:P] [--allow-host H] [--deny-host H]\n"
      "                   [--operation OP] [--resource-pattern-type literal|prefixed|any|match] [--principal User:P]\n\n"
      "kafka-acls for a real-socket cluster whose brokers run with authorizer.class.name set: add, remove\n"
      "and list ACLs (zk /kafka-acl). Operations: Read, Write, Create, Delete, Alter, Describe, ClusterAction,\n"
      "DescribeConfigs, AlterConfigs, IdempotentWrite, All (the default). The caller needs Alter (add,\n"
      "remove) or Describe (list) on the cluster: a super user, e.g. User:ANONYMOUS on a PLAINTEXT listener\n"
      "listed in super.users.\n\noptions");
  std::string bootstrap, pattern_type_text;
  std::vector<std::string> topics, groups, transactional_ids, allow_principals, deny_principals, allow_hosts, deny_hosts,
      operations, principals;
  bool add = false, remove = false, list = false, force = false, cluster = false;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap), "H:P[,H:P...]")(
      "add", po::bool_switch(&add), "add ACLs (CreateAcls)")("remove", po::bool_switch(&remove), "remove ACLs (DeleteAcls)")(
      "list", po::bool_switch(&list), "list ACLs (DescribeAcls)")("force", po::bool_switch(&force), "remove without asking")(
      "topic", po::value<std::vector<std::string>>(&topics), "a topic (* for every topic)")(
      "group", po::value<std::vector<std::string>>(&groups), "a consumer group (* for every group)")(
      "cluster", po::bool_switch(&cluster), "the cluster (kafka-cluster)")(
      "transactional-id", po::value<std::vector<std::string>>(&transactional_ids), "a transactional id")(
      "allow-principal", po::value<std::vector<std::string>>(&allow_principals), "User:NAME to allow (User:* for all)")(
      "deny-principal", po::value<std::vector<std::string>>(&deny_principals), "User:NAME to deny")(
      "allow-host", po::value<std::vector<std::string>>(&allow_hosts), "an address the allowed principals may come from (default *)")(
      "deny-host", po::value<std::vector<std::string>>(&deny_hosts), "an address the denied principals are denied from (default *)")(
      "operation", po::value<std::vector<std::string>>(&operations), "an operation (default All)")(
      "principal", po::value<std::vector<std::string>>(&principals), "with --list: only this principal's ACLs")(
      "resource-pattern-type", po::value<std::string>(&pattern_type_text),
      "literal (default), prefixed; for --list and --remove also any, match");
  po::variables_map vm;
  if (auto done = parse_command_line("acls", args, desc, vm)) return *done;
  if (int(add) + int(remove) + int(list) != 1) {
    std::cerr << "gregor acls: give exactly one of --add, --remove, --list\n";
    return 2;
  }
  if (bootstrap.empty()) {
    std::cerr << "gregor acls: --bootstrap-server is required\n";
    return 2;
  }
  AclPatternType pattern_type = AclPatternType::kLiteral;  // kafka-acls' default (--list without a resource: any)
  if (!pattern_type_text.empty()) {
    auto parsed = broker::parse_pattern_type(pattern_type_text);
    if (!parsed) {
      std::cerr << "gregor acls: --resource-pattern-type is literal, prefixed, any or match, not " << pattern_type_text << "\n";
      return 2;
    }
    if (add && *parsed != AclPatternType::kLiteral && *parsed != AclPatternType::kPrefixed) {
      std::cerr << "gregor acls: A '--resource-pattern-type' value of '" << pattern_type_text
                << "' is not valid when adding acls.\n";
      return 2;
    }
    pattern_type = *parsed;
  }
  std::vector<ResourcePattern> resources;
  for (const auto& t : topics) resources.push_back({AclResourceType::kTopic, t, pattern_type});
  for (const auto& g : groups) resources.push_back({AclResourceType::kGroup, g, pattern_type});
  for (const auto& x : transactional_ids) resources.push_back({AclResourceType::kTransactionalId, x, pattern_type});
  if (cluster) resources.push_back({AclResourceType::kCluster, broker::kClusterResourceName, pattern_type});
  if (resources.empty() && !list) {
    std::cerr << "gregor acls: give a resource: --topic, --group, --cluster or --transactional-id\n";
    return 2;
  }
  std::vector<AclOperation> ops;
  for (const auto& o : operations) {
    auto op = broker::parse_operation(o);
    if (!op || *op == AclOperation::kAny) {
      std::cerr << "gregor acls: unknown operation " << o << "\n";
      return 2;
    }
    ops.push_back(*op);
  }
  if (ops.empty()) ops.push_back(AclOperation::kAll);
  // The entries --add creates (and --remove removes): each principal from each of its hosts.
  std::vector<AccessControlEntry> entries;
  auto add_entries = [&](const std::vector<std::string>& who, std::vector<std::string> hosts, AclPermission permission) {
    if (hosts.empty()) hosts.push_back(broker::kWildcard);
    for (const auto& p : who)
      for (const auto& h : hosts)
        for (AclOperation op : ops) entries.push_back({p, h, op, permission});
  };
  add_entries(allow_principals, allow_hosts, AclPermission::kAllow);
  add_entries(deny_principals, deny_hosts, AclPermission::kDeny);
  if (add && entries.empty()) {
    std::cerr << "gregor acls: --add needs --allow-principal or --deny-principal\n";
    return 2;
  }

  auto session = ClientSession::open("acls", bootstrap, [](ClientNode& n, const std::vector<NodeId>&) {
    n.net = std::make_unique<protocol::NetworkClient>(n.rt(), "gregor-acls");
  });
  if (!session) return 2;
  auto md = session->metadata(std::vector<std::string>{}, kCallTimeout);
  std::optional<NodeId> to = md ? admin_broker(*md) : std::nullopt;
  if (!to) {
    std::cerr << "Error while executing ACL command: no broker answered\n";
    return 1;
  }
  auto filter_of = [&](const ResourcePattern& r) {
    broker::AclBindingFilter f;
    f.type = r.type;
    f.name = r.name;
    f.pattern = r.pattern;
    return f;
  };

  if (list) {
    std::vector<broker::AclBindingFilter> filters;
    if (resources.empty()) filters.push_back(broker::AclBindingFilter{});
    for (const auto& r : resources) filters.push_back(filter_of(r));
    std::map<ResourcePattern, std::vector<AccessControlEntry>> all;
    if (principals.empty()) principals.push_back("");  // "": any principal
    for (auto f : filters) {
      for (const auto& p : principals) {
        if (!p.empty()) f.principal = p;
        auto found = describe(*session, *to, f);
        if (!found) return 1;
        for (auto& [pattern, es] : *found)
          for (auto& e : es) all[pattern].push_back(std::move(e));
      }
    }
    print_acls("Current ACLs for resource", all);
    return 0;
  }

  if (add) {
    protocol::CreateAclsRequest req;
    for (const auto& r : resources) {
      std::cout << "Adding ACLs for resource `" << pattern_text(r) << "`: \n";
      for (const auto& e : entries) {
        std::cout << " \t" << entry_text(e) << " \n";
        protocol::CreateAclsRequest::AclCreation c;
        c.resource_type = static_cast<int8_t>(r.type);
        c.resource_name = r.name;
        c.resource_pattern_type = static_cast<int8_t>(r.pattern);
        c.principal = e.principal;
        c.host = e.host;
        c.operation = static_cast<int8_t>(e.operation);
        c.permission_type = static_cast<int8_t>(e.permission);
        req.creations.push_back(std::move(c));
      }
      std::cout << "\n";
    }
    auto resp = call<protocol::CreateAclsResponse>(*session, *to, req, kAclsVersion, kCallTimeout);
    if (!resp) {
      std::cerr << "Error while executing ACL command: no answer to CreateAcls\n";
      return 1;
    }
    for (const auto& r : resp->results)
      if (r.error_code != protocol::ErrorCode::NONE) {
        std::cerr << "Error while executing ACL command: " << protocol::error_name(r.error_code)
                  << (r.error_message ? ": " + *r.error_message : "") << "\n";
        return 1;
      }
  } else {
    if (!force) {
      std::cout << "Are you sure you want to remove ACLs: \n";
      for (const auto& r : resources) std::cout << " \t" << pattern_text(r) << "\n";
      std::cout << " (y/n)\n";
      std::string answer;
      if (!std::getline(std::cin, answer) || (answer != "y" && answer != "Y")) return 0;
    }
    protocol::DeleteAclsRequest req;
    for (const auto& r : resources) {
      auto push = [&](const std::optional<AccessControlEntry>& e) {
        protocol::DeleteAclsRequest::DeleteAclsFilter f;
        f.resource_type_filter = static_cast<int8_t>(r.type);
        f.resource_name_filter = r.name;
        f.pattern_type_filter = static_cast<int8_t>(r.pattern);
        f.operation = static_cast<int8_t>(AclOperation::kAny);
        f.permission_type = static_cast<int8_t>(AclPermission::kAny);
        if (e) {
          f.principal_filter = e->principal;
          f.host_filter = e->host;
          f.operation = static_cast<int8_t>(e->operation);
          f.permission_type = static_cast<int8_t>(e->permission);
        }
        req.filters.push_back(std::move(f));
      };
      if (entries.empty()) push(std::nullopt);  // every ACL of the resource, as kafka-acls does
      for (const auto& e : entries) push(e);
    }
    auto resp = call<protocol::DeleteAclsResponse>(*session, *to, req, kAclsVersion, kCallTimeout);
    if (!resp) {
      std::cerr << "Error while executing ACL command: no answer to DeleteAcls\n";
      return 1;
    }
    for (const auto& r : resp->filter_results)
      if (r.error_code != protocol::ErrorCode::NONE) {
        std::cerr << "Error while executing ACL command: " << protocol::error_name(r.error_code)
                  << (r.error_message ? ": " + *r.error_message : "") << "\n";
        return 1;
      }
  }
  // As kafka-acls: what the resources hold now.
  std::map<ResourcePattern, std::vector<AccessControlEntry>> now;
  for (const auto& r : resources) {
    auto f = filter_of(r);
    if (f.pattern != AclPatternType::kLiteral && f.pattern != AclPatternType::kPrefixed) continue;
    auto found = describe(*session, *to, f);
    if (!found) return 1;
    for (auto& [pattern, es] : *found) now[pattern] = std::move(es);
    if (!now.count(r)) now[r] = {};
  }
  print_acls("Current ACLs for resource", now);
  return 0;
}

}  // namespace gregor::app
