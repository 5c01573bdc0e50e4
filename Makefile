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
PACKAGES := pkgconf libcairo2-dev libpng-dev libssl-dev libchipmunk-dev libdeflate-dev zlib1g-dev pngcheck

.PHONY: all deps build demo render validate plugins test test-plugin fuzz bench bench-quick clean help

all: build

help:
	@echo "make demo            install packages, build, render $(JOB), print where the frames are"
	@echo "make test            run the test suite (Swift Testing)"
	@echo "make render JOB=F    render a job file (ARGS='-j 2 --force' for more options)"
	@echo "make validate JOB=F  check a job file without rendering"
	@echo "make plugins         list the installed effect plugins and their parameters"
	@echo "make fuzz            1,000 mutated job files through the binary (exit codes, no crash, output untouched)"
	@echo "make bench           release build, then RenderFarm vs hand-written C on the reference jobs (one table)"
	@echo "make bench-quick     the same in a short mode (CI runs it so the benchmark cannot rot)"
	@echo "make deps            install the Debian packages: $(PACKAGES)"
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

test: deps $(TEST_PLUGIN)
	$(SWIFT) build --build-tests
	RENDERFARM_TEST_PLUGIN_DIR=$(CURDIR)/$(TEST_PLUGIN_DIR) $(SWIFT) test --skip-build

# 1,000 mutated job files through the real binary (make test runs 300 of them).
fuzz: deps $(TEST_PLUGIN)
	$(SWIFT) build --build-tests
	RENDERFARM_FUZZ_CASES=1000 $(SWIFT) test --skip-build --filter FuzzTests

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
