/*
 * libfuzzer_main.c - libFuzzer's entry point for one target, chosen at
 * build time (CGM_FUZZ_ONE names its function; tests/CMakeLists.txt).
 */
#include "fuzz_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return CGM_FUZZ_ONE(data, size);
}
