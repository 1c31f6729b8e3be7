#ifndef SUSI_CCHECKSUM_SHIM_H
#define SUSI_CCHECKSUM_SHIM_H
// CRC-32C with the processor's own instruction where it has one: x86-64's SSE 4.2 `crc32`
// computes exactly the Castagnoli checksum the event log's lines carry, eight bytes per step.
// Swift cannot name the instruction. The loop is here rather than in Swift because a function
// compiled for SSE 4.2 is not inlined into code compiled without it: called once per eight
// bytes from Swift, the call would cost more than the instruction.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>

// Whether this processor has SSE 4.2 (CPUID leaf 1, ECX bit 20).
static inline int susi_crc32c_hardware_available(void) {
  unsigned int eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  return (ecx & bit_SSE4_2) != 0;
}

// Folds `count` bytes at `bytes` into the running (inverted) register `crc`. Only to be called
// when `susi_crc32c_hardware_available()` said so.
__attribute__((target("sse4.2"))) static inline uint32_t susi_crc32c_hardware_update(
    uint32_t crc, const void *bytes, size_t count) {
  const unsigned char *p = (const unsigned char *)bytes;
  uint64_t wide = crc;
  while (count >= 8) {
    uint64_t word;
    memcpy(&word, p, 8);
    wide = __builtin_ia32_crc32di(wide, word);
    p += 8;
    count -= 8;
  }
  uint32_t narrow = (uint32_t)wide;
  while (count > 0) {
    narrow = __builtin_ia32_crc32qi(narrow, *p);
    p += 1;
    count -= 1;
  }
  return narrow;
}
#else
static inline int susi_crc32c_hardware_available(void) { return 0; }

static inline uint32_t susi_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count) {
  (void)bytes;
  (void)count;
  return crc;
}
#endif
#endif
