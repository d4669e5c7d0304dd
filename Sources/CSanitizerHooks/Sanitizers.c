// Which sanitizers this build was compiled with (CSanitizerHooks.h).

#include "CSanitizerHooks.h"

int stratus_sanitizers(void) {
    int sanitizers = 0;
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
    sanitizers |= STRATUS_SANITIZER_THREAD;
#endif
#if __has_feature(address_sanitizer)
    sanitizers |= STRATUS_SANITIZER_ADDRESS;
#endif
#endif
    return sanitizers;
}
