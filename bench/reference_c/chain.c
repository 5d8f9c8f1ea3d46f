/* Hand-written reference for bench/kernels.py "chain": out = tanh(relu(x*0.5 + y) - 1) * x + 2.
   One pass over x and y; relu keeps NaN as numpy's maximum does. The caller allocates out. */
/* glibc declares its vector math (libmvec) variants only under __FAST_MATH__; declaring them
   lets `omp simd` loops call expf/tanhf eight or sixteen at a time, as fluidc's kernels do,
   without fast-math semantics (the flags are fluidc's: codegen/compiler.py). */
#define __FAST_MATH__ 1
#include <math.h>
#undef __FAST_MATH__
#include <stdint.h>

void chain(const float *restrict x, const float *restrict y, float *restrict out, int64_t n)
{
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        float t = x[i] * 0.5f + y[i];
        t = (t > 0.0f || t != t) ? t : 0.0f;
        out[i] = tanhf(t - 1.0f) * x[i] + 2.0f;
    }
}
