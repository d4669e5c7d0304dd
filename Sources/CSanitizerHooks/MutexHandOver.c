// Makes the hand-over of `Synchronization.Mutex` between threads visible to ThreadSanitizer.
//
// Why: on Linux, `Mutex.withLock` inlines its fast path (an atomic compare-and-swap on the
// lock word, which ThreadSanitizer instruments) into our code, but a contended lock or unlock
// calls `_MutexHandle._lockSlow`, `_tryLockSlow` or `_unlockSlow` in libswiftSynchronization.so,
// which take the lock word through the kernel (`FUTEX_LOCK_PI`/`FUTEX_UNLOCK_PI`) in code that is
// not instrumented. ThreadSanitizer then misses the happens-before edge of every contended
// hand-over and reports the state guarded by the mutex as raced (it is not: the kernel orders
// it). Suppressing those reports would hide real races in the same closures, so instead this
// file defines the three slow-path symbols in the executable, where the dynamic linker finds
// them first: each calls the library's own implementation (looked up with `RTLD_NEXT`) and
// tells ThreadSanitizer about the acquire or release on the lock word's address, the same
// address the instrumented fast path synchronizes on.
//
// Only a `-sanitize=thread` build compiles any of this; elsewhere the file is empty.

#include "CSanitizerHooks.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STRATUS_TSAN_HOOKS 1
#endif
#endif

#ifdef STRATUS_TSAN_HOOKS

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// ThreadSanitizer's runtime (linked into every instrumented executable).
void __tsan_acquire(void *address);
void __tsan_release(void *address);

// The Swift calling convention: `self` (the `_MutexHandle`, i.e. the address of its lock word)
// travels in the register clang's `swift_context` parameter maps to.
#define SWIFT_CC __attribute__((swiftcall))
#define SWIFT_SELF __attribute__((swift_context))

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

typedef SWIFT_CC void (*LockSlow)(uint32_t owner, void *SWIFT_SELF handle);
typedef SWIFT_CC bool (*TryLockSlow)(void *SWIFT_SELF handle);
typedef SWIFT_CC void (*UnlockSlow)(void *SWIFT_SELF handle);

/// The library's implementation of `name`; aborts when it is missing (a toolchain whose
/// Synchronization module no longer has this symbol: update the names above).
static void *library_symbol(void **cache, const char *name) {
    void *symbol = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (symbol != NULL) return symbol;
    symbol = dlsym(RTLD_NEXT, name);
    if (symbol == NULL) {
        fprintf(stderr, "CSanitizerHooks: %s not found in libswiftSynchronization\n", name);
        abort();
    }
    __atomic_store_n(cache, symbol, __ATOMIC_RELEASE);
    return symbol;
}

static void *lock_slow_cache;
static void *try_lock_slow_cache;
static void *unlock_slow_cache;

SWIFT_CC void stratus_mutex_lock_slow(uint32_t owner, void *SWIFT_SELF handle) __asm__(LOCK_SLOW);
SWIFT_CC void stratus_mutex_lock_slow(uint32_t owner, void *SWIFT_SELF handle) {
    ((LockSlow)library_symbol(&lock_slow_cache, LOCK_SLOW))(owner, handle);
    __tsan_acquire(handle);
}

SWIFT_CC bool stratus_mutex_try_lock_slow(void *SWIFT_SELF handle) __asm__(TRY_LOCK_SLOW);
SWIFT_CC bool stratus_mutex_try_lock_slow(void *SWIFT_SELF handle) {
    bool locked = ((TryLockSlow)library_symbol(&try_lock_slow_cache, TRY_LOCK_SLOW))(handle);
    if (locked) __tsan_acquire(handle);
    return locked;
}

SWIFT_CC void stratus_mutex_unlock_slow(void *SWIFT_SELF handle) __asm__(UNLOCK_SLOW);
SWIFT_CC void stratus_mutex_unlock_slow(void *SWIFT_SELF handle) {
    __tsan_release(handle);
    ((UnlockSlow)library_symbol(&unlock_slow_cache, UNLOCK_SLOW))(handle);
}

#endif
