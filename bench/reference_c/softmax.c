/* Hand-written reference for bench/kernels.py "softmax" over the last axis of [rows, cols]:
   per row (which fits in L1) the max, then exp(x - max) stored with its sum, then one scale.
   Sums accumulate in double, as fluidc's float32 reductions do. */
/* glibc declares its vector math (libmvec) variants only under __FAST_MATH__; declaring them
   lets `omp simd` loops call expf/tanhf eight or sixteen at a time, as fluidc's kernels do,
   without fast-math semantics (the flags are fluidc's: codegen/compiler.py). */
#define __FAST_MATH__ 1
#include <math.h>
#undef __FAST_MATH__
#include <stdint.h>

void softmax(const float *restrict x, float *restrict out, int64_t rows, int64_t cols)
{
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
        const float *restrict xr = x + r * cols;
        float *restrict o = out + r * cols;
        float m = -INFINITY;
#pragma omp simd reduction(max:m)
        for (int64_t c = 0; c < cols; ++c)
            m = xr[c] > m ? xr[c] : m;
        double s = 0.0;
#pragma omp simd reduction(+:s)
        for (int64_t c = 0; c < cols; ++c) {
            float e = expf(xr[c] - m);
            o[c] = e;
            s += e;
        }
        const float inv = (float)(1.0 / s);
#pragma omp simd
        for (int64_t c = 0; c < cols; ++c)
            o[c] *= inv;
    }
}
