// thrust: Thrust (CUB) sequence, transform, sort, sort_by_key and reduce on device_vectors, 5 rounds.
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include "common.cuh"

struct scramble {
    __host__ __device__ unsigned operator()(unsigned x) const { return (x * 2654435761u) ^ (x >> 7); }
};

int main()
{
    const size_t n = 1 << 22;
    thrust::device_vector<unsigned> a(n), k(n);
    thrust::device_vector<float> v(n);
    for (int round = 0; round < 5; round++) {
        thrust::sequence(a.begin(), a.end(), (unsigned)round);
        thrust::transform(a.begin(), a.end(), a.begin(), scramble());
        thrust::sort(a.begin(), a.end());
        EXPECT(thrust::is_sorted(a.begin(), a.end()));
        thrust::sequence(k.begin(), k.end());
        thrust::transform(k.begin(), k.end(), k.begin(), scramble());
        thrust::sequence(v.begin(), v.end(), 0.0f);
        thrust::sort_by_key(k.begin(), k.end(), v.begin());
        double sum = thrust::reduce(v.begin(), v.end(), 0.0, thrust::plus<double>());
        EXPECT(sum == (double)n * (n - 1) / 2);
    }
    CK(cudaDeviceSynchronize());
    printf("thrust: ok\n");
    return 0;
}
