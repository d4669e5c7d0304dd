// Declarations only (include/CFuzzerDriver.h); libFuzzer defines the driver.
#include "CFuzzerDriver.h"
