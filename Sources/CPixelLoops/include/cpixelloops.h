#ifndef CURTAIN_CPIXELLOOPS_H
#define CURTAIN_CPIXELLOOPS_H

#include <stdint.h>

/// out[i] = the 3-tap kernel [side, 256 - 2 side, side] / 256 over a[i], b[i], c[i], for each of
/// `count` premultiplied ARGB32 pixels (channels rounded; side < 128). `out` may not alias
/// the inputs.
void curtain_mix3(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint32_t *c, long count,
                  uint32_t side);

/// Enlarges the opaque ARGB32 image `src` (`width` × `height`, `stride` in pixels) by `factor`
/// (2, 4 or 8) with bilinear filtering, its edge pixels extended: pixel (x, y) of the result
/// samples `src` at ((x + ½) / factor − ½, (y + ½) / factor − ½), each weight a whole number of
/// 16ths in each direction, rounded once. Writes columns [x0, x1) of rows [y0, y1) of the
/// result to `dst` (`dst_stride` in pixels; `dst` points at pixel (0, 0) of the result). False,
/// writing nothing, when a work row cannot be allocated, the factor is not 2, 4 or 8, or the
/// columns are outside the result (0 ≤ x0, x1 ≤ width × factor).
_Bool curtain_enlarge(uint32_t *dst, long dst_stride, long x0, long x1, long y0, long y1, const uint32_t *src,
                      long stride, long width, long height, int factor);

#endif
