/* managed.c: managed memory allocated with cudaMallocManaged and freed with cudaFree. */
#include "fakeprog.h"

int main(void)
{
    void *p = NULL, *d = NULL;
    CHECK(cudaMallocManaged(&p, 4096, cudaMemAttachGlobal));
    CHECK(cudaMalloc(&d, 1024));
    CHECK(cudaFree(p));
    CHECK(cudaFree(d));
    printf("managed: ok\n");
    return 0;
}
