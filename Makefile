# Stratus: the two set-up commands (README) and a few helpers.
#   make serve   install what is missing, build in release mode, run the server on 127.0.0.1:8420
#   make test    install what is missing, build, run the whole test suite (and again under ThreadSanitizer)
export PATH := $(PATH):/opt/swift/usr/bin

SERVE_FLAGS ?=
# Open mode (no accounts, one user) keeps `make serve` easy to try; `make serve SERVE_MODE=` requires credentials.
SERVE_MODE ?= --open

.PHONY: serve test test-tsan test-asan deps build bench clean

deps:
	@Scripts/install-deps.sh

serve: deps
	swift build -c release --product stratus
	.build/release/stratus serve $(SERVE_MODE) $(SERVE_FLAGS)

build: deps
	swift build --build-tests

# A throwaway PostgreSQL cluster (Scripts/test-postgres.sh) runs for the length of the suite;
# STRATUS_REQUIRE_POSTGRES=1 makes a missing database fail the PostgreSQL tests instead of skipping them.
test: build
	Scripts/test-postgres.sh run swift test --skip-build
	Scripts/test-sanitized.sh thread

# The whole suite under ThreadSanitizer / AddressSanitizer, each in a build directory of its own;
# any report fails the run (Scripts/test-sanitized.sh, Documentation/0014-fuzzing-and-sanitizers.md).
test-tsan: deps
	Scripts/test-sanitized.sh thread

test-asan: deps
	Scripts/test-sanitized.sh address

bench: deps
	@Scripts/install-deps.sh --bench
	swift run -c release --package-path Benchmarks HTTPBench
	swift run -c release --package-path Benchmarks RecordsBench
	swift run -c release --package-path Benchmarks PushBench
	swift run -c release --package-path Benchmarks StoreBench
	swift run -c release --package-path Benchmarks AuthBench
	swift run -c release --package-path Benchmarks SDKBench
	swift run -c release --package-path Benchmarks SyncBench
	swift run -c release --package-path Benchmarks DocsBench

clean:
	rm -rf .build Benchmarks/.build
