// gregor cluster up: a local real-socket cluster as child processes, in the foreground.
//
// It starts `gregor zk` and n `gregor broker` processes (this same executable), broker ids 1..n on
// port-base .. port-base+n-1 and zk on port-base+100, each with its data under --dir (with
// --zookeeper-connect, only the brokers, on that existing ZooKeeper ensemble), prints their
// pids and command lines and the bootstrap address, waits until every broker is registered and a
// controller is elected (Metadata says so) and prints "cluster ready". Then it stays in the
// foreground until SIGINT or SIGTERM, and stops all its children (SIGTERM, then SIGKILL after a
// grace period). A child that gets SIGTERM from cluster up and from a signal to the whole process
// group stops once, cleanly. A child that dies is reported and not restarted: restarting a broker with the same
// command line (as printed) recovers its log from the same data directory.
#include <boost/program_options.hpp>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <thread>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/real_client.h"
#include "net/zookeeper_connect.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

constexpr Duration kReadyTimeout = Duration::seconds(60);
constexpr auto kStopGrace = std::chrono::seconds(10);
constexpr int kBrokersMax = 100;

volatile sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int signal_number) { g_stop_signal = signal_number; }

void install_stop_handlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking waitpid returns EINTR on a signal
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

struct Child {
  std::string name;
  std::vector<std::string> argv;
  pid_t pid = -1;
  bool running = false;
  // The zk server: stopped after the brokers (a stopping broker's controlled shutdown goes through
  // the controller to ZooKeeper), and in a process group of its own, so that a Ctrl-C in the
  // terminal does not stop it before them.
  bool stop_last = false;
};

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

bool spawn(Child& c) {
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    std::cerr << "gregor cluster: fork: " << std::strerror(errno) << "\n";
    return false;
  }
  if (pid == 0) {
    // The child stays in cluster up's process group, so Ctrl-C in a terminal reaches it directly
    // as well as through cluster up's SIGTERM: a node stops once however many of these signals
    // it gets (net/run_node.cpp). Should cluster up die without stopping it (SIGKILL), the kernel
    // sends the child SIGTERM (PR_SET_PDEATHSIG): no broker is orphaned.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);  // the parent died before the line above
    if (c.stop_last) ::setpgid(0, 0);
    // Default signal dispositions (exec keeps SIG_IGN ones), then exec.
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    std::vector<char*> argv;
    for (auto& a : c.argv) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    std::fprintf(stderr, "gregor cluster: exec %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  c.pid = pid;
  c.running = true;
  std::cout << c.name << ": pid " << pid << ": " << command_line(c.argv) << "\n" << std::flush;
  return true;
}

// Reaps exited children without blocking (or blocking, until one exits or a signal comes).
void reap(std::vector<Child>& children, bool block) {
  for (;;) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, block ? 0 : WNOHANG);
    if (pid <= 0) return;
    for (auto& c : children) {
      if (c.pid != pid || !c.running) continue;
      c.running = false;
      if (WIFSIGNALED(status))
        std::cout << c.name << " (pid " << pid << ") was killed by signal " << WTERMSIG(status) << "\n" << std::flush;
      else
        std::cout << c.name << " (pid " << pid << ") exited with status " << WEXITSTATUS(status) << "\n" << std::flush;
    }
    block = false;
  }
}

// Children still running; with `last`, only those stopped first (false) or last (true).
size_t running_count(const std::vector<Child>& children, std::optional<bool> last = std::nullopt) {
  size_t n = 0;
  for (const auto& c : children) n += c.running && (!last || c.stop_last == *last) ? 1 : 0;
  return n;
}

// SIGTERM to the brokers, then (once they are gone, or after the grace period) to the zk server;
// SIGKILL to whatever still runs after its grace period.
void stop_all(std::vector<Child>& children) {
  for (bool last : {false, true}) {
    for (auto& c : children)
      if (c.running && c.stop_last == last) ::kill(c.pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + kStopGrace;
    while (running_count(children, last) > 0 && std::chrono::steady_clock::now() < deadline) {
      reap(children, false);
      if (running_count(children, last) > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (auto& c : children)
      if (c.running && c.stop_last == last) {
        std::cout << c.name << " did not stop within " << kStopGrace.count() << " s: SIGKILL\n";
        ::kill(c.pid, SIGKILL);
      }
  }
  while (running_count(children) > 0) reap(children, true);
}

std::string self_executable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("gregor") : p.string();
}

}  // namespace

int cmd_cluster(const Args& args) {
  po::options_description desc(
      "usage: gregor cluster up [--brokers 3] [--port-base 19092] [--dir DIR] [--config key=value ...]\n"
      "                         [--zookeeper-connect HOST:PORT[,HOST:PORT...][/CHROOT]] [--separate-listeners]\n"
      "                         [--control-plane-listener] [--sasl [--sasl-inter-broker]]\n\n"
      "Starts a local cluster of processes on real sockets: `gregor zk` on port-base+100 and brokers\n"
      "1..n on port-base..port-base+n-1, data under DIR. With --zookeeper-connect it starts only the\n"
      "brokers, on that existing ZooKeeper ensemble (Apache ZooKeeper or `gregor zk`). Prints the\n"
      "bootstrap address, then stays in the foreground; Ctrl-C or SIGTERM stops every process: the\n"
      "brokers first, each with a controlled shutdown (one attempt: controlled.shutdown.max.retries=1\n"
      "unless --config sets it), then zk. SIGTERM to one broker's pid stops that broker alone, its\n"
      "leaderships moved to the others first, as Kafka's.\n"
      "Restarting a killed broker with its printed command line recovers its log.\n"
      "--separate-listeners gives each broker two listeners, as Kafka's listeners key: CLIENT on\n"
      "port-base+i-1 (the bootstrap address) for clients, REPLICATION on port-base+200+i-1 for the other\n"
      "brokers and the controller (inter.broker.listener.name); controller requests arriving on CLIENT are\n"
      "refused. Without it each broker has one PLAINTEXT listener.\n"
      "--control-plane-listener is --separate-listeners plus a third listener, CONTROL on\n"
      "port-base+300+i-1 (control.plane.listener.name=CONTROL): the controller sends its requests\n"
      "(LeaderAndIsr, UpdateMetadata, StopReplica) there and brokers their ControlledShutdown, on\n"
      "connections of their own, apart from replication.\n"
      "--sasl is --separate-listeners with CLIENT a SASL_PLAINTEXT listener (PLAIN, SCRAM-SHA-256,\n"
      "SCRAM-SHA-512): give PLAIN users with --config sasl.plain.users=alice:secret,... and SCRAM users\n"
      "with `gregor configs --entity-type users`. Brokers talk PLAINTEXT on REPLICATION, unless\n"
      "--sasl-inter-broker makes REPLICATION SASL_PLAINTEXT too: the brokers then authenticate to each\n"
      "other with PLAIN as user `broker` (a random password, added to sasl.plain.users and given to\n"
      "them in listener.name.replication.plain.sasl.jaas.config); DIR/broker-client.properties holds\n"
      "those credentials for tools (--command-config) on the REPLICATION listener.\n"
      "ACLs: --config authorizer.class.name=kafka.security.authorizer.AclAuthorizer\n"
      "--config 'super.users=User:admin;User:ANONYMOUS' (brokers on a PLAINTEXT REPLICATION listener are\n"
      "User:ANONYMOUS; with --sasl-inter-broker they are User:broker), then `gregor acls`.\n\noptions");
  std::string action, dir, host = "127.0.0.1", zookeeper_connect;
  int brokers = 3;
  int port_base = 19092;
  std::vector<std::string> configs;
  bool separate_listeners = false;
  bool control_plane = false;
  bool sasl = false;
  bool sasl_inter_broker = false;
  desc.add_options()("help,h", "show this help")("brokers", po::value<int>(&brokers)->default_value(brokers),
                                                  "number of brokers")(
      "port-base", po::value<int>(&port_base)->default_value(port_base), "broker 1's port")(
      "dir", po::value<std::string>(&dir), "data directory (default /tmp/gregor-cluster-PORTBASE)")(
      "host", po::value<std::string>(&host)->default_value(host), "the address to listen on")(
      "config", po::value<std::vector<std::string>>(&configs)->composing(), "a broker config key=value (repeatable)")(
      "zookeeper-connect", po::value<std::string>(&zookeeper_connect),
      "run the brokers on this existing ZooKeeper ensemble instead of starting `gregor zk`")(
      "separate-listeners", po::bool_switch(&separate_listeners),
      "a CLIENT listener for clients and a REPLICATION listener (port-base+200+i-1) for brokers")(
      "control-plane-listener", po::bool_switch(&control_plane),
      "--separate-listeners plus a CONTROL listener (port-base+300+i-1) for the controller's requests")(
      "sasl", po::bool_switch(&sasl), "--separate-listeners with a SASL_PLAINTEXT CLIENT listener")(
      "sasl-inter-broker", po::bool_switch(&sasl_inter_broker),
      "--sasl with a SASL_PLAINTEXT REPLICATION listener too (brokers authenticate to each other)");
  po::options_description hidden;
  hidden.add_options()("action", po::value<std::string>(&action));
  po::positional_options_description pos;
  pos.add("action", 1);
  po::variables_map vm;
  if (auto done = parse_command_line("cluster", args, desc, vm, &hidden, &pos)) return *done;
  if (action != "up") {
    std::cerr << "gregor cluster: the only action is `up` (gregor cluster up --help)\n";
    return 2;
  }
  if (brokers < 1 || brokers > kBrokersMax) {
    std::cerr << "gregor cluster: --brokers must be in 1.." << kBrokersMax << "\n";
    return 2;
  }
  if (port_base < 1 || port_base + 100 > 65535) {
    std::cerr << "gregor cluster: --port-base must be in 1..65435\n";
    return 2;
  }
  if (sasl_inter_broker) sasl = true;
  if (sasl || control_plane) separate_listeners = true;
  if (separate_listeners && port_base + 200 + brokers - 1 > 65535) {
    std::cerr << "gregor cluster: --separate-listeners needs port-base+200+brokers-1 <= 65535\n";
    return 2;
  }
  if (control_plane && port_base + 300 + brokers - 1 > 65535) {
    std::cerr << "gregor cluster: --control-plane-listener needs port-base+300+brokers-1 <= 65535\n";
    return 2;
  }
  std::map<std::string, std::string> settings;
  if (!parse_key_values("cluster", configs, settings)) return 2;
  if (separate_listeners) {
    for (const char* key : {"listeners", "advertised.listeners", "listener.security.protocol.map", "inter.broker.listener.name",
                            "security.inter.broker.protocol", "control.plane.listener.name"})
      if (settings.count(key)) {
        std::cerr << "gregor cluster: --separate-listeners sets " << key << ": do not give it with --config too\n";
        return 2;
      }
  }
  if (!zookeeper_connect.empty()) {
    if (auto parsed = net::parse_zookeeper_connect(zookeeper_connect); !parsed) {
      std::cerr << "gregor cluster: " << parsed.status().message() << "\n";
      return 2;
    }
  }
  // Kafka's default replication factor for __consumer_offsets is 3; a smaller cluster gets its size.
  if (!settings.count("offsets.topic.replication.factor"))
    configs.push_back("offsets.topic.replication.factor=" + std::to_string(std::min(brokers, 3)));
  // Stopping the whole cluster, the last brokers to stop have nowhere to move their leaderships:
  // Kafka's 3 attempts 5 s apart would only delay the stop. One attempt still moves the leaderships
  // of a broker stopped alone (`kill -TERM` of its pid).
  if (!settings.count("controlled.shutdown.max.retries")) configs.push_back("controlled.shutdown.max.retries=1");
  if (dir.empty()) dir = "/tmp/gregor-cluster-" + std::to_string(port_base);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::cerr << "gregor cluster: cannot create " << dir << ": " << ec.message() << "\n";
    return 1;
  }

  // --sasl-inter-broker: the brokers' own PLAIN user, with a password drawn for this cluster.
  std::optional<protocol::SaslCredentials> broker_credentials;
  if (sasl_inter_broker) {
    std::random_device random;
    std::string password;
    static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int i = 0; i < 24; i++) password += kAlphabet[random() % (sizeof(kAlphabet) - 1)];
    broker_credentials = protocol::SaslCredentials{"PLAIN", "broker", password};
    const std::string users = settings.count("sasl.plain.users") ? settings["sasl.plain.users"] + "," : "";
    // After the user's own --config values, so these win (the broker takes the last of a key).
    configs.push_back("sasl.plain.users=" + users + "broker:" + password);
    const std::string jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"broker\" password=\"" +
                             password + "\";";
    configs.push_back("sasl.mechanism.inter.broker.protocol=PLAIN");
    configs.push_back("listener.name.replication.plain.sasl.jaas.config=" + jaas);
    std::ofstream out(dir + "/broker-client.properties", std::ios::trunc);
    out << "# The brokers' own credentials (gregor cluster up --sasl-inter-broker), for tools on the REPLICATION listener.\n"
        << "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=" << jaas << "\n";
    if (!out) {
      std::cerr << "gregor cluster: cannot write " << dir << "/broker-client.properties\n";
      return 1;
    }
  }

  const std::string exe = self_executable();
  std::vector<Child> children;
  if (zookeeper_connect.empty()) {
    zookeeper_connect = host + ":" + std::to_string(port_base + 100);
    children.push_back({"zk", {exe, "zk", "--id", "1", "--listen", zookeeper_connect, "--data-dir", dir + "/zk"}});
    children.back().stop_last = true;
    // Every broker (and its session after a restart) connects from this host: zk's per-address
    // limit (maxClientCnxns, 60 by default) must leave room for all of them.
    if (brokers * 3 > 60) {
      children.back().argv.push_back("--config");
      children.back().argv.push_back("maxClientCnxns=" + std::to_string(brokers * 3));
    }
  }
  std::string bootstrap, replication_bootstrap;
  for (int i = 1; i <= brokers; i++) {
    std::string listen = host + ":" + std::to_string(port_base + i - 1);
    Child c{"broker " + std::to_string(i),
            {exe, "broker", "--id", std::to_string(i), "--listen", listen, "--zookeeper-connect", zookeeper_connect,
             "--data-dir", dir + "/broker-" + std::to_string(i)}};
    if (separate_listeners) {
      c.argv.erase(c.argv.begin() + 4, c.argv.begin() + 6);  // the listeners key says where instead
      const std::string replication = host + ":" + std::to_string(port_base + 200 + i - 1);
      const std::string control = host + ":" + std::to_string(port_base + 300 + i - 1);
      std::vector<std::string> listener_configs{
          "listeners=CLIENT://" + listen + ",REPLICATION://" + replication + (control_plane ? ",CONTROL://" + control : ""),
          std::string("listener.security.protocol.map=CLIENT:") + (sasl ? "SASL_PLAINTEXT" : "PLAINTEXT") +
              ",REPLICATION:" + (sasl_inter_broker ? "SASL_PLAINTEXT" : "PLAINTEXT") +
              (control_plane ? ",CONTROL:PLAINTEXT" : ""),
          "inter.broker.listener.name=REPLICATION"};
      if (control_plane) listener_configs.push_back("control.plane.listener.name=CONTROL");
      for (const std::string& kv : listener_configs) {
        c.argv.push_back("--config");
        c.argv.push_back(kv);
      }
      replication_bootstrap += (replication_bootstrap.empty() ? "" : ",") + replication;
    }
    for (const auto& kv : configs) {
      c.argv.push_back("--config");
      c.argv.push_back(kv);
    }
    children.push_back(std::move(c));
    bootstrap += (bootstrap.empty() ? "" : ",") + listen;
  }

  install_stop_handlers();
  for (auto& c : children) {
    if (!spawn(c)) {
      stop_all(children);
      return 1;
    }
  }
  std::cout << "bootstrap.servers=" << bootstrap << "\n" << std::flush;
  if (sasl_inter_broker)
    std::cout << "replication listeners (SASL_PLAINTEXT as user broker, --command-config " << dir
              << "/broker-client.properties): " << replication_bootstrap << "\n"
              << std::flush;
  else if (sasl)
    std::cout << "replication listeners (PLAINTEXT, brokers and admin): " << replication_bootstrap << "\n" << std::flush;

  // Wait until every broker is registered and a controller is elected, as a client sees it.
  bool ready = false;
  {
    // A SASL client listener needs credentials: readiness is asked on the REPLICATION listener.
    auto session = ClientSession::open(
        "cluster", sasl ? replication_bootstrap : bootstrap,
        [](ClientNode& n, const std::vector<NodeId>&) { n.net = std::make_unique<protocol::NetworkClient>(n.rt(), "gregor-cluster"); },
        broker_credentials);
    if (!session) {
      stop_all(children);
      return 2;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(kReadyTimeout.us);
    while (!ready && std::chrono::steady_clock::now() < deadline && !session->interrupted() && !g_stop_signal) {
      reap(children, false);
      if (running_count(children) != children.size()) break;
      auto md = session->metadata(std::vector<std::string>{}, Duration::seconds(2));
      ready = md && md->controller_id >= 0 && md->brokers.size() == static_cast<size_t>(brokers);
      if (!ready) session->run_until([] { return false; }, Duration::millis(100));
    }
    if (session->interrupted()) g_stop_signal = SIGINT;
  }
  install_stop_handlers();  // the session's signal_set is gone: ours again
  if (!ready) {
    if (!g_stop_signal) std::cout << "gregor cluster: the cluster did not become ready; stopping it\n";
    stop_all(children);
    return g_stop_signal ? 0 : 1;
  }
  std::cout << "cluster ready: " << brokers << " brokers, bootstrap " << bootstrap << ", data under " << dir << "\n"
            << std::flush;

  while (!g_stop_signal) {
    if (running_count(children) == 0) {
      std::cout << "gregor cluster: every process has exited\n";
      return 1;
    }
    reap(children, false);
    ::usleep(100000);  // a signal cuts it short (EINTR); a lost race costs at most 100 ms
  }
  std::cout << "stopping (" << (g_stop_signal == SIGINT ? "SIGINT" : "SIGTERM") << ")\n" << std::flush;
  stop_all(children);
  return 0;
}

}  // namespace gregor::app
