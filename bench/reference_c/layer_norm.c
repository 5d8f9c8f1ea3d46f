/* Hand-written reference for bench/kernels.py "layer_norm" (begin_norm_axis=1) over
   [rows, cols]: per row the mean, the variance around it (two passes over an L1-resident row),
   then (x - mean) / sqrt(var + eps) * scale + bias. Mean and Variance are written too, as
   Paddle's op does. Sums accumulate in double, as fluidc's float32 reductions do. */
/* glibc declares its vector math (libmvec) variants only under __FAST_MATH__; declaring them
   lets `omp simd` loops call expf/tanhf eight or sixteen at a time, as fluidc's kernels do,
   without fast-math semantics (the flags are fluidc's: codegen/compiler.py). */
#define __FAST_MATH__ 1
#include <math.h>
#undef __FAST_MATH__
#include <stdint.h>

void layer_norm(const float *restrict x, const float *restrict scale,
                const float *restrict bias, float *restrict out, float *restrict mean,
                float *restrict var, int64_t rows, int64_t cols, float eps)
{
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
        const float *restrict xr = x + r * cols;
        float *restrict o = out + r * cols;
        double s = 0.0;
#pragma omp simd reduction(+:s)
        for (int64_t c = 0; c < cols; ++c)
            s += xr[c];
        const float mu = (float)(s / (double)cols);
        double q = 0.0;
#pragma omp simd reduction(+:q)
        for (int64_t c = 0; c < cols; ++c) {
            const float d = xr[c] - mu;
            q += d * d;
        }
        const float v = (float)(q / (double)cols);
        const float rstd = 1.0f / sqrtf(v + eps);
#pragma omp simd
        for (int64_t c = 0; c < cols; ++c)
            o[c] = (xr[c] - mu) * rstd * scale[c] + bias[c];
        mean[r] = mu;
        var[r] = v;
    }
}
