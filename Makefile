# The two set-up commands README.md gives, for a fresh Debian 12 machine (as root or with sudo):
#   make demo   installs what is missing, builds, opens the leader-failover dashboard (or prints the run)
#   make test   the same, then every test (ctest), ending with ctest's summary
#
# Build: Release with assertions on (GREGOR_ASSERT is always on; NDEBUG is never defined), -j2, the
# layers at -O3 with profile-guided optimization (below).

BUILD_DIR ?= build
JOBS ?= 2
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Debian 12 packages: build (compiler, CMake, Boost, SQLite, Dear ImGui, GLFW, Catch2, yaml-cpp, stb),
# headless GUI tests (Xvfb, Mesa) and the stock Kafka clients the real-socket tests drive (kcat, kafka-python, Sarama
# built with Debian's Go; kafkajs comes from npm with the machine's node).
DEB_PACKAGES := g++ cmake make pkg-config libboost-dev libboost-program-options-dev libsqlite3-dev sqlite3 \
  libimgui-dev libglfw3-dev libgl-dev catch2 libyaml-cpp-dev libstb-dev xvfb xauth libgl1-mesa-dri \
  kcat iperf3 python3-kazoo zookeeper default-jre-headless iproute2 libmimalloc-dev \
  zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev python3-kafka golang-go golang-github-shopify-sarama-dev libssl-dev

# kafkajs for the real-socket tests, from the npm registry into tests/clients/node_modules (git-ignored),
# pinned by tests/clients/package-lock.json; skipped when already there. node and npm are the machine's.
KAFKAJS := tests/clients/node_modules/kafkajs/package.json

.PHONY: all deps build test demo clean clients pgo-retrain

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# Profile-guided optimization (PGO=1, the default; cmake/layers.cmake): the first build of a build
# folder compiles the layers instrumented, runs the simulator's workloads with them
# (cmake/pgo-train.sh), then compiles them again with the counts: the simulator spends about 1.2
# times less CPU (docs/simulator.md, thirteenth round). The counts check the code they were taken
# from, so an edit to a source of the product (not of tests/) trains again, which compiles the
# layers twice: while editing, PGO=0 builds once, without counts. `make pgo-retrain` trains again.
PGO ?= 1
PGO_TRAINED := $(BUILD_DIR)/pgo/trained
# The product's sources and build files (tracked ones, in a git checkout).
PGO_INPUTS := $(wildcard $(shell git ls-files -- engine sim trace net gui app tools cmake CMakeLists.txt 2>/dev/null \
                || find engine sim trace net gui app tools cmake CMakeLists.txt -type f))

ifeq ($(PGO),1)
build: deps $(PGO_TRAINED)
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DGREGOR_PGO=use
	cmake --build $(BUILD_DIR) -j$(JOBS)
else
build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DGREGOR_PGO=off
	cmake --build $(BUILD_DIR) -j$(JOBS)
endif

$(PGO_TRAINED): $(PGO_INPUTS) | deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DGREGOR_PGO=generate
	cmake --build $(BUILD_DIR) -j$(JOBS) --target gregor
	cmake/pgo-train.sh $(BUILD_DIR)
	touch $@

pgo-retrain:
	rm -f $(PGO_TRAINED)
	$(MAKE) build

clients: $(KAFKAJS)

$(KAFKAJS): tests/clients/package.json tests/clients/package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: the kafkajs test will fail until node and npm are installed"; exit 0; }; \
	  cd tests/clients && npm ci --no-audit --no-fund && touch node_modules/kafkajs/package.json

test: build clients
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)

# The dashboard on the leader-failover story when there is a display and its window opens;
# otherwise (CI, ssh) the same story's timeline and verdicts in the terminal.
demo: build
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] && ./$(BUILD_DIR)/gregor gui scenarios/leader-failover.yaml; then :; else \
	  if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then echo "(the dashboard's window did not open: the run in the terminal instead)"; \
	  else echo "(no display: the leader-failover run in the terminal; with a display, make demo opens the dashboard)"; fi; \
	  echo "./$(BUILD_DIR)/gregor run scenarios/leader-failover.yaml"; \
	  ./$(BUILD_DIR)/gregor run scenarios/leader-failover.yaml; \
	fi

clean:
	rm -rf $(BUILD_DIR)
