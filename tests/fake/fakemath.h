/* fakemath.h: the API of libfakemath.so, a fake math library (like cuBLAS) with its own embedded runtime. */
#ifndef FAKEMATH_H
#define FAKEMATH_H

/* Launches the kernel _Z13fakemath_gemmPKfS0_Pfi reps times on the default stream, after one 4096-byte
 * cudaMalloc and cudaMemcpy HtoD (freed again), all through the library's embedded runtime. 0 on success. */
int fakemath_gemm(int reps);

#endif /* FAKEMATH_H */
