/* Hand-written reference for bench/kernels.py "arith": out = x*0.5 + y*0.25 - 1 (memory bound). */
/* glibc declares its vector math (libmvec) variants only under __FAST_MATH__; declaring them
   lets `omp simd` loops call expf/tanhf eight or sixteen at a time, as fluidc's kernels do,
   without fast-math semantics (the flags are fluidc's: codegen/compiler.py). */
#define __FAST_MATH__ 1
#include <math.h>
#undef __FAST_MATH__
#include <stdint.h>

void arith(const float *restrict x, const float *restrict y, float *restrict out, int64_t n)
{
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i)
        out[i] = x[i] * 0.5f + y[i] * 0.25f - 1.0f;
}
