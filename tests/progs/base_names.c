/* base_names.c: prints kprof_kernel_base_name of each line of standard input, one a line; with --params,
 * kprof_kernel_param_count instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel_name.h"

int main(int argc, char **argv)
{
    int params = argc > 1 && strcmp(argv[1], "--params") == 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            line[n - 1] = '\0';
        if (params) {
            printf("%d\n", kprof_kernel_param_count(line));
            continue;
        }
        char *b = kprof_kernel_base_name(line);
        if (!b)
            return 1;
        puts(b);
        free(b);
    }
    free(line);
    return 0;
}
