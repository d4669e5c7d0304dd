# Stratus: the two set-up commands (README) and a few helpers.
#   make serve   install what is missing, build in release mode, run the server on 127.0.0.1:8420
#   make test    install what is missing, build, run the whole test suite, Schemathesis against a live server,
#                each fuzz target for 10 s, and the suite again under ThreadSanitizer
#   make fuzz    every libFuzzer target for FUZZ_SECONDS (default 60) each (Fuzz/README.md)
export PATH := $(PATH):/opt/swift/usr/bin

SERVE_FLAGS ?=
# Open mode (no accounts, one user) keeps `make serve` easy to try; `make serve SERVE_MODE=` requires credentials.
SERVE_MODE ?= --open

.PHONY: serve test test-tsan test-asan test-simulation fuzz deps build bench clean

FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1

deps:
	@Scripts/install-deps.sh

serve: deps
	swift build -c release --product stratus
	.build/release/stratus serve $(SERVE_MODE) $(SERVE_FLAGS)

# Every doc-comment and guide example is copied into Examples/DocComments first, so the build compiles them (Documentation/0014).
build: deps
	swift Scripts/extract-doc-examples.swift .
	swift Scripts/embed-console-resources.swift .
	swift build --build-tests

# A throwaway PostgreSQL cluster (Scripts/test-postgres.sh) runs for the length of the suite;
# STRATUS_REQUIRE_POSTGRES=1 makes a missing database fail the PostgreSQL tests instead of skipping them.
# The fake APNs server's Python packages go into .build/fake-apns-venv (Scripts/fake-apns.sh, quick when
# present); STRATUS_REQUIRE_FAKE_APNS=1 makes a missing one fail the APNs tests instead of skipping them.
# Debian's nginx and caddy are installed for the reverse-proxy tests (Scripts/test-reverse-proxy.sh); STRATUS_REQUIRE_NGINX=1
# and STRATUS_REQUIRE_CADDY=1 make a missing one fail its test instead of skipping it.
# The console's browser suite drives Debian's chromium through chromium-driver (Scripts/test-console-browser.sh,
# installed like nginx; screenshots of each page in .build/console-browser).
# Then Schemathesis from the server's OpenAPI description (Scripts/test-schemathesis.sh), each fuzz
# target for 10 s, two at a time (a smoke run of a debug build: it replays each corpus and fuzzes briefly;
# the long runs are make fuzz, in release), and the TSan run.
test: build
	Scripts/check-client-graph.sh
	Scripts/check-layers.sh --self-test
	Scripts/format.sh --check
	Scripts/fake-apns.sh install
	Scripts/test-reverse-proxy.sh install
	Scripts/test-console-browser.sh install
	STRATUS_REQUIRE_FAKE_APNS=1 STRATUS_REQUIRE_NGINX=1 STRATUS_REQUIRE_CADDY=1 Scripts/run-suite.sh Scripts/test-postgres.sh run swift test --skip-build
	STRATUS_SIMULATION=1 swift test --skip-build --filter SyncSimulationTests
	Scripts/test-console-browser.sh
	Scripts/test-schemathesis.sh
	FUZZ_SECONDS=10 FUZZ_JOBS=2 FUZZ_CONFIGURATION=debug Fuzz/Scripts/fuzz.sh
	Scripts/test-sanitized.sh thread

# libFuzzer targets (Fuzz/), FUZZ_SECONDS each, FUZZ_JOBS at once; FUZZ_MERGE=1 keeps what they find in Fuzz/Corpus.
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) Fuzz/Scripts/fuzz.sh

# The whole suite under ThreadSanitizer / AddressSanitizer, each in a build directory of its own;
# any report fails the run (Scripts/test-sanitized.sh, Documentation/0016-fuzzing-and-sanitizers.md).
test-tsan: deps
	Scripts/test-sanitized.sh thread

test-asan: deps
	Scripts/test-sanitized.sh address

# The deterministic sync simulator's 1,000 seeds alone (SIM_SEED=N or a..<b replays; Documentation/0018).
# make test runs it too, after the suite and never retried: a failing seed fails the run and prints
# how to replay it.
test-simulation: build
	STRATUS_SIMULATION=1 swift test --skip-build --filter SyncSimulationTests

bench: deps
	@Scripts/install-deps.sh --bench
	@Scripts/fake-apns.sh install
	swift run -c release --package-path Benchmarks HTTPBench
	swift run -c release --package-path Benchmarks RecordsBench
	swift run -c release --package-path Benchmarks PushBench
	swift run -c release --package-path Benchmarks StoreBench
	swift run -c release --package-path Benchmarks AuthBench
	swift run -c release --package-path Benchmarks SDKBench
	swift run -c release --package-path Benchmarks SyncBench
	swift run -c release --package-path Benchmarks DocsBench

clean:
	rm -rf .build Benchmarks/.build Fuzz/.build
