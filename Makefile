# RenderFarm: `make demo` renders the default job, `make test` runs the test suite.
# Both install missing Debian packages first (`make deps`, via apt-get when run as root).

SWIFT       ?= swift
CONFIG      ?= debug
BUILD_DIR   := .build/$(CONFIG)
RENDERFARM  := $(BUILD_DIR)/renderfarm
JOB         ?= jobs/live-hearts.json
ARGS        ?=

# The fault-injecting test plugin, built with the C compiler (never installed with the real ones).
TEST_PLUGIN_DIR := .build/test-plugins
TEST_PLUGIN     := $(TEST_PLUGIN_DIR)/librenderfarm-test-faults.so

# Debian packages the build and the tests need.
PACKAGES := pkgconf libcairo2-dev libpng-dev libssl-dev libchipmunk-dev libdeflate-dev zlib1g-dev pngcheck librlottie-dev
# What the hand-off to video and the CI render targets need (the tests run ffmpeg too).
HANDOFF_PACKAGES := ffmpeg time
# The Slurm integration test: a one-node cluster on loopback (DESIGN.md §8).
SLURM_PACKAGES := slurm-wlm munge
SLURM_CLUSTER  := Tests/Slurm/local-cluster.sh

.PHONY: all help deps deps-handoff slurm-deps build demo render validate plugins renders test test-plugin fuzz \
        ci-render update-references bench bench-quick bench-video slurm-test clean

all: build

help:
	@echo "make demo            install packages, build, render $(JOB), print where the frames are"
	@echo "make test            run the test suite (Swift Testing)"
	@echo "make slurm-test      install Slurm, start a local cluster, run the Slurm integration tests, stop it (root)"
	@echo "make render JOB=F    render a job file (ARGS='-j 2 --force' for more options)"
	@echo "make validate JOB=F  check a job file without rendering"
	@echo "make plugins         list the installed effect plugins and their parameters"
	@echo "make fuzz            1,000 mutated job files through the binary (exit codes, no crash, output untouched)"
	@echo "make bench           release build, then RenderFarm vs hand-written C on the reference jobs (one table)"
	@echo "make bench-quick     the same in a short mode (CI runs it so the benchmark cannot rot)"
	@echo "make deps            install the Debian packages: $(PACKAGES)"
	@echo "make renders         render every job in jobs/ (ARGS='--scale 0.5' for a quick look)"
	@echo "make ci-render       reduced-scale renders of jobs/: complete, deterministic, equal to Tests/References"
	@echo "make update-references  regenerate Tests/References (review with git diff before committing)"
	@echo "make bench-video     release build: render --video vs PNGs + encode, and peak memory"
	@echo "make clean           remove build products and rendered output"

deps:
	@missing=""; for p in $(PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then \
	        echo "installing:$$missing"; \
	        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	    else \
	        echo "missing packages:$$missing"; echo "run: sudo apt-get install -y$$missing"; exit 1; \
	    fi; \
	fi

build: deps
	$(SWIFT) build -c $(CONFIG)

demo: build
	$(RENDERFARM) render $(JOB) $(ARGS)
	@echo
	@echo "Frames and manifest.json are in the folder printed above; encode them with the manifest's ffmpeg command."

render: build
	$(RENDERFARM) render $(JOB) $(ARGS)

validate: build
	$(RENDERFARM) validate $(JOB)

plugins: build
	$(RENDERFARM) plugins

test-plugin: $(TEST_PLUGIN)

$(TEST_PLUGIN): Tests/Fixtures/test_plugin.c Sources/RenderFarmPluginABI/include/renderfarm_plugin.h
	@mkdir -p $(TEST_PLUGIN_DIR)
	$(CC) -O2 -shared -fPIC -Wall -Werror -o $@ $< -ISources/RenderFarmPluginABI/include \
	    $$(pkg-config --cflags --libs cairo) -lm

deps-handoff:
	@$(MAKE) --no-print-directory deps PACKAGES="$(HANDOFF_PACKAGES)"

renders: build
	$(RENDERFARM) render jobs/ $(ARGS)

ci-render: build deps-handoff
	bash .ci/render-check.sh check

update-references: build deps-handoff
	bash .ci/render-check.sh update

bench-video: deps deps-handoff
	$(SWIFT) build -c release
	bash .ci/bench-video.sh .build/release/renderfarm

test: deps deps-handoff $(TEST_PLUGIN)
	$(SWIFT) build --build-tests
	RENDERFARM_TEST_PLUGIN_DIR=$(CURDIR)/$(TEST_PLUGIN_DIR) $(SWIFT) test --skip-build

# 1,000 mutated job files through the real binary (make test runs 300 of them).
fuzz: deps $(TEST_PLUGIN)
	$(SWIFT) build --build-tests
	RENDERFARM_FUZZ_CASES=1000 $(SWIFT) test --skip-build --filter FuzzTests

slurm-deps:
	@$(MAKE) --no-print-directory deps PACKAGES="$(SLURM_PACKAGES)"

# Starts the cluster, runs the Slurm suite against it, and stops the cluster even when a test fails.
slurm-test: deps slurm-deps $(TEST_PLUGIN)
	$(SWIFT) build --build-tests
	@dir=$$($(SLURM_CLUSTER) start) || exit 1; \
	trap '$(SLURM_CLUSTER) stop "$$dir"; echo "local Slurm cluster stopped"' EXIT; \
	trap 'exit 130' INT TERM; \
	echo "local Slurm cluster running, state in $$dir"; \
	RENDERFARM_SLURM=1 SLURM_CONF=$$dir/slurm.conf RENDERFARM_TEST_PLUGIN_DIR=$(CURDIR)/$(TEST_PLUGIN_DIR) \
	    $(SWIFT) test --skip-build --filter SlurmIntegrationTests

# The benchmark (README "Performance"): release builds of renderfarm, the plugins, renderfarm-bench
# and the C programs it compares with. BENCH_ARGS='--rounds 5' for more rounds.
BENCH_ARGS ?=

bench: deps
	$(SWIFT) build -c release
	.build/release/renderfarm-bench $(BENCH_ARGS)

bench-quick: deps
	$(SWIFT) build -c release
	.build/release/renderfarm-bench --quick

clean:
	rm -rf .build jobs/out
