/* deep_name.c: launches one kernel whose mangled name nests templates DEPTH deep
 * (_Z1fI1AI1AI...iE...EEvv: void f<A<A<...<int>...>>>()), from a thread with a small stack.
 * Usage: deep_name [DEPTH [STACK_KIB]]; DEPTH defaults to 2000, STACK_KIB to 64 (0: the main thread). */
#include <pthread.h>
#include <string.h>
#include "fakeprog.h"

static void stub(void) {}

static void *launcher(void *arg)
{
    (void)arg;
    cudaError_t r = launch(stub, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, 0);
    return (void *)(long)r;
}

int main(int argc, char **argv)
{
    long depth = argc > 1 ? atol(argv[1]) : 2000, stack_kib = argc > 2 ? atol(argv[2]) : 64;
    char *name = malloc((size_t)depth * 4 + 16);
    if (!name)
        return 2;
    strcpy(name, "_Z1fI");
    char *p = name + strlen(name);
    for (long i = 0; i < depth; i++, p += 3)
        memcpy(p, "1AI", 3);
    *p++ = 'i';
    for (long i = 0; i < depth; i++)
        *p++ = 'E';
    strcpy(p, "Evv");

    void **m = register_module();
    register_kernel(m, stub, name);
    __cudaRegisterFatBinaryEnd(m);
    void *r = NULL;
    if (stack_kib > 0) {
        pthread_attr_t a;
        pthread_t t;
        pthread_attr_init(&a);
        if (pthread_attr_setstacksize(&a, (size_t)stack_kib * 1024) != 0 || pthread_create(&t, &a, launcher, NULL) != 0) {
            fprintf(stderr, "deep_name: cannot start a thread with a %ld KiB stack\n", stack_kib);
            return 2;
        }
        pthread_join(t, &r);
    } else {
        r = launcher(NULL);
    }
    CHECK((cudaError_t)(long)r);
    CHECK(cudaDeviceSynchronize());
    printf("deep_name: ok (%zu bytes)\n", strlen(name));
    free(name);
    return 0;
}
