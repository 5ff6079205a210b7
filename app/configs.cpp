// gregor configs: kafka-configs.sh for a real-socket cluster.
//   gregor configs --bootstrap-server B --entity-type topics --entity-name T --describe [--all]
//   gregor configs --bootstrap-server B --entity-type topics --entity-name T --alter
//                  [--add-config k=v[,k=v]] [--delete-config k[,k]]
//   gregor configs --bootstrap-server B --entity-type brokers --entity-name 1 --describe --all
// --describe sends DescribeConfigs (with synonyms) and prints Kafka's lines:
//   Dynamic configs for topic orders are:
//     min.insync.replicas=1 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:min.insync.replicas=1, DEFAULT_CONFIG:min.insync.replicas=1}
// --alter sends IncrementalAlterConfigs (SET / DELETE), as kafka-configs does since Kafka 2.3.
#include <boost/program_options.hpp>
#include <iostream>
#include <random>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/real_client.h"
#include "engine/broker/broker_config.h"
#include "engine/core/scram.h"
#include "engine/protocol/alter_configs.h"
#include "engine/protocol/alter_user_scram_credentials.h"
#include "engine/protocol/describe_configs.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

constexpr Duration kCallTimeout = Duration::seconds(15);
using protocol::ConfigResourceType;
using protocol::ConfigSource;

// kafka-configs' --add-config syntax: k=v pairs separated by commas; a value holding commas is
// written in brackets (cleanup.policy=[compact,delete]).
bool parse_add_config(const std::string& text, std::vector<std::pair<std::string, std::string>>& out, std::string& error) {
  size_t i = 0;
  while (i < text.size()) {
    size_t eq = text.find('=', i);
    if (eq == std::string::npos || eq == i) {
      error = "--add-config: expected key=value at '" + text.substr(i) + "'";
      return false;
    }
    std::string key = text.substr(i, eq - i);
    size_t j = eq + 1;
    std::string value;
    if (j < text.size() && text[j] == '[') {
      size_t close = text.find(']', j);
      if (close == std::string::npos) {
        error = "--add-config: unclosed '[' in the value of " + key;
        return false;
      }
      value = text.substr(j + 1, close - j - 1);
      j = close + 1;
    } else {
      size_t comma = text.find(',', j);
      if (comma == std::string::npos) comma = text.size();
      value = text.substr(j, comma - j);
      j = comma;
    }
    out.emplace_back(key, value);
    if (j < text.size() && text[j] != ',') {
      error = "--add-config: expected ',' after the value of " + key;
      return false;
    }
    i = j + 1;
  }
  return true;
}

std::optional<NodeId> any_broker(ClientSession& session) {
  auto md = session.metadata(std::vector<std::string>{}, kCallTimeout);
  if (!md) return std::nullopt;
  return admin_broker(*md);
}

int describe(ClientSession& session, ConfigResourceType type, const std::string& name, bool all) {
  const bool broker = type == ConfigResourceType::BROKER;
  std::optional<NodeId> to;
  if (broker) {
    // A broker's configs come from that broker; learn its address from Metadata first.
    auto md = session.metadata(std::vector<std::string>{}, kCallTimeout);
    if (md)
      for (const auto& b : md->brokers)
        if (std::to_string(b.node_id) == name) to = NodeId{b.node_id};
    if (!to) {
      std::cerr << "Error while executing config command : broker " << name << " is not in the cluster\n";
      return 1;
    }
  } else {
    to = any_broker(session);
  }
  if (!to) {
    std::cerr << "Error while executing config command : no broker answered\n";
    return 1;
  }
  protocol::DescribeConfigsRequest req;
  req.resources.push_back({static_cast<int8_t>(type), name, std::nullopt});
  req.include_synonyms = true;
  auto resp = call<protocol::DescribeConfigsResponse>(session, *to, req, 2, kCallTimeout);
  if (!resp || resp->results.size() != 1) {
    std::cerr << "Error while executing config command : no answer to DescribeConfigs\n";
    return 1;
  }
  const auto& result = resp->results[0];
  if (result.error_code != protocol::ErrorCode::NONE) {
    std::cerr << "Error while executing config command : " << protocol::error_name(result.error_code)
              << (result.error_message ? ": " + *result.error_message : "") << "\n";
    return 1;
  }
  std::cout << (all ? "All" : "Dynamic") << " configs for " << (broker ? "broker " : "topic ") << name << " are:\n";
  for (const auto& c : result.configs) {
    auto source = static_cast<ConfigSource>(c.config_source);
    bool dynamic = source == ConfigSource::DYNAMIC_TOPIC_CONFIG || source == ConfigSource::DYNAMIC_BROKER_CONFIG ||
                   source == ConfigSource::DYNAMIC_DEFAULT_BROKER_CONFIG;
    if (!all && !dynamic) continue;
    std::cout << "  " << c.name << "=" << (c.is_sensitive ? std::string("null") : c.value.value_or("null"))
              << " sensitive=" << (c.is_sensitive ? "true" : "false") << " synonyms={";
    for (size_t i = 0; i < c.synonyms.size(); i++) {
      const auto& s = c.synonyms[i];
      std::cout << (i ? ", " : "") << protocol::config_source_name(static_cast<ConfigSource>(s.source)) << ":" << s.name
                << "=" << s.value.value_or("null");
    }
    std::cout << "}\n";
  }
  return 0;
}

int alter(ClientSession& session, const std::string& topic, const std::vector<std::pair<std::string, std::string>>& add,
          const std::vector<std::string>& remove) {
  auto to = any_broker(session);
  if (!to) {
    std::cerr << "Error while executing config command : no broker answered\n";
    return 1;
  }
  protocol::IncrementalAlterConfigsRequest req;
  protocol::IncrementalAlterConfigsRequest::AlterConfigsResource res;
  res.resource_type = static_cast<int8_t>(ConfigResourceType::TOPIC);
  res.resource_name = topic;
  for (const auto& [k, v] : add) res.configs.push_back({k, static_cast<int8_t>(protocol::ConfigOperation::SET), v});
  for (const auto& k : remove) res.configs.push_back({k, static_cast<int8_t>(protocol::ConfigOperation::DELETE), std::nullopt});
  req.resources.push_back(res);
  auto resp = call<protocol::IncrementalAlterConfigsResponse>(session, *to, req, 0, kCallTimeout);
  if (!resp || resp->responses.size() != 1) {
    std::cerr << "Error while executing config command : no answer to IncrementalAlterConfigs\n";
    return 1;
  }
  const auto& r = resp->responses[0];
  if (r.error_code != protocol::ErrorCode::NONE) {
    std::cerr << "Error while executing config command : " << protocol::error_name(r.error_code)
              << (r.error_message ? ": " + *r.error_message : "") << "\n";
    return 1;
  }
  std::cout << "Completed updating config for topic " << topic << ".\n";
  return 0;
}

// --entity-type users: SCRAM credentials through AlterUserScramCredentials, as Kafka 3.9's
// kafka-configs does. --add-config 'SCRAM-SHA-256=[password=secret]' (or [iterations=8192,password=...]);
// --delete-config SCRAM-SHA-256. The salted password is computed here: the password never leaves.
int alter_users(ClientSession& session, const std::string& user, const std::vector<std::pair<std::string, std::string>>& add,
                const std::vector<std::string>& remove) {
  protocol::AlterUserScramCredentialsRequest req;
  std::random_device random;
  for (const auto& [key, value] : add) {
    auto mechanism = scram::mechanism_from_name(key);
    if (!mechanism) {
      std::cerr << "gregor configs: users take SCRAM-SHA-256 or SCRAM-SHA-512, not " << key << "\n";
      return 2;
    }
    std::string password;
    int32_t iterations = scram::kIterationsMin;
    std::vector<std::pair<std::string, std::string>> parts;
    std::string error;
    if (!parse_add_config(value, parts, error)) {
      std::cerr << "gregor configs: " << key << "=[" << value << "]: expected [password=...] or [iterations=N,password=...]\n";
      return 2;
    }
    for (const auto& [k, v] : parts) {
      if (k == "password") {
        password = v;
      } else if (k == "iterations") {
        try {
          iterations = std::stoi(v);
        } catch (const std::exception&) {
          std::cerr << "gregor configs: iterations=" << v << " is not a number\n";
          return 2;
        }
      } else {
        std::cerr << "gregor configs: " << key << " takes password and iterations, not " << k << "\n";
        return 2;
      }
    }
    if (password.empty()) {
      std::cerr << "gregor configs: " << key << " needs a password: " << key << "=[password=...]\n";
      return 2;
    }
    std::string salt;
    for (int i = 0; i < 16; i++) salt += static_cast<char>(random() & 0xff);
    protocol::AlterUserScramCredentialsRequest::ScramCredentialUpsertion u;
    u.name = user;
    u.mechanism = scram::mechanism_id(*mechanism);
    u.iterations = iterations;
    u.salt = Bytes(salt.begin(), salt.end());
    // Too few or too many iterations are the broker's to refuse (UNACCEPTABLE_CREDENTIAL).
    const std::string salted = scram::salted_password(*mechanism, password, salt, std::max(iterations, 1));
    u.salted_password = Bytes(salted.begin(), salted.end());
    req.upsertions.push_back(std::move(u));
  }
  for (const auto& key : remove) {
    auto mechanism = scram::mechanism_from_name(key);
    if (!mechanism) {
      std::cerr << "gregor configs: users take SCRAM-SHA-256 or SCRAM-SHA-512, not " << key << "\n";
      return 2;
    }
    req.deletions.push_back({user, scram::mechanism_id(*mechanism)});
  }
  auto to = any_broker(session);
  if (!to) {
    std::cerr << "Error while executing config command : no broker answered\n";
    return 1;
  }
  auto resp = call<protocol::AlterUserScramCredentialsResponse>(session, *to, req, 0, kCallTimeout);
  if (!resp) {
    std::cerr << "Error while executing config command : no answer to AlterUserScramCredentials\n";
    return 1;
  }
  for (const auto& r : resp->results) {
    if (r.error_code != protocol::ErrorCode::NONE) {
      std::cerr << "Error while executing config command : " << protocol::error_name(r.error_code)
                << (r.error_message ? ": " + *r.error_message : "") << "\n";
      return 1;
    }
  }
  std::cout << "Completed updating config for user " << user << ".\n";
  return 0;
}

}  // namespace

int cmd_configs(const Args& args) {
  po::options_description desc(
      "usage: gregor configs --bootstrap-server H:P --entity-type topics|brokers|users --entity-name NAME\n"
      "                      (--describe [--all] | --alter [--add-config k=v[,k=v]] [--delete-config k[,k]])\n\n"
      "kafka-configs for a real-socket cluster: describe topic and broker configs, change topic configs\n"
      "at run time (every broker applies the change through zk's /config/changes), and users' SCRAM\n"
      "credentials: --entity-type users --alter --add-config 'SCRAM-SHA-256=[password=secret]'\n"
      "(or [iterations=8192,password=...]), --delete-config SCRAM-SHA-256 (zk /config/users/NAME).\n\noptions");
  std::string bootstrap, entity_type, entity_name, add_config, delete_config;
  bool describe_flag = false, alter_flag = false, all = false;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap), "H:P[,H:P...]")(
      "entity-type", po::value<std::string>(&entity_type), "topics or brokers")(
      "entity-name", po::value<std::string>(&entity_name), "the topic name or broker id")(
      "topic", po::value<std::string>(), "the same as --entity-type topics --entity-name T")(
      "describe", po::bool_switch(&describe_flag), "list configs (dynamic ones; --all for every one)")(
      "all", po::bool_switch(&all), "with --describe: every config, with its source")(
      "alter", po::bool_switch(&alter_flag), "change topic configs")(
      "add-config", po::value<std::string>(&add_config), "k=v[,k=v...] to set (a list value in brackets: k=[a,b])")(
      "delete-config", po::value<std::string>(&delete_config), "k[,k...] to remove (back to the broker's default)");
  ClientConfigFiles files;
  files.add_to(desc);
  po::variables_map vm;
  if (auto done = parse_command_line("configs", args, desc, vm, nullptr, nullptr,
                                     "topic configs (--add-config key=value):\n" + broker::topic_config_def().help()))
    return *done;
  if (vm.count("topic")) {
    entity_type = "topics";
    entity_name = vm["topic"].as<std::string>();
  }
  if (int(describe_flag) + int(alter_flag) != 1) {
    std::cerr << "gregor configs: give exactly one of --describe, --alter\n";
    return 2;
  }
  if (bootstrap.empty()) {
    std::cerr << "gregor configs: --bootstrap-server is required\n";
    return 2;
  }
  if (entity_type != "topics" && entity_type != "brokers" && entity_type != "users") {
    std::cerr << "gregor configs: --entity-type must be topics, brokers or users\n";
    return 2;
  }
  if (entity_name.empty()) {
    std::cerr << "gregor configs: --entity-name is required\n";
    return 2;
  }
  std::vector<std::pair<std::string, std::string>> add;
  std::vector<std::string> remove = split_config_list(delete_config);
  if (alter_flag) {
    if (entity_type == "brokers") {
      std::cerr << "gregor configs: broker configs are static in Gregor (gregor broker --config k=v); --alter takes topics\n";
      return 2;
    }
    std::string error;
    if (!parse_add_config(add_config, add, error)) {
      std::cerr << "gregor configs: " << error << "\n";
      return 2;
    }
    if (add.empty() && remove.empty()) {
      std::cerr << "gregor configs: --alter needs --add-config or --delete-config\n";
      return 2;
    }
  }
  std::optional<protocol::SaslCredentials> sasl;
  if (!files.admin_sasl("configs", sasl)) return 2;
  auto session = ClientSession::open(
      "configs", bootstrap,
      [](ClientNode& n, const std::vector<NodeId>&) { n.net = std::make_unique<protocol::NetworkClient>(n.rt(), "gregor-configs"); },
      sasl);
  if (!session) return 2;
  if (entity_type == "users") {
    if (!alter_flag) {
      std::cerr << "gregor configs: users' credentials are secret: --entity-type users takes --alter only\n";
      return 2;
    }
    return alter_users(*session, entity_name, add, remove);
  }
  if (alter_flag) return alter(*session, entity_name, add, remove);
  return describe(*session, entity_type == "brokers" ? ConfigResourceType::BROKER : ConfigResourceType::TOPIC, entity_name, all);
}

}  // namespace gregor::app
