/* shimapp.c: calls puts("hello") three times. Run with LD_PRELOAD=libshim.so (alone, or after libkprof.so)
 * it must print "shim: hello" three times and exit 0. */
#include <stdio.h>

int main(void)
{
    for (int i = 0; i < 3; i++)
        if (puts("hello") == EOF)
            return 1;
    return 0;
}
