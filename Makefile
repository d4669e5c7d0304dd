# Stratus: the two set-up commands (README) and a few helpers.
#   make serve   install what is missing, build in release mode, run the server on 127.0.0.1:8420
#   make test    install what is missing, build, run the whole test suite
export PATH := $(PATH):/opt/swift/usr/bin

SERVE_FLAGS ?=
# Open mode (no accounts, one user) keeps `make serve` easy to try; `make serve SERVE_MODE=` requires credentials.
SERVE_MODE ?= --open

.PHONY: serve test deps build bench clean

deps:
	@Scripts/install-deps.sh

serve: deps
	swift build -c release --product stratus
	.build/release/stratus serve $(SERVE_MODE) $(SERVE_FLAGS)

# Every doc-comment and guide example is copied into Examples/DocComments first, so the build compiles them (Documentation/0013).
build: deps
	swift Scripts/extract-doc-examples.swift .
	swift build --build-tests

# A throwaway PostgreSQL cluster (Scripts/test-postgres.sh) runs for the length of the suite;
# STRATUS_REQUIRE_POSTGRES=1 makes a missing database fail the PostgreSQL tests instead of skipping them.
# The fake APNs server's Python packages go into .build/fake-apns-venv (Scripts/fake-apns.sh, quick when
# present); STRATUS_REQUIRE_FAKE_APNS=1 makes a missing one fail the APNs tests instead of skipping them.
test: build
	Scripts/check-client-graph.sh
	Scripts/fake-apns.sh install
	STRATUS_REQUIRE_FAKE_APNS=1 Scripts/test-postgres.sh run swift test --skip-build

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
	rm -rf .build Benchmarks/.build
