/* offsets.c: KPROF_HOLD=N's learned offsets.  A launch left unheld on an idle stream is read with the
 * idle-stream correction (the host time from its start event to the launch's return) and the calibrated
 * idle hand-off; what that leaves depends on the kernel and its launch shape (a large grid arrives later
 * than a one-block kernel: docs/accuracy.md, "Holds"), so it is learned per kernel, shape and kind of hold
 * from the launches of that shape that were held, drawn at random among the same launches. */
#include <string.h>
#include "kprof_config.h"
#include "timing_internal.h"

struct offset_key {
    void *target; /* struct kprof_kernel * */
    unsigned grid[3], block[3];
    unsigned kind; /* 1 HELD, 2 HELD_KERNEL: the hold it had or would have had */
};
struct offset {
    struct offset_key key;
    uint64_t held_n, unheld_n;
    double held_sum, unheld_sum; /* ns */
    UT_hash_handle hh;
};

double kprof_offset_learn(struct pool *p, const struct pair *pr, double dur_ns, int *unlearned)
{
    *unlearned = 0;
    unsigned kind = pr->unheld          ? pr->unheld
                    : pr->late          ? 0
                    : pr->pred == KPROF_PRED_HELD ? 1
                    : pr->pred == KPROF_PRED_HELD_KERNEL ? 2
                                                  : 0;
    if (kind == 0 || pr->kind != KPROF_TARGET_KERNEL || kprof_config.hold < 2)
        return 0.0;
    struct offset_key key;
    memset(&key, 0, sizeof key); /* no padding left unset in the hashed bytes */
    key.target = pr->target;
    memcpy(key.grid, pr->grid, sizeof key.grid);
    memcpy(key.block, pr->block, sizeof key.block);
    key.kind = kind;
    struct offset *o;
    HASH_FIND(hh, p->offsets, &key, sizeof key, o);
    if (!o) {
        o = calloc(1, sizeof *o);
        if (!o) { /* out of memory: read as the idle-stream correction alone */
            *unlearned = pr->unheld != 0;
            return 0.0;
        }
        o->key = key;
        HASH_ADD(hh, p->offsets, key, sizeof key, o);
        struct offset *found;
        HASH_FIND(hh, p->offsets, &key, sizeof key, found);
        if (found != o) { /* uthash ran out of memory and did not add it */
            free(o);
            *unlearned = pr->unheld != 0;
            return 0.0;
        }
    }
    if (!pr->unheld) {
        o->held_n++;
        o->held_sum += dur_ns;
        return 0.0;
    }
    o->unheld_n++;
    o->unheld_sum += dur_ns;
    if (o->held_n == 0) {
        *unlearned = 1;
        return 0.0;
    }
    return o->unheld_sum / (double)o->unheld_n - o->held_sum / (double)o->held_n;
}
