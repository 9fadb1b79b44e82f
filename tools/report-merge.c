/* report-merge.c: kprof-merge's code, built into kprof-report (its main renamed kprof_merge_main), so that
 * `kprof report` of several reports merges them as kprof-merge does, with no second copy of it. */
#define KPROF_MERGE_PREFIX "kprof"
#define main kprof_merge_main
int kprof_merge_main(int argc, char **argv);
#include "kprof-merge.c"
