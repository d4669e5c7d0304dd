#ifndef CFUZZERDRIVER_H
#define CFUZZERDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (libclang_rt.fuzzer, linked by -sanitize=fuzzer): parses the command line
/// and runs `callback` on every input. A fuzz target calls it from its own `main`, because SwiftPM
/// renames an executable's entry point when testable imports are enabled and libFuzzer's own
/// `main` would then never run.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
