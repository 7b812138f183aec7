#ifndef CURTAIN_CPIXELLOOPS_H
#define CURTAIN_CPIXELLOOPS_H

#include <stdint.h>

/// out[i] = the 3-tap kernel [side, 256 - 2 side, side] / 256 over a[i], b[i], c[i], for each of
/// `count` premultiplied ARGB32 pixels (channels rounded; side < 128). `out` may not alias
/// the inputs.
void curtain_mix3(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint32_t *c, long count,
                  uint32_t side);

#endif
