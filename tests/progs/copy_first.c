/* copy_first.c: a program whose first CUDA call is a copy (the runtime initialises the driver inside
 * it), of pageable host memory, then copies with cudaMemcpyDefault between host and device memory. */
#include <string.h>
#include "fakeprog.h"

int main(void)
{
    static char a[4096], b[4096];
    void *d = NULL;
    memset(a, 1, sizeof a);
    CHECK(cudaMemcpy(b, a, sizeof a, cudaMemcpyHostToHost));
    CHECK(cudaMalloc(&d, sizeof a));
    CHECK(cudaMemcpy(d, a, sizeof a, cudaMemcpyDefault));
    CHECK(cudaMemcpy(b, d, sizeof a, cudaMemcpyDefault));
    CHECK(cudaFree(d));
    printf("copy_first: ok\n");
    return 0;
}
