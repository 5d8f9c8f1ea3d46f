/* The copy-bandwidth probe of bench/kernels.py: dst = src with OpenMP threads, as fluidc's
   kernels run (np.copyto is the single-threaded probe). */
/* glibc declares its vector math (libmvec) variants only under __FAST_MATH__; declaring them
   lets `omp simd` loops call expf/tanhf eight or sixteen at a time, as fluidc's kernels do,
   without fast-math semantics (the flags are fluidc's: codegen/compiler.py). */
#define __FAST_MATH__ 1
#include <math.h>
#undef __FAST_MATH__
#include <stdint.h>

void copy_f32(const float *restrict src, float *restrict dst, int64_t n)
{
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i)
        dst[i] = src[i];
}
