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
# A rectangle of one colour, or of the time the host asked for: the layer composition tests.
PROBE_PLUGIN    := $(TEST_PLUGIN_DIR)/librenderfarm-test-probe.so
# In a folder of its own: the test copies it beside the asset it reads (rf_plugin.plugin_dir).
ASSET_PLUGIN    := $(TEST_PLUGIN_DIR)/asset/librenderfarm-test-asset.so
SOUND_PLUGIN    := $(TEST_PLUGIN_DIR)/sound/librenderfarm-test-sound.so

# The text plugin: Pango with HarfBuzz, and the only fonts it draws with besides a job's own (EffectKit article
# TextEffect, "Fonts"; plugins/text/PangoText/FontLibrary.swift lists the same font packages).
FONT_PACKAGES := libpango1.0-dev fonts-noto-core fonts-noto-color-emoji fonts-noto-cjk
# Debian packages the build and the tests need.
PACKAGES := pkgconf libcmark-gfm-dev libcmark-gfm-extensions-dev libcairo2-dev libpng-dev libturbojpeg0-dev librsvg2-dev libwebp-dev nettle-dev libssl-dev libchipmunk-dev libdeflate-dev \
            zlib1g-dev pngcheck librlottie-dev libmicrohttpd-dev libseccomp-dev libavformat-dev libavcodec-dev \
            libswscale-dev libavutil-dev $(FONT_PACKAGES)
# What the hand-off to video and the CI render targets need (the tests run ffmpeg too, and groff on the man pages).
HANDOFF_PACKAGES := ffmpeg time groff-base
# The Slurm integration test: a one-node cluster on loopback (RenderFarm article RunningOnACluster, "Slurm").
SLURM_PACKAGES := slurm-wlm munge
SLURM_CLUSTER  := Tests/Slurm/local-cluster.sh

.PHONY: otio-venv all help deps deps-handoff slurm-deps build demo render validate plugins renders test test-plugin fuzz \
        docs-convert ci-render update-references bench bench-quick bench-video bench-peers slurm-test sanitize clean fuzz-incremental \
        install uninstall plugin-check sdk-test deps-install test-swift-plugins docs studio studio-deps \
        studio-test studio-unit openjd-venv openjd-test text-check sandbox-attack image image-deps k8s-test ci-deps

all: build

help:
	@echo "make demo            install packages, build, render $(JOB), print where the frames are"
	@echo "make test            run the test suite (Swift Testing)"
	@echo "make otio-venv       OpenTimelineIO in .build/otio-venv for the round-trip test (CI runs it)"
	@echo "make slurm-test      install Slurm, start a local cluster, run the Slurm integration tests, stop it (root)"
	@echo "make openjd-test     openjd-cli and kubernetes-validate from PyPI in $(OPENJD_VENV); bundles run by openjd run"
	@echo "                     equal local renders, Kubernetes Jobs valid against the schemas (CI runs it)"
	@echo "make image           OCI image $(IMAGE_NAME):VERSION from mmdebstrap + make install, no registry pull:"
	@echo "                     into the podman store and $(IMAGE_DIR)/renderfarm-VERSION.oci.tar (root)"
	@echo "make k8s-test        run the Jobs of submit --kubernetes pod by pod with podman in that image (as written:"
	@echo "                     user, read-only, no capability); merged frames equal a local render's (root)"
	@echo "make sanitize        AddressSanitizer and ThreadSanitizer builds running the render, resume, shard, video,"
	@echo "                     studio and isolate tests; any sanitizer report fails (reports in $(SANITIZE_LOGS))"
	@echo "make sandbox-attack  every hostile fixture plugin under render --isolate --sandbox require, as root and as"
	@echo "                     nobody, in namespaces of their own: each denied and named, the host unharmed (root)"
	@echo "make render JOB=F    render a job file (ARGS='-j 2 --force' for more options)"
	@echo "make validate JOB=F  check a job file without rendering"
	@echo "make plugins         list the installed effect plugins and their parameters"
	@echo "make fuzz            1,000 mutated job and Lottie files through the command line, in process (exit codes, no crash, output untouched)"
	@echo "make fuzz-incremental 2,000 random edits of generated jobs: every re-render equals a fresh render, with the"
	@echo "                     edit's reason; and the \"same as\" claims (-j, shards, --isolate, --video) on 100 jobs;"
	@echo "                     RENDERFARM_INCREMENTAL_SEED=S [RENDERFARM_INCREMENTAL_EDITS=N] replays a failure"
	@echo "make text-check      the text effect's shrink-to-fit on 1,000 strings of every script (Pango's layout, pixels),"
	@echo "                     and 600 jobs drawn at once by four copies of the text plugin in one process"
	@echo "make bench           release build, then RenderFarm vs hand-written C on the reference jobs (one table)"
	@echo "make bench-quick     the same in a short mode (CI runs it so the benchmark cannot rot); it and bench"
	@echo "                     fail when RenderFarm's frames are not byte-identical to the C floor's"
	@echo "make deps            install the Debian packages: $(PACKAGES)"
	@echo "make ci-deps         install the packages of every target at once (CI's first step)"
	@echo "make renders         render every job in jobs/ (ARGS='--scale 0.5' for a quick look)"
	@echo "make ci-render       reduced-scale renders of jobs/: complete, deterministic, equal to Tests/References"
	@echo "make update-references  regenerate Tests/References (review with git diff before committing)"
	@echo "make bench-video     release build: render --video vs the encoder alone vs PNGs + encode, and peak memory"
	@echo "make bench-peers     release build: RenderFarm against a pycairo pool, a skia-python pool and Manim, same hearts"
	@echo "make install         release build into PREFIX (default /usr/local; DESTDIR for staging): binary, plugins,"
	@echo "                     Swift runtime, plugin header, renderfarm-plugin.pc, EffectKit as a Swift package, man"
	@echo "                     pages, shell completions, the docs as static web pages, the C example plugins"
	@echo "make uninstall       remove what make install put into PREFIX"
	@echo "make plugin-check    renderfarm plugin check on every built-in plugin (as root, also as nobody)"
	@echo "make sdk-test        the plugin SDK end to end: install, scaffold C + Swift plugins, build, check, render"
	@echo "make docs            build the DocC catalogs (RenderFarm, EffectKit, Motion) with docc; broken links fail"
	@echo "make studio JOB=F    renderfarm studio on a job: author it live and watch renders in the browser"
	@echo "make studio-unit     the studio page's JavaScript syntax-checked, its state logic unit-tested in Node"
	@echo "make studio-test     studio-unit, then the studio in headless Chromium (screenshots)"
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

# The worker sandbox's hostile fixture (Tests/Fixtures/hostile_plugin.c), one library per attack,
# in a folder of their own (article UntrustedPlugins).
HOSTILE_ATTACKS := read write connect exec fork memory reply netdev freeze immutable chmod metadata utime sigsys \
                   pdeathsig rlimit spin ptrace mount
HOSTILE_PLUGINS := $(foreach a,$(HOSTILE_ATTACKS),$(TEST_PLUGIN_DIR)/hostile/librenderfarm-test-hostile-$(a).so)
$(TEST_PLUGIN_DIR)/hostile/librenderfarm-test-hostile-%.so: Tests/Fixtures/hostile_plugin.c \
        Sources/RenderFarmPluginABI/include/renderfarm_plugin.h
	@mkdir -p $(TEST_PLUGIN_DIR)/hostile
	$(CC) -O2 -shared -fPIC -Wall -Werror -DATTACK_$$(echo $* | tr a-z A-Z) -o $@ $< \
	    -ISources/RenderFarmPluginABI/include $$(pkg-config --cflags --libs cairo)

# The standing attack suite (RenderFarm article UntrustedPlugins, "Tests"): every hostile fixture plugin rendered
# under render --isolate --sandbox require, as root and as nobody (setpriv), each in a network and mount namespace of
# its own made by unshare (the "host" an attack could harm), plus the worker sandbox tests. Root only.
ATTACK_PACKAGES := util-linux iproute2 e2fsprogs
ATTACK_TESTS    := SandboxAttackTests|SandboxHangTests|SandboxAttackControlTests|RenderFarmCLITests.SandboxTests
sandbox-attack: deps $(HOSTILE_PLUGINS)
	@[ "$$(id -u)" = 0 ] || { echo "make sandbox-attack runs as root: it makes namespaces and mounts"; exit 1; }
	@$(MAKE) --no-print-directory deps PACKAGES="$(ATTACK_PACKAGES)"
	$(SWIFT) build --build-tests
	RENDERFARM_SANDBOX_ATTACK=1 RENDERFARM_TEST_PLUGIN_DIR=$(CURDIR)/$(TEST_PLUGIN_DIR) \
	    $(SWIFT) test --skip-build --filter '$(ATTACK_TESTS)'

# Two Swift plugins from a package outside RenderFarm's (Tests/Fixtures/SwiftPlugins), each with its
# own copy of EffectKit, for the test that loads them with every built-in plugin into one process.
SWIFT_FIXTURES := Tests/Fixtures/SwiftPlugins
test-swift-plugins:
	$(SWIFT) build --package-path $(SWIFT_FIXTURES) --scratch-path .build/test-swift-plugins
	@mkdir -p $(TEST_PLUGIN_DIR)/swift
	cp .build/test-swift-plugins/debug/librenderfarm-fixture-*.so $(TEST_PLUGIN_DIR)/swift/

$(PROBE_PLUGIN): Tests/Fixtures/probe_plugin.c Sources/RenderFarmPluginABI/include/renderfarm_plugin.h
	@mkdir -p $(TEST_PLUGIN_DIR)
	$(CC) -O2 -shared -fPIC -Wall -Werror -o $@ $< -ISources/RenderFarmPluginABI/include \
	    $$(pkg-config --cflags --libs cairo) -lm

$(ASSET_PLUGIN): Tests/Fixtures/asset_plugin.c Sources/RenderFarmPluginABI/include/renderfarm_plugin.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c99 -shared -fPIC -Wall -Wextra -Werror -o $@ $< -ISources/RenderFarmPluginABI/include \
	    $$(pkg-config --cflags --libs cairo)

$(SOUND_PLUGIN): Tests/Fixtures/sound_plugin.c Sources/RenderFarmPluginABI/include/renderfarm_plugin.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c99 -shared -fPIC -Wall -Wextra -Werror -o $@ $< -ISources/RenderFarmPluginABI/include \
	    $$(pkg-config --cflags --libs cairo) -lm

$(TEST_PLUGIN): Tests/Fixtures/test_plugin.c Sources/RenderFarmPluginABI/include/renderfarm_plugin.h
	@mkdir -p $(TEST_PLUGIN_DIR)
	$(CC) -O2 -shared -fPIC -Wall -Werror -o $@ $< -ISources/RenderFarmPluginABI/include \
	    $$(pkg-config --cflags --libs cairo) -lm

# One plugin mistake each (Tests/Fixtures/defect_plugin.c), and covered-keys, the passing twin of
# key-ignores-param, in a folder of their own: the bad default is refused by any catalog that searches it.
DEFECTS        := unsupported-trace noisy ignores-scale wipes-backdrop bad-default nan-bound infinite-bounds bad-names \
                  bad-events key-ignores-param covered-keys random trace-far crash-at-3 abort-at-3 hang-at-3 error-at-3 leak \
                  param-files
DEFECT_PLUGINS := $(DEFECTS:%=$(TEST_PLUGIN_DIR)/defects/librenderfarm-defect-%.so)
$(TEST_PLUGIN_DIR)/defects/librenderfarm-defect-%.so: Tests/Fixtures/defect_plugin.c \
        Sources/RenderFarmPluginABI/include/renderfarm_plugin.h
	@mkdir -p $(TEST_PLUGIN_DIR)/defects
	$(CC) -O2 -shared -fPIC -Wall -Werror -o $@ $< -ISources/RenderFarmPluginABI/include \
	    -DDEFECT_$$(echo $* | tr a-z- A-Z_) $$(pkg-config --cflags --libs cairo)

# The leak fixture built with AddressSanitizer, for the test that runs plugin check under LeakSanitizer with the
# compiler's libasan preloaded (EffectKit article WritingAPlugin, "Leaks").
ASAN_DEFECT := $(TEST_PLUGIN_DIR)/defects-asan/librenderfarm-defect-leak.so
$(ASAN_DEFECT): Tests/Fixtures/defect_plugin.c Sources/RenderFarmPluginABI/include/renderfarm_plugin.h
	@mkdir -p $(dir $@)
	$(CC) -g -O1 -fsanitize=address -shared -fPIC -Wall -Werror -o $@ $< -ISources/RenderFarmPluginABI/include \
	    -DDEFECT_LEAK $$(pkg-config --cflags --libs cairo)

deps-handoff:
	@$(MAKE) --no-print-directory deps PACKAGES="$(HANDOFF_PACKAGES)"

# Every package of every target's list in one apt-get, CI's first step: its later steps run in two lanes, and
# two apt-get runs at once fail on dpkg's lock. The lists are this Makefile's variables named *PACKAGES, so a
# target's new list is in it without being named here.
PACKAGE_LISTS = $(filter-out ALL_PACKAGES,$(filter %PACKAGES,$(.VARIABLES)))
ALL_PACKAGES  = $(sort $(foreach list,$(PACKAGE_LISTS),$(if $(filter file,$(origin $(list))),$($(list)))))
ci-deps:
	@$(MAKE) --no-print-directory deps PACKAGES="$(ALL_PACKAGES)"

renders: build
	$(RENDERFARM) render jobs/ $(ARGS)

ci-render: build deps-handoff
	bash .ci/render-check.sh check

update-references: build deps-handoff
	bash .ci/render-check.sh update

bench-video: deps deps-handoff
	$(SWIFT) build -c release
	$(BENCH_ENV) bash .ci/bench-video.sh .build/release/renderfarm

# RenderFarm against a pycairo pool, a skia-python pool and a Manim scene drawing the same hearts
# (.ci/bench-peers.py): Debian's python3-cairo, skia-python and manim from PyPI in $(PEERS_VENV) (Manim draws
# with that python3-cairo; PyPI has no wheel of its ManimPango for Debian's Python, pip builds it with gcc,
# python3-dev and libpango1.0-dev). PEERS_ARGS: first frame, frames and rounds.
PEERS_VENV := .build/peers-venv
PEERS_PACKAGES := python3-cairo python3-venv python3-dev gcc
PEERS_ARGS ?= 420 120 3
bench-peers: deps deps-handoff
	@$(MAKE) --no-print-directory deps PACKAGES="$(PEERS_PACKAGES)"
	$(SWIFT) build -c release
	@[ -x $(PEERS_VENV)/bin/python3 ] || /usr/bin/python3 -m venv --system-site-packages $(PEERS_VENV)
	$(PEERS_VENV)/bin/python3 -m pip install -q skia-python manim
	$(BENCH_ENV) $(PEERS_VENV)/bin/python3 .ci/bench-peers.py .build/release/renderfarm \
	    Sources/RenderFarmBench/Jobs/hd720-transparent.json $(PEERS_ARGS)

# OpenTimelineIO for the round-trip test, in a virtual environment of its own (CI makes it; the test
# runs whenever it exists, or when python3 itself has the package).
OTIO_VENV := .build/otio-venv

# After DEFECT_PLUGINS and HOSTILE_PLUGINS: make expands a rule's prerequisites where it reads the rule.
test-plugin: $(TEST_PLUGIN) $(PROBE_PLUGIN) $(ASSET_PLUGIN) $(SOUND_PLUGIN) test-swift-plugins $(DEFECT_PLUGINS) $(HOSTILE_PLUGINS) $(ASAN_DEFECT)

test: deps deps-handoff test-plugin
	$(SWIFT) build --build-tests
	env $(TEST_ENV) RENDERFARM_TEST_PLUGIN_DIR=$(CURDIR)/$(TEST_PLUGIN_DIR) \
	    $$([ -x $(OTIO_VENV)/bin/python3 ] && echo RENDERFARM_OTIO_PYTHON=$(CURDIR)/$(OTIO_VENV)/bin/python3) \
	    bash -o pipefail -c '"$$@" 2>&1 | tee $(TEST_LOG)' test $(SWIFT) test --skip-build
	@# No silent skip: every skip says why, and in CI only the checks of other targets may skip (README "Tests").
	@python3 .ci/check-skips.py $(TEST_LOG)
TEST_LOG := .build/test-output.log

# The folder the tests' temporary files go to (TMPDIR): a tmpfs when /dev/shm is one that may hold executables
# (tests load plugins they copy there), else the system's. The suites create and delete tens of thousands of files,
# and on an ext4 without a journal (CI's machines) every new inode is first checked against the recently deleted
# ones: 26 s of the kernel's CPU time in make test's 3 minutes, and 16 s of its wall time (README "Tests").
TEST_TMPDIR = $(call tmpfs_folder,renderfarm-tests)
# /dev/shm/NAME when /dev/shm is a tmpfs that may hold executables and NAME can be made there, else nothing.
tmpfs_folder = $(shell d=/dev/shm/$(1); [ "$$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && \
                 ! findmnt -no OPTIONS /dev/shm | grep -qw noexec && mkdir -p -m 1777 $$d 2>/dev/null && \
                 [ -w $$d ] && echo $$d)
# How many test cases Swift Testing runs at once: four per core, where its default is two. Most cases wait on a
# child process (renderfarm, ffmpeg) or a socket, and at two per core a fifth of the cores' time was idle: 177 s
# -> 155 s of make test's tests on 2 cores, the same at eight per core (again on 7 December, with 902 tests: 189.3 s
# at four, 189.8 and 204.5 s at eight).
TEST_WIDTH  = $(shell echo $$(( $$(nproc) * 4 )))
TEST_ENV    = SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR))

otio-venv:
	@[ -x $(OTIO_VENV)/bin/python3 ] || python3 -m venv $(OTIO_VENV)
	$(OTIO_VENV)/bin/python3 -m pip install -q opentimelineio
	$(OTIO_VENV)/bin/python3 -c 'import opentimelineio as otio; print("opentimelineio", otio.__version__, "in $(OTIO_VENV)")'

# The text effect's shrink-to-fit on 1,000 generated strings, Pango's layout and the pixels (make test runs 200),
# and four copies of the text plugin in one process drawing 600 jobs at once, each frame as it draws alone (make
# test: 32). Both take the process's one Pango lock, so in one process they ran one after the other (43 s and 57 s
# alone, 104 s together on 2 cores): each runs in a process of its own, at the same time. They run the test bundle
# as `swift test` does, because `swift test` holds .build's lock until its tests end; each one's output is printed
# when both have ended.
TEXT_CHECKS  := TextLayoutTests/shrinkNeverOverflows TextInputTests/copiesDrawAtOnce
TEST_BUNDLE  := .build/debug/RenderFarmPackageTests.xctest --testing-library swift-testing
text-check: deps
	$(SWIFT) build --build-tests
	@echo "text-check: $(TEXT_CHECKS), each in a test process of its own, at once"
	@pids=""; for check in $(TEXT_CHECKS); do \
	    $(TEST_ENV) RENDERFARM_TEXT_CASES=1000 RENDERFARM_TEXT_COPIES_JOBS=600 $(TEST_BUNDLE) --filter "$$check" \
	        > .build/text-check-$${check%%/*}.log 2>&1 & pids="$$pids $$!"; \
	done; \
	failed=""; for pid in $$pids; do wait $$pid || failed=1; done; \
	for check in $(TEXT_CHECKS); do cat .build/text-check-$${check%%/*}.log; done; \
	[ -z "$$failed" ] || { echo "text-check: a check failed (above)"; exit 1; }

# 1,000 mutated job files and 1,000 mutated Lottie files through the command line in process (make test runs 300
# and 66).
fuzz: deps $(TEST_PLUGIN)
	$(SWIFT) build --build-tests
	$(TEST_ENV) RENDERFARM_FUZZ_CASES=1000 RENDERFARM_LOTTIE_FUZZ_CASES=1000 $(SWIFT) test --skip-build --filter FuzzTests

# The differential harness (issue 43): jobs generated over every plugin and host field, edited 2,000 times one
# edit after another; after each edit `render` into the earlier folder must equal a fresh render frame by frame
# and give the edit as its reason (make test runs 40 edits). The "same as" claims run on 100 generated jobs
# (make test: 12). A failure prints its seed: RENDERFARM_INCREMENTAL_SEED=S RENDERFARM_INCREMENTAL_EDITS=N make
# fuzz-incremental replays it (RENDERFARM_SAME_AS_SEED=S for a claim); RENDERFARM_INCREMENTAL_REPORT=FILE writes
# the findings as Markdown.
INCREMENTAL_EDITS = $(or $(RENDERFARM_INCREMENTAL_EDITS),$(if $(RENDERFARM_INCREMENTAL_SEED),,2000))
SAME_AS_JOBS      = $(or $(RENDERFARM_SAME_AS_JOBS),$(if $(RENDERFARM_SAME_AS_SEED),,100))
# A replay runs only the suite it replays.
HARNESS_SUITES    = $(if $(RENDERFARM_INCREMENTAL_SEED),IncrementalHarnessTests,$(if $(RENDERFARM_SAME_AS_SEED),\
                    SameAsHarnessTests,IncrementalHarnessTests|SameAsHarnessTests))

fuzz-incremental: deps deps-handoff
	$(SWIFT) build --build-tests
	$(TEST_ENV) RENDERFARM_INCREMENTAL_EDITS=$(INCREMENTAL_EDITS) RENDERFARM_SAME_AS_JOBS=$(SAME_AS_JOBS) \
	    $(SWIFT) test --skip-build --filter '$(strip $(HARNESS_SUITES))'

# AddressSanitizer and ThreadSanitizer builds (README "Sanitizers"): each --sanitize build, with the
# executable's symbols exported so that plugins (which call into the sanitizer runtime linked into
# renderfarm) load, runs SANITIZE_TESTS; the tests launch the renderfarm binary of the same build. Reports of
# every process go to SANITIZE_LOGS/<tsan|asan>.<pid>; any report fails the target, printed in full.
# handle_segv=0: the tests crash the test plugin on purpose (crash containment, --isolate), and SIGSEGV must
# reach renderfarm's own fault report as it does without a sanitizer; a crash where none is expected still
# fails its test. SWIFT_BACKTRACE=enable=no: the runtime's crash backtracer copies the crashed process's raw
# stack, which ASan reports. detect_leaks=0: leaks are not checked (README "Sanitizers" says why).
SANITIZERS     := thread:tsan address:asan
# The render tests are the example jobs' complete renders, once at -j 2 and a quarter of their size (RENDERFARM_SANITIZE:
# the reruns that prove -j 1, -j 2 and shards give the same bytes are make test's).
SANITIZE_TESTS ?= ExampleJobsTests/rendersCompletely ResumeTests ShardTests VideoTests FrameKeyTests FailureTests \
                  OutputTrustTests StuckFrameTests FolderLockOrderTests RenderFarmStudioTests FootageTests VerifyTests \
                  FootageSoundTests LayerStyleTests MotionBlurTests FastPNGTests StaticLayersTests LockedTests \
                  IsolatedLaneTests
# Peak RSS means nothing under a sanitizer (shadow memory; ASan keeps freed memory in quarantine, 256 MB).
SANITIZE_SKIP  ?= VideoTests/boundedMemory
SANITIZE_LOGS  := .build/sanitize-reports
# The sanitized builds compile only the test files SANITIZE_TESTS are in and the helpers they use (Package.swift says
# how; a clean TSan build took 124 s of wall and 238 s of CPU time instead of 191 s and 356 s with all of
# RenderFarmCLITests, idle machine, 7 December), with line tables for debug information, which still name every
# frame's file and line in a report (a clean ASan build: 209 s and 376 s instead of 219 s and 392 s).
SANITIZE_SWIFT := RENDERFARM_SANITIZER_BUILD="$(strip $(SANITIZE_TESTS))" $(SWIFT)
SANITIZE_FLAGS := -Xlinker --export-dynamic -Xswiftc -gline-tables-only
space := $(subst ,, )
SANITIZE_FILTER = $(subst $(space),|,$(strip $(SANITIZE_TESTS)))

sanitize: deps deps-handoff $(TEST_PLUGIN) $(PROBE_PLUGIN)
	@rm -rf $(SANITIZE_LOGS) && mkdir -p $(SANITIZE_LOGS)
	@failed=""; for pair in $(SANITIZERS); do \
	    sanitizer=$${pair%%:*}; name=$${pair##*:}; start=$$(date +%s); \
	    $(SANITIZE_SWIFT) build --build-tests -c debug --sanitize=$$sanitizer --scratch-path .build/$$name \
	        $(SANITIZE_FLAGS) || exit 1; \
	    listed=$$($(SANITIZE_SWIFT) test --skip-build -c debug --scratch-path .build/$$name $(SANITIZE_FLAGS) \
	        --list-tests 2>/dev/null) || { echo "sanitize: the $$name build could not list its tests"; exit 1; }; \
	    for suite in $(SANITIZE_TESTS); do echo "$$listed" | grep -qE "(^|[.])$$suite" || { \
	        echo "sanitize: no test of $$suite in the sanitized build (its file, or a helper's, is missing from" \
	            "Package.swift's sanitized sources)"; exit 1; }; done; \
	    SWIFT_BACKTRACE=enable=no TSAN_OPTIONS="log_path=$(CURDIR)/$(SANITIZE_LOGS)/$$name halt_on_error=0 handle_segv=0" \
	    ASAN_OPTIONS="log_path=$(CURDIR)/$(SANITIZE_LOGS)/$$name handle_segv=0 detect_leaks=0" \
	    $(TEST_ENV) RENDERFARM_TEST_PLUGIN_DIR=$(CURDIR)/$(TEST_PLUGIN_DIR) RENDERFARM_SANITIZE=1 \
	        $(SANITIZE_SWIFT) test --skip-build -c debug --scratch-path .build/$$name $(SANITIZE_FLAGS) \
	        --filter '$(SANITIZE_FILTER)' \
	        $(if $(SANITIZE_SKIP),--skip '$(SANITIZE_SKIP)') \
	        || failed="$$failed $$name"; \
	    echo "sanitize: --sanitize=$$sanitizer build and tests took $$(( $$(date +%s) - start )) s"; \
	done; \
	reports=$$(find $(SANITIZE_LOGS) -type f -size +0c | sort); \
	for file in $$reports; do echo "==== $$file"; cat "$$file"; done; \
	count=$$(cat $$reports /dev/null | grep -c -E '(WARNING|ERROR): (Thread|Address|Leak)Sanitizer'); \
	echo "sanitize: $$count sanitizer reports in $$(echo $$reports | wc -w) processes" \
	    "$${failed:+(tests failed in:$$failed)}"; \
	[ -z "$$reports" ] && [ -z "$$failed" ]

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

# Open Job Description and Kubernetes (RenderFarm article RunningOnACluster): the reference runtime (openjd-cli)
# and the Kubernetes schema check (kubernetes-validate) from PyPI in a virtual environment of their own; the suite
# runs each bundle with `openjd run` and compares the frames with a local render.
OPENJD_VENV := .build/openjd-venv

openjd-venv:
	@[ -x $(OPENJD_VENV)/bin/python3 ] || python3 -m venv $(OPENJD_VENV)
	$(OPENJD_VENV)/bin/python3 -m pip install -q openjd-cli kubernetes-validate
	$(OPENJD_VENV)/bin/openjd --version

openjd-test: deps openjd-venv
	$(SWIFT) build --build-tests
	RENDERFARM_OPENJD_VENV=$(CURDIR)/$(OPENJD_VENV) $(SWIFT) test --skip-build --filter OpenJDIntegrationTests

# The container image (RenderFarm article RunningOnACluster, "The image"): a Debian root file system from
# mmdebstrap and this machine's apt sources (no registry pull), with `make install PREFIX=IMAGE_PREFIX` copied in
# and the Debian packages the installed binary and plugins link (ldd, dpkg -S) plus the text plugin's fonts; no
# compiler, user renderfarm (10001, as the pods of submit --kubernetes run), labelled with the version.
# .ci/image.sh builds it, imports it into podman's store as IMAGE_NAME:VERSION and :latest and writes
# IMAGE_DIR/renderfarm-VERSION.oci.tar;
# .ci/Containerfile builds the same contents with a registry's debian:bookworm-slim.
IMAGE_PACKAGES := mmdebstrap podman runc
IMAGE_NAME     ?= localhost/renderfarm
IMAGE_PREFIX   := /opt/renderfarm
IMAGE_CONFIG   ?= release
IMAGE_DIR      := .build/image
# Kubernetes for real without a cluster: .ci/k8s-run.py reads the Jobs submit writes (YAML) and runs each pod
# with podman, as written, then compares the merged folder with a local render.
K8S_PACKAGES   := python3-yaml
K8S_TEST_DIR   := .build/k8s-test
# Debian's python3, which python3-yaml is for (not a virtual environment's or pyenv's).
K8S_PYTHON     ?= /usr/bin/python3

image-deps:
	@$(MAKE) --no-print-directory deps PACKAGES="$(IMAGE_PACKAGES)"

image: deps image-deps
	@start=$$(date +%s); rm -rf $(IMAGE_DIR)/stage; mkdir -p $(IMAGE_DIR); \
	$(MAKE) --no-print-directory install PREFIX=$(IMAGE_PREFIX) DESTDIR=$(CURDIR)/$(IMAGE_DIR)/stage \
	    INSTALL_CONFIG=$(IMAGE_CONFIG) >$(IMAGE_DIR).install.log 2>&1 || { cat $(IMAGE_DIR).install.log; exit 1; }; \
	echo "image: make install PREFIX=$(IMAGE_PREFIX) took $$(( $$(date +%s) - start )) s"; \
	IMAGE_FONT_PACKAGES="$(filter fonts-%,$(FONT_PACKAGES))" \
	    bash .ci/image.sh $(IMAGE_DIR)/stage $(IMAGE_PREFIX) $(IMAGE_NAME) $(IMAGE_DIR) || exit 1; \
	echo "make image took $$(( $$(date +%s) - start )) s"

# The image of this version (make image when podman's store lacks it), submit and the local render by this build.
k8s-test: build image-deps
	@$(MAKE) --no-print-directory deps PACKAGES="$(K8S_PACKAGES)"
	@version=$$($(RENDERFARM) --version | awk '{print $$2}'); \
	podman image exists $(IMAGE_NAME):$$version || $(MAKE) --no-print-directory image || exit 1; \
	timeout 1200 $(K8S_PYTHON) .ci/k8s-run.py --renderfarm $(RENDERFARM) --image $(IMAGE_NAME):$$version \
	    --work $(CURDIR)/$(K8S_TEST_DIR)

# The benchmark (RenderFarm article Performance): release builds of renderfarm, the plugins, renderfarm-bench
# and the C programs it compares with. BENCH_ARGS='--rounds 5' for more rounds. Every program of every bench target
# (bench, bench-quick, bench-video, bench-peers) writes its frames into BENCH_TMPDIR, a tmpfs where there is one
# (BENCH_TMPDIR= for the system's TMPDIR): each round deletes the
# last program's frames, and on an ext4 without a journal (CI's machines) every file made in the next minute is
# first checked against each of those deleted inodes, a cost per file that grew to 1.4 ms (Performance, "Where
# frames are written").
BENCH_ARGS   ?=
BENCH_TMPDIR ?= $(call tmpfs_folder,renderfarm-bench)
BENCH_ENV     = $(if $(BENCH_TMPDIR),TMPDIR=$(BENCH_TMPDIR))

bench: deps deps-handoff
	$(SWIFT) build -c release
	$(BENCH_ENV) .build/release/renderfarm-bench $(BENCH_ARGS)

bench-quick: deps deps-handoff
	$(SWIFT) build -c release
	$(BENCH_ENV) .build/release/renderfarm-bench --quick

# The DocC catalogs Sources/RenderFarm/RenderFarm.docc, Sources/EffectKit/EffectKit.docc and Sources/Motion/Motion.docc, with the
# toolchain's docc over symbol graphs extracted from a build (DOCS_CONFIG); a broken link fails the build.
# EffectKit and the Motion module it re-exports are the SDK plugins build against (public); the engine's targets are no library product, so
# their API is `package` and RenderFarm's symbol graph is taken at that level.
DOCC        ?= $(dir $(realpath $(shell command -v $(SWIFT))))docc
DOCS_DIR    := .build/docs
DOCS_MODULES := RenderFarm EffectKit Motion

# DOCS_CONFIG picks the build whose modules the symbol graphs come from; DOCS_STATIC=1 transforms the output
# for static hosting (plain files any web server serves, each catalog under its module's name: make install).
DOCS_CONFIG ?= debug
DOCS_STATIC ?=
# DOCS_ACCESS: the lowest access level of RenderFarm's symbols on its pages. `make docs` shows its package
# types to the project's developers; `make install` shows users only the public surface (the articles and no
# host internals; EffectKit is public either way).
DOCS_ACCESS ?= package

docs: build
	@$(MAKE) --no-print-directory docs-convert

docs-convert:
	@modules=.build/$(shell uname -m)-unknown-linux-gnu/$(DOCS_CONFIG); \
	for module in $(DOCS_MODULES); do \
	    rm -rf $(DOCS_DIR)/$$module.symbols && mkdir -p $(DOCS_DIR)/$$module.symbols || exit 1; \
	    $(SWIFT) symbolgraph-extract -module-name $$module -target $(shell uname -m)-unknown-linux-gnu \
	        -I $$modules/Modules $$(for map in Sources/C*/module.modulemap $$modules/*.build/module.modulemap; do \
	            echo "-Xcc -fmodule-map-file=$(CURDIR)/$$map"; done) \
	        $$(pkg-config --cflags-only-I cairo libpng | sed 's/-I/-Xcc -I/g') \
	        -minimum-access-level $$([ $$module = RenderFarm ] && echo $(DOCS_ACCESS) || echo public) -output-dir $(DOCS_DIR)/$$module.symbols || exit 1; \
	    $(DOCC) convert Sources/$$module/$$module.docc --additional-symbol-graph-dir $(DOCS_DIR)/$$module.symbols \
	        --fallback-display-name $$module --fallback-bundle-identifier org.renderfarm.$$module \
	        $$([ -n "$(DOCS_STATIC)" ] && echo --transform-for-static-hosting --hosting-base-path docs/$$module) \
	        --output-path $(DOCS_DIR)/$$module.doccarchive --warnings-as-errors || exit 1; \
	    echo "docs: $(DOCS_DIR)/$$module.doccarchive"; \
	done

clean:
	rm -rf .build jobs/out

# ---- Installation and the plugin SDK (EffectKit article WritingAPlugin) ----
#
# Layout under PREFIX: bin/renderfarm; lib/renderfarm/plugins/*.so (found through the binary's real
# path, so a symlink to it elsewhere works); lib/renderfarm/swift/ the Swift runtime the binary and the
# plugins link (their RUNPATH points there, so the install does not depend on the toolchain's folder);
# include/renderfarm/renderfarm_plugin.h; lib/pkgconfig/renderfarm-plugin.pc; share/man/man1/renderfarm.1 and
# every topic of the manual (`renderfarm docs`): man5/renderfarm-job.5, man7/renderfarm-<topic>.7;
# share/doc/renderfarm/html/ the same topics as web pages without JavaScript;
# share/doc/renderfarm/examples/c/ the C example plugins (C_EXAMPLES, sources only);
# share/doc/renderfarm/docs/<Module>/ the DocC catalogs as static web pages (base path docs/<Module>: any web
# server of share/doc/renderfarm, and renderfarm studio at /docs/);
# bash, zsh and fish completions; share/renderfarm/swift/EffectKit, EffectKit as a self-contained Swift package
# (the sources of EffectKit and of the targets it depends on, and the manifest below) that Swift plugins build
# against without a RenderFarm checkout.
PREFIX          ?= /usr/local
DESTDIR         ?=
INSTALL_CONFIG  ?= release
INSTALL_PACKAGES := patchelf
BUILTIN_PLUGINS := floating-heart gradient parabolic-drop physics-bounce particles lottie text image shape video
ROOT            := $(DESTDIR)$(PREFIX)
PLUGIN_DIR      := $(ROOT)/lib/renderfarm/plugins
RUNTIME_DIR     := $(ROOT)/lib/renderfarm/swift
INSTALLED_FILES := bin/renderfarm include/renderfarm/renderfarm_plugin.h lib/pkgconfig/renderfarm-plugin.pc \
                   lib/librenderfarm-plugin.a \
                   share/man/man1/renderfarm.1 share/man/man5/renderfarm-job.5 \
                   share/bash-completion/completions/renderfarm \
                   share/zsh/site-functions/_renderfarm share/fish/vendor_completions.d/renderfarm.fish \
                   $(BUILTIN_PLUGINS:%=lib/renderfarm/plugins/librenderfarm-%.so)
DOC_DIR         := $(ROOT)/share/doc/renderfarm
# What an install builds on its way (the plugin kit's object, the docs as web pages), in a folder of its own for
# each ROOT: CI's image and SDK checks install into two roots at once.
INSTALL_WORK    := .build/install-work/$(firstword $(shell printf '%s' '$(ROOT)' | cksum))
# One small C plugin per optional callback of the ABI, with its example job and data (plugins/examples/c; EffectKit
# article WritingAPlugin, "C examples of the optional functions"): installed as documentation, never built here;
# sdk-test builds each installed copy against the installed SDK and checks it.
C_EXAMPLES      := falling-dot.c falling-dot.json data-dots.c data-dots.csv data-dots.json stripes.c stripes.json \
                   example-stripes.palette
EXAMPLES_DIR    := $(DOC_DIR)/examples/c
INSTALLED_FILES += $(C_EXAMPLES:%=share/doc/renderfarm/examples/c/%)
EFFECTKIT_DIR   := $(ROOT)/share/renderfarm/swift/EffectKit
# The targets EffectKit needs, as Package.swift declares them; sdk-test builds plugins against the installed copy
# with the repository out of reach, so a target missing here fails it.
EFFECTKIT_TARGETS := CCairo CZlib CChipmunk RenderFarmPluginABI StrictJSON Locking FileInput CairoKit Motion EffectKit
define EFFECTKIT_PACKAGE
// swift-tools-version: 6.0
// EffectKit, the Swift SDK of RenderFarm plugins, installed by `make install`: a self-contained package (the
// targets below are copies of RenderFarm's own). A plugin package depends on it by path and on its EffectKit
// product; `renderfarm plugin new NAME --lang swift` writes such a package.
import PackageDescription

let package = Package(
    name: "EffectKit",
    products: [.library(name: "EffectKit", targets: ["EffectKit"])],
    targets: [
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CChipmunk", providers: [.apt(["libchipmunk-dev"])]),
        .target(name: "RenderFarmPluginABI"),
        .target(name: "StrictJSON"),
        .target(name: "Locking"),
        .target(name: "FileInput"),
        .target(name: "CairoKit", dependencies: ["CCairo", "CZlib", "FileInput"]),
        .target(name: "Motion", dependencies: ["StrictJSON"]),
        .target(
            name: "EffectKit",
            dependencies: [
                "CairoKit", "FileInput", "Locking", "Motion", "RenderFarmPluginABI", "StrictJSON", "CChipmunk",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
endef
export EFFECTKIT_PACKAGE

deps-install:
	@$(MAKE) --no-print-directory deps PACKAGES="$(INSTALL_PACKAGES)"

install: deps deps-install
	$(SWIFT) build -c $(INSTALL_CONFIG) --product renderfarm
	@for p in $(BUILTIN_PLUGINS); do $(SWIFT) build -c $(INSTALL_CONFIG) --product renderfarm-$$p || exit 1; done
	install -d $(ROOT)/bin $(PLUGIN_DIR) $(RUNTIME_DIR) $(ROOT)/include/renderfarm $(ROOT)/lib/pkgconfig \
	    $(ROOT)/share/man/man1 $(ROOT)/share/man/man5 $(ROOT)/share/man/man7 \
	    $(ROOT)/share/bash-completion/completions $(ROOT)/share/zsh/site-functions \
	    $(ROOT)/share/fish/vendor_completions.d $(ROOT)/share/renderfarm
	install -m 755 .build/$(INSTALL_CONFIG)/renderfarm $(ROOT)/bin/renderfarm
	@for p in $(BUILTIN_PLUGINS); do install -m 644 .build/$(INSTALL_CONFIG)/librenderfarm-$$p.so $(PLUGIN_DIR)/ || exit 1; done
	@# The Swift runtime libraries ldd resolves into the toolchain, copied next to the plugins.
	@runtime=$$(dirname "$$(ldd $(ROOT)/bin/renderfarm | awk '$$1 == "libswiftCore.so" {print $$3}')"); \
	ldd $(ROOT)/bin/renderfarm $(PLUGIN_DIR)/*.so | awk -v dir="$$runtime/" 'index($$3, dir) == 1 {print $$3}' | sort -u | \
	    while read -r lib; do install -m 644 "$$lib" $(RUNTIME_DIR)/; done; \
	echo "Swift runtime from $$runtime: $$(ls $(RUNTIME_DIR) | wc -l) libraries in $(RUNTIME_DIR)"
	patchelf --set-rpath '$$ORIGIN/../lib/renderfarm/swift' $(ROOT)/bin/renderfarm
	@for f in $(BUILTIN_PLUGINS:%=$(PLUGIN_DIR)/librenderfarm-%.so); do patchelf --set-rpath '$$ORIGIN/../swift' $$f || exit 1; done
	install -m 644 Sources/RenderFarmPluginABI/include/renderfarm_plugin.h $(ROOT)/include/renderfarm/
	@# The header's companion library, a static archive of position-independent code a plugin links into itself.
	@mkdir -p $(INSTALL_WORK)
	$(CC) -O2 -std=c99 -fPIC -Wall -Wextra -Werror -ISources/RenderFarmPluginABI/include \
	    -c Sources/RenderFarmPluginKit/plugin_kit.c -o $(INSTALL_WORK)/plugin_kit.o
	rm -f $(ROOT)/lib/librenderfarm-plugin.a && ar rcs $(ROOT)/lib/librenderfarm-plugin.a $(INSTALL_WORK)/plugin_kit.o
	@version=$$($(ROOT)/bin/renderfarm --version | awk '{print $$2}'); \
	printf '%s\n' "prefix=$(PREFIX)" 'includedir=$${prefix}/include' 'libdir=$${prefix}/lib' \
	    'plugindir=$${prefix}/lib/renderfarm/plugins' '' \
	    'Name: renderfarm-plugin' 'Description: RenderFarm effect plugin ABI (renderfarm_plugin.h)' "Version: $$version" \
	    'Requires: cairo' 'Cflags: -I$${includedir} -I$${includedir}/renderfarm' \
	    'Libs: -L$${libdir} -lrenderfarm-plugin' > $(ROOT)/lib/pkgconfig/renderfarm-plugin.pc
	rm -f $(ROOT)/share/man/man7/renderfarm-*.7
	$(ROOT)/bin/renderfarm docs --man $(ROOT)/share/man
	$(ROOT)/bin/renderfarm completion bash > $(ROOT)/share/bash-completion/completions/renderfarm
	$(ROOT)/bin/renderfarm completion zsh > $(ROOT)/share/zsh/site-functions/_renderfarm
	$(ROOT)/bin/renderfarm completion fish > $(ROOT)/share/fish/vendor_completions.d/renderfarm.fish
	rm -rf $(EFFECTKIT_DIR) && install -d $(EFFECTKIT_DIR)/Sources
	cp -R $(EFFECTKIT_TARGETS:%=Sources/%) $(EFFECTKIT_DIR)/Sources/
	printf '%s\n' "$$EFFECTKIT_PACKAGE" > $(EFFECTKIT_DIR)/Package.swift
	@# The DocC catalogs as static web pages (no DocC server needed): <prefix>/share/doc/renderfarm/docs/<Module>/.
	@$(MAKE) --no-print-directory docs-convert DOCS_CONFIG=$(INSTALL_CONFIG) DOCS_DIR=$(INSTALL_WORK)/docs DOCS_STATIC=1 DOCS_ACCESS=public
	rm -rf $(DOC_DIR) && install -d $(DOC_DIR)/docs
	@for module in $(DOCS_MODULES); do cp -R $(INSTALL_WORK)/docs/$$module.doccarchive $(DOC_DIR)/docs/$$module || exit 1; done
	$(ROOT)/bin/renderfarm docs --html $(DOC_DIR)/html
	install -d $(EXAMPLES_DIR)
	install -m 644 $(C_EXAMPLES:%=plugins/examples/c/%) $(EXAMPLES_DIR)/
	@echo "installed renderfarm into $(ROOT)"
	@echo "C examples of the optional plugin functions: $(PREFIX)/share/doc/renderfarm/examples/c"
	@echo "docs: renderfarm docs TOPIC and man renderfarm-TOPIC in a terminal; $(PREFIX)/share/doc/renderfarm/html/index.html" \
	    "in any browser; DocC's pages: renderfarm studio serves them at /docs/"
	@echo "for a prefix your tools do not search, add to your shell's profile:"
	@echo '  export PATH="$(PREFIX)/bin:$$PATH"'
	@echo '  export PKG_CONFIG_PATH="$(PREFIX)/lib/pkgconfig$${PKG_CONFIG_PATH:+:$$PKG_CONFIG_PATH}"'
	@echo '  export MANPATH="$(PREFIX)/share/man:$$MANPATH"'

uninstall:
	rm -f $(INSTALLED_FILES:%=$(ROOT)/%) $(ROOT)/share/man/man7/renderfarm-*.7
	rm -rf $(RUNTIME_DIR) $(EFFECTKIT_DIR) $(DOC_DIR)
	-rmdir $(PLUGIN_DIR) $(ROOT)/lib/renderfarm $(ROOT)/include/renderfarm $(ROOT)/share/renderfarm/swift \
	    $(ROOT)/share/renderfarm $(ROOT)/share/doc 2>/dev/null

# `renderfarm plugin check` on every built-in plugin, with Tests/Fixtures/plugin-check/ID.json as --params
# (physics-bounce needs items, which it has no default for) and ID.args as further arguments (physics-bounce
# runs 130 s, so that its cache holds checkpoints the check resumes from).
# Each plugin with its fixture's parameters (Tests/Fixtures/plugin-check/ID.json, ID.args), then with each further
# set ID.NAME.json: the optional parameters the first set leaves out, so that keys-cover-params proves them too.
# Run by root (as CI runs it), every check runs again as nobody, on a copy of the build, the fixtures and
# jobs/assets that nobody can read: the check's sandbox must hold for any user.
plugin-check: build
	@as_users="$$(id -un)"; [ "$$(id -u)" = 0 ] && as_users="root nobody"; \
	for user in $$as_users; do \
	  run="$(RENDERFARM)"; \
	  if [ "$$user" = nobody ]; then \
	    copy=$$(mktemp -d) && trap 'rm -rf "$$copy"' EXIT && \
	    mkdir -p $$copy/bin $$copy/jobs $$copy/Tests/Fixtures && \
	    cp $(RENDERFARM) $(BUILD_DIR)/librenderfarm-*.so $$copy/bin/ && cp -r jobs/assets jobs/comps $$copy/jobs/ && \
	    cp -r Tests/Fixtures/plugin-check $$copy/Tests/Fixtures/ && chmod -R a+rX $$copy && cd $$copy && \
	    run="setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp $$copy/bin/renderfarm" || exit 1; \
	  fi; \
	  echo "=== plugin check of every built-in as $$user"; \
	  for p in $(BUILTIN_PLUGINS); do \
	    fixture=Tests/Fixtures/plugin-check/$$p; \
	    args=""; if [ -f $$fixture.json ]; then args="--params $$fixture.json"; fi; \
	    if [ -f $$fixture.args ]; then args="$$args $$(cat $$fixture.args)"; fi; \
	    $$run plugin check $$p $$args || exit 1; \
	    for more in $$fixture.*.json; do \
	        [ -f "$$more" ] || continue; echo "--- $$p with $$more"; \
	        $$run plugin check $$p --params $$more || exit 1; \
	    done; \
	  done; \
	done

# The SDK end to end (.ci/sdk-check.sh): as root it installs SDK_CONFIG's build of this repository and then hides
# the repository (an empty tmpfs in a mount namespace of its own); otherwise it installs from a copy, built from
# scratch and then deleted. CI passes SDK_CONFIG=release after bench-quick has built it: what users install.
sdk-test: deps deps-install
	@$(MAKE) --no-print-directory deps PACKAGES="$(SDK_PACKAGES)"
	INSTALL_CONFIG=$(SDK_CONFIG) bash .ci/sdk-check.sh
SDK_CONFIG ?= debug
# The shells whose installed completion scripts sdk-test loads, groff and man, which read the installed man pages,
# and curl, which reads the installed web pages from a local server.
SDK_PACKAGES := zsh fish groff-base man-db curl

# ---- RenderFarm Studio (RenderFarm article Studio) ----
#
# The page's JavaScript is syntax-checked and its state logic unit-tested in Node first (studio-unit); the
# browser test then drives Debian's chromium through chromium-driver with Debian's Selenium (Debian's
# own python3, not a virtual environment's); screenshots of both views go to STUDIO_SHOTS.
STUDIO_PACKAGES := chromium chromium-driver python3-selenium nodejs
STUDIO_PAGE     := Sources/StudioPage/page
STUDIO_PYTHON   ?= /usr/bin/python3
STUDIO_SHOTS    ?= .build/studio-test

studio: build
	$(RENDERFARM) studio $(JOB) $(ARGS)

studio-deps:
	@$(MAKE) --no-print-directory deps PACKAGES="$(STUDIO_PACKAGES)"

studio-unit: studio-deps
	@for f in $(STUDIO_PAGE)/*.js; do node --check "$$f" || exit 1; done
	node --test --test-reporter=spec Tests/Studio/state.test.js

studio-test: build studio-deps studio-unit
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory docs-convert DOCS_DIR=.build/docs-static DOCS_STATIC=1 >/dev/null || exit 1; \
	timeout 300 $(STUDIO_PYTHON) Tests/Studio/browser_test.py $(RENDERFARM) $(STUDIO_SHOTS) .build/docs-static || exit 1; \
	echo "studio-test passed in $$(( $$(date +%s) - start )) s; screenshots in $(STUDIO_SHOTS)"
