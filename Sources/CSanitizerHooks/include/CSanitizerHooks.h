#ifndef STRATUS_CSANITIZERHOOKS_H
#define STRATUS_CSANITIZERHOOKS_H

/// Hooks for builds with a sanitizer.
///
/// Under `-sanitize=thread`, linking the target makes the hand-over of `Synchronization.Mutex`
/// visible to ThreadSanitizer (MutexHandOver.c); in other builds that part compiles to nothing.

/// `stratus_sanitizers()` bit: this build runs under ThreadSanitizer.
#define STRATUS_SANITIZER_THREAD 1
/// `stratus_sanitizers()` bit: this build runs under AddressSanitizer.
#define STRATUS_SANITIZER_ADDRESS 2

/// The sanitizers this build was compiled with, as `STRATUS_SANITIZER_*` bits (0 for none),
/// so that tests can give slow runs more time.
int stratus_sanitizers(void);

#endif
