// LLVMFuzzerRunDriver is defined by libclang_rt.fuzzer_no_main, linked by fuzz.sh; this target only
// declares it (include/CFuzzerDriver.h) so that Swift calls it with C's calling convention.
#include "CFuzzerDriver.h"
