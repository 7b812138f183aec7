// A blurred layer's enlargement onto the frame (CurtainRender/Effects.swift): pixman's
// bilinear scaling is SSE2 and computes every pixel's weights (≈ 1.9 ms of a 1080p frame here,
// most of seed 003's frame); an exact ×2, ×4 or ×8 has fixed weights per phase and is separable,
// and `target_clones` builds it for AVX2 as well. Only opaque sources: nothing to blend.
#include "cpixelloops.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__clang__) && defined(__linux__)
#define CURTAIN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CURTAIN_CLONES
#endif

// Two channels per 32-bit word (0x00RR00BB and 0x00AA00GG), each in a 16-bit lane. A source
// channel times a vertical weight (16ths) stays below 2^12; times a horizontal one as well,
// summed and rounded, below 2^16.
#define LANES 0x00FF00FFu

static inline uint32_t combine(uint32_t llo, uint32_t lhi, uint32_t rlo, uint32_t rhi, uint32_t wl, uint32_t wr) {
    const uint32_t lo = ((llo * wl + rlo * wr + 0x00800080u) >> 8) & LANES;
    const uint32_t hi = (lhi * wl + rhi * wr + 0x00800080u) & ~LANES;
    return lo | hi;
}

// The vertical blend of two source rows, cells [c0, c1] (already clamped to the row).
CURTAIN_CLONES
static void blend_rows(uint32_t *restrict lo, uint32_t *restrict hi, const uint32_t *restrict a,
                       const uint32_t *restrict b, long c0, long c1, uint32_t wa, uint32_t wb) {
    for (long i = c0; i <= c1; i++) {
        const uint32_t p = a[i], q = b[i];
        lo[i] = (p & LANES) * wa + (q & LANES) * wb;
        hi[i] = ((p >> 8) & LANES) * wa + ((q >> 8) & LANES) * wb;
    }
}

// Output pixel k of source cell i lies at i + (2k + 1 − F) / 2F: between cells i − 1 and i for
// the first half of the cell, i and i + 1 for the second, with |2k + 1 − F| · 8 / F 16ths on
// the neighbour. F is a constant in each instance, so the loop over k unrolls and the loop over
// cells vectorises (the F stores of a cell are one interleaved group).
#define CELLS(F)                                                                                    \
    CURTAIN_CLONES                                                                                  \
    static void cells##F(uint32_t *restrict out, const uint32_t *restrict lo, const uint32_t *restrict hi, \
                         long c0, long c1) {                                                        \
        for (long i = c0; i < c1; i++) {                                                            \
            uint32_t *cell = out + (i - c0) * F;                                                    \
            for (int k = 0; k < F; k++) {                                                           \
                const int t = 2 * k + 1 - F;                                                        \
                const uint32_t w = (uint32_t)((t < 0 ? -t : t) * 8 / F);                            \
                const long n = t < 0 ? i - 1 : i + 1;                                               \
                cell[k] = t < 0 ? combine(lo[n], hi[n], lo[i], hi[i], w, 16 - w)                    \
                                : combine(lo[i], hi[i], lo[n], hi[n], 16 - w, w);                   \
            }                                                                                       \
        }                                                                                           \
    }
CELLS(2)
CELLS(4)
CELLS(8)

static long clamp(long v, long lo, long hi) { return v < lo ? lo : v > hi ? hi : v; }

// floor(a / b) for b > 0.
static long floor_div(long a, long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

_Bool curtain_enlarge(uint32_t *dst, long dst_stride, long x0, long x1, long y0, long y1, const uint32_t *src,
                      long stride, long width, long height, int factor) {
    if (factor != 2 && factor != 4 && factor != 8) return 0;
    if (x1 <= x0 || y1 <= y0 || width <= 0 || height <= 0) return 1;
    if (x0 < 0 || x1 > width * factor) return 0;
    const long f = factor;
    // Source cells whose outputs cover [x0, x1), and one more on each side (the neighbours).
    const long c0 = x0 / f, c1 = (x1 + f - 1) / f;
    const long span = c1 - c0 + 2;
    // lo and hi indexed by cell + 1 (cell −1 is the left edge's copy), and the cells' outputs.
    uint32_t *work = malloc(sizeof(uint32_t) * (size_t)(2 * (width + 2) + f * span));
    if (!work) return 0;
    uint32_t *lo = work + 1, *hi = work + width + 3, *out = work + 2 * (width + 2);
    const long first = clamp(c0 - 1, 0, width - 1), last = clamp(c1, 0, width - 1);
    for (long y = y0; y < y1; y++) {
        // Rows j and j + 1 around (y + ½) / f − ½, with the weight of j + 1 in 16ths.
        const long t = 2 * y + 1 - f;
        const long j = floor_div(t, 2 * f);
        const uint32_t wb = (uint32_t)((t - j * 2 * f) * 8 / f);
        const uint32_t *a = src + clamp(j, 0, height - 1) * stride;
        const uint32_t *b = src + clamp(j + 1, 0, height - 1) * stride;
        blend_rows(lo, hi, a, b, first, last, 16 - wb, wb);
        // The edges extend: cell −1 is cell 0, cell `width` is the last.
        lo[-1] = lo[0];
        hi[-1] = hi[0];
        lo[width] = lo[width - 1];
        hi[width] = hi[width - 1];
        switch (f) {
        case 2: cells2(out, lo, hi, c0, c1); break;
        case 4: cells4(out, lo, hi, c0, c1); break;
        default: cells8(out, lo, hi, c0, c1); break;
        }
        memcpy(dst + y * dst_stride + x0, out + (x0 - c0 * f), sizeof(uint32_t) * (size_t)(x1 - x0));
    }
    free(work);
    return 1;
}
