#ifndef STOWAGE_CFUZZERDRIVER_H
#define STOWAGE_CFUZZERDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs that have their own `main` (libclang_rt.fuzzer_no_main, which
/// fuzz.sh links): parses libFuzzer's flags from `argc`/`argv` and runs `callback` on each input.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
