// cufft: cuFFT 1D C2C (batched), 1D R2C/C2R and 2D C2C, forward and inverse, 10 times each.
// cuFFT linked shared.
#include <cmath>
#include <vector>
#include <cufft.h>
#include "common.cuh"

static bool near(float v, float want) { return fabsf(v - want) <= 1e-4f * want; }

#define CF(x)                                                                                              \
    do {                                                                                                   \
        cufftResult r_ = (x);                                                                              \
        if (r_ != CUFFT_SUCCESS) {                                                                         \
            fprintf(stderr, "%s:%d: %s: cuFFT result %d\n", __FILE__, __LINE__, #x, (int)r_);             \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

int main()
{
    const int n1 = 4096, batch = 64, n2 = 512;
    cufftComplex *z;
    float *r;
    CK(cudaMalloc(&z, sizeof(cufftComplex) * n1 * batch));
    CK(cudaMalloc(&r, sizeof(float) * n1 * batch));
    std::vector<cufftComplex> hz(n1 * batch, cufftComplex{1.0f, 0.0f});
    std::vector<float> hr(n1 * batch, 1.0f);
    cufftHandle p1, pr, pc, p2;
    CF(cufftPlan1d(&p1, n1, CUFFT_C2C, batch));
    CF(cufftPlan1d(&pr, n1, CUFFT_R2C, batch));
    CF(cufftPlan1d(&pc, n1, CUFFT_C2R, batch));
    CF(cufftPlan2d(&p2, n2, n2, CUFFT_C2C));

    cufftComplex v;
    for (int i = 0; i < 10; i++) { // a round trip of ones gives n1 everywhere
        CK(cudaMemcpy(z, hz.data(), sizeof(cufftComplex) * n1 * batch, cudaMemcpyHostToDevice));
        CF(cufftExecC2C(p1, z, z, CUFFT_FORWARD));
        CF(cufftExecC2C(p1, z, z, CUFFT_INVERSE));
    }
    CK(cudaMemcpy(&v, z, sizeof v, cudaMemcpyDeviceToHost));
    EXPECT(near(v.x, n1));

    for (int i = 0; i < 10; i++) { // out of place R2C into z, C2R back into r
        CK(cudaMemcpy(r, hr.data(), sizeof(float) * n1 * batch, cudaMemcpyHostToDevice));
        CF(cufftExecR2C(pr, r, z));
        CF(cufftExecC2R(pc, z, r));
    }
    CK(cudaMemcpy(r, hr.data(), sizeof(float) * n1 * batch, cudaMemcpyHostToDevice));
    CF(cufftExecR2C(pr, r, z));
    CK(cudaMemcpy(&v, z, sizeof v, cudaMemcpyDeviceToHost));
    EXPECT(near(v.x, n1) && fabsf(v.y) < 1e-3f); // DC term of n1 ones

    for (int i = 0; i < 10; i++) {
        CK(cudaMemcpy(z, hz.data(), sizeof(cufftComplex) * n2 * n2, cudaMemcpyHostToDevice));
        CF(cufftExecC2C(p2, z, z, CUFFT_FORWARD));
        CF(cufftExecC2C(p2, z, z, CUFFT_INVERSE));
    }
    CK(cudaMemcpy(&v, z, sizeof v, cudaMemcpyDeviceToHost));
    EXPECT(near(v.x, n2 * n2));
    for (cufftHandle p : {p1, pr, pc, p2})
        CF(cufftDestroy(p));
    printf("cufft: ok\n");
    return 0;
}
