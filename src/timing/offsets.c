/* offsets.c: KPROF_HOLD=N's learned offsets.  A launch left unheld on an idle stream is read with the
 * idle-stream correction (the host time from its start event to the launch's return) and the calibrated
 * idle hand-off; what that leaves depends on the kernel and its launch shape (a large grid arrives later
 * than a one-block kernel: docs/accuracy.md, "Holds"), so it is learned per kernel, shape and kind of hold
 * from the launches of that shape that were held, drawn at random among the same launches.  Likewise a
 * launch that shares its start with the previous stop on a stream whose known work may end before its
 * kernel arrives holds the idle gap between: learned from the drawn launches in that situation, which get
 * a start of their own. */
#include <math.h>
#include <string.h>
#include "kprof_config.h"
#include "devices.h"
#include "hold.h"
#include "kernel.h"
#include "log.h"
#include "timing_internal.h"

/* A kernel's draws are thinned (hold.h) only while its references' spread lets a thinned sample fix their
 * mean (the offset's error on a total is that of the references' mean) within one standard error of
 * 0.5% of it, or of 250 ns where that is no more than 10% of it (2 standard errors then within half the
 * kernel tolerance of issue 10, max(1 us, 2%), and within 20% of the mean of a kernel shorter than
 * 2.5 us): the weighted references count as about 1.5 x KPROF_HOLD_THIN_AFTER however long the run.  A
 * kernel whose lengths spread more is drawn 1 in N again (the weights keep the references' mean right).
 * (Until the eleventh session 50 ns and 2.5%: the H200's empty-launch loops, whose held launches read
 * 2.1 us with a standard deviation of 2.4 to 4.0 us, never thinned, and their holds cost about 0.8 us a
 * launch: docs/performance.md.) */
#define THIN_REL_SE 0.005
#define THIN_ABS_SE 250.0
#define THIN_ABS_MAX_REL 0.10
#define THIN_NEFF (1.5 * KPROF_HOLD_THIN_AFTER)
/* A launch not drawn leaves out the question whether its stream was idle (struct kprof_kernel's
 * blind_ok) once the references' mean of each of its kernel's shapes (for its kind of hold) is known
 * within a standard error of 0.5% of it, or of 50 ns where that is no more than 2.5% of it: the offset
 * then taken off however small (KPROF_OFFSET_BLIND) makes the launches not drawn read as the references
 * do, so their total's error is the references' mean's, 2 standard errors within a tenth of the kernel
 * tolerance of issue 10, max(1 us, 2%).  (Thinning's 250 ns would allow 10% on a kernel of 2.5 us.) */
#define BLIND_REL_SE 0.005
#define BLIND_ABS_SE 50.0
#define BLIND_ABS_MAX_REL 0.025

struct offset_key {
    void *target; /* struct kprof_kernel * */
    unsigned grid[3], block[3];
    unsigned kind; /* enum kprof_offset_kind */
};
/* The launches of one role read the cheap way (enum kprof_offset_role). */
struct cheap {
    uint64_t n;
    double sum, sq;            /* their durations and squares, ns, ns^2 */
    double applied;            /* what was taken off them as they were read (running offsets), ns */
    double settled;            /* what kprof_offsets_settle has taken off their kernel's total since, ns */
};
/* Launches measured in full (the references), each weighed by the launches it stands for: 1 for its
 * shape's first ones, 2^k for one drawn at the rate 1/(N x 2^k) (hold.h) */
struct refs {
    uint64_t n;
    double w, w2;   /* the sum of their weights and of its squares */
    double sum, sq; /* weighted sums of their durations and squares, ns, ns^2 */
};
struct offset {
    struct offset_key key;
    struct refs ref[2]; /* [0] its shape's first ones, [1] those drawn after them */
    unsigned char capped;   /* its kernel's draws brought back to 1 in N for it (kprof_hold_stop_thinning) */
    unsigned char sure;     /* a hold kind's entry whose references' mean is known closely (BLIND_REL_SE) */
    struct cheap cheap[KPROF_OFFSET_ROLES - 1]; /* by role, KPROF_OFFSET_CHEAP first */
    struct offset *next_dirty; /* on p->offsets_dirty: read from since the last settle */
    int dirty;
    UT_hash_handle hh;
};

/* The sample variance of n values of sum `sum` and sum of squares `sq` (0 below 2 values). */
static double variance(uint64_t n, double sum, double sq)
{
    if (n < 2)
        return 0.0;
    double v = (sq - sum * sum / (double)n) / (double)(n - 1);
    return v > 0.0 ? v : 0.0;
}

/* The weighted variance of r's durations (ns^2; 0 below 2 values), and in *neff their effective number,
 * (sum of weights)^2 / (sum of squared weights) (Kish), which is r->n when every weight is 1. */
static double weighted_variance(const struct refs *r, double *neff)
{
    *neff = r->w2 > 0.0 ? r->w * r->w / r->w2 : 0.0;
    if (r->n < 2 || *neff <= 1.0)
        return 0.0;
    double mean = r->sum / r->w, v = (r->sq / r->w - mean * mean) * *neff / (*neff - 1.0);
    return v > 0.0 ? v : 0.0;
}

/* The squared standard error of the weighted mean of r. */
static double weighted_se2(const struct refs *r)
{
    double neff, v = weighted_variance(r, &neff);
    return v > 0.0 ? v / neff : 0.0;
}

/* The references o's offset is learned from: those drawn once there are KPROF_HOLD_FIRST of them, until
 * then its shape's first launches too (offset_of). */
static struct refs refs_used(const struct offset *o)
{
    struct refs r = o->ref[1];
    if (r.n < KPROF_HOLD_FIRST) {
        r.n += o->ref[0].n;
        r.w += o->ref[0].w;
        r.w2 += o->ref[0].w2;
        r.sum += o->ref[0].sum;
        r.sq += o->ref[0].sq;
    }
    return r;
}

/* The standard error a mean of `mean` ns may keep: `rel` of it, or `abs` ns where that is no more than
 * `abs_max_rel` of it (thinning and blind reading each with their own). */
static double allowed_se(double mean, double rel, double abs, double abs_max_rel)
{
    return fmax(rel * fabs(mean), fmin(abs, abs_max_rel * fabs(mean)));
}

/* Brings the draws of o's kernel back to 1 in N when its references spread too widely for a thinned
 * sample (THIN_REL_SE): judged once KPROF_HOLD_THIN_AFTER / 2 have been drawn, which comes before a
 * shape's draws begin to thin unless the harvester lags far behind (a ThreadSanitizer build read 7,718
 * holds where 13,750 were due: the cap came after some thinning).  Harvest passes only. */
static void cap_if_spread(struct offset *o)
{
    if (o->capped || o->ref[1].n < KPROF_HOLD_THIN_AFTER / 2 || o->ref[1].w2 <= 0.0)
        return;
    const struct refs *r = &o->ref[1];
    double neff, mean = r->sum / r->w, var = weighted_variance(r, &neff);
    double allowed = allowed_se(mean, THIN_REL_SE, THIN_ABS_SE, THIN_ABS_MAX_REL);
    if (var / THIN_NEFF <= allowed * allowed)
        return;
    struct kprof_kernel *k = o->key.target;
    kprof_hold_stop_thinning(k->hold_shapes, KPROF_KERNEL_HOLD_SHAPES);
    o->capped = 1;
    kprof_debug("kernel %s (grid %u x %u x %u): its measured lengths spread too widely for a thinned sample "
                "(sd %.0f ns, mean %.0f ns): its draws for holds at 1 in %d from now on", k->name ? k->name : "?",
                o->key.grid[0], o->key.grid[1], o->key.grid[2], sqrt(var), mean,
                kprof_config.hold);
}

/* The offset learned for the cheap launches c (of `role`) of entry o: their mean less the references'
 * mean, d, or (KPROF_OFFSET_CHEAP) the part of d that makes the cheap launches' total the better of two
 * estimates, blended: their own readings (A: each launch's length, plus whatever its pair holds besides,
 * whose mean is the offset b to learn and whose spread, the jitter, is what the cheap launches spread
 * beyond the references) and their number times the references' mean (B: unbiased, as the references are
 * drawn among the same launches, but blind to the lengths of the launches it stands for).  Per launch,
 * A's mean squared error is b^2 + jitter variance / n, B's the references' squared standard error +
 * their variance / n; taken off, f d with f = MSE(A) / (MSE(A) + MSE(B)) weighs each estimate by the
 * other's error, with b^2 estimated as d^2 less d's own variance (0 at the least).  So a difference within
 * d's chance is mostly left on while the cheap launches read as closely as the references (lengths that
 * vary, no offset: A is exact), and taken off about whole when their readings spread wider than the
 * references' (a launch latency that varies: A holds it, B does not).  Until the twenty-third session the
 * whole of d or nothing, by a test of 2 standard errors: a bias under it (a kernel of few launches a shape
 * whose idle launches' latency varies, the H200's torch_decode: 20 to 54% over CUPTI's means) stayed in the
 * total, and d's noise included the cheap launches' jitter, which B does not carry.
 * KPROF_OFFSET_BLIND and KPROF_OFFSET_IDLE always take d off (their readings hold an idle stream's launch
 * call or the host's time before it: left on, an error of the total for sure); nothing when either has no
 * launch yet.  The references are those drawn among the same launches once there are KPROF_HOLD_FIRST of
 * them; until then the shape's first launches too (which may run apart from the rest: caches cold, a
 * length that grows over the run). */
static double offset_of(const struct offset *o, const struct cheap *c, enum kprof_offset_role role)
{
    struct refs r = refs_used(o);
    if (r.n == 0 || c->n == 0)
        return 0.0;
    double d = c->sum / (double)c->n - r.sum / r.w;
    if (role == KPROF_OFFSET_BLIND || role == KPROF_OFFSET_IDLE)
        return d;
    double n = (double)c->n, neff, vr = weighted_variance(&r, &neff), vc = variance(c->n, c->sum, c->sq);
    if (r.n < 2 || neff <= 1.0) /* the references' spread unknown: the cheap launches' at most */
        vr = vc, neff = 1.0;
    double se_r2 = neff > 0.0 ? vr / neff : vr;
    double b2 = fmax(0.0, d * d - se_r2 - vc / n);
    double mse_a = b2 + fmax(0.0, vc - vr) / n, mse_b = se_r2 + vr / n;
    return mse_a + mse_b > 0.0 ? d * mse_a / (mse_a + mse_b) : d;
}

/* Pair pr's entry for `kind`, made if need be; NULL when out of memory. */
static struct offset *offset_for(struct pool *p, const struct pair *pr, unsigned kind)
{
    struct offset_key key;
    memset(&key, 0, sizeof key); /* no padding left unset in the hashed bytes */
    key.target = pr->target;
    memcpy(key.grid, pr->grid, sizeof key.grid);
    memcpy(key.block, pr->block, sizeof key.block);
    key.kind = kind;
    struct offset *o;
    HASH_FIND(hh, p->offsets, &key, sizeof key, o);
    if (o)
        return o;
    o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->key = key;
    HASH_ADD(hh, p->offsets, key, sizeof key, o);
    struct offset *found;
    HASH_FIND(hh, p->offsets, &key, sizeof key, found);
    if (found != o) { /* uthash ran out of memory and did not add it */
        free(o);
        return NULL;
    }
    if (kind == KPROF_OFFSET_HELD || kind == KPROF_OFFSET_HELD_KERNEL) { /* not sure yet (judge_sure) */
        struct kprof_kernel *k = pr->target;
        k->blind_unsure[kind - 1]++;
        __atomic_store_n(&k->blind_ok[kind - 1], 0, __ATOMIC_RELAXED);
    }
    return o;
}

double kprof_offset_learn(struct pool *p, const struct pair *pr, unsigned kind, enum kprof_offset_role role,
                          double dur_ns, int *unlearned, struct offset **entry)
{
    *unlearned = 0;
    *entry = NULL;
    if (kind == 0 || pr->kind != KPROF_TARGET_KERNEL || !kprof_hold_sampled())
        return 0.0;
    struct offset *o = offset_for(p, pr, kind);
    if (!o) { /* out of memory: read without an offset */
        *unlearned = role != KPROF_OFFSET_REF;
        return 0.0;
    }
    *entry = o;
    if (!o->dirty) {
        o->dirty = 1;
        o->next_dirty = p->offsets_dirty;
        p->offsets_dirty = o;
    }
    if (role == KPROF_OFFSET_REF) {
        struct refs *r = &o->ref[!pr->early];
        double w = (double)(1u << (pr->thin & 31));
        r->n++;
        r->w += w;
        r->w2 += w * w;
        r->sum += w * dur_ns;
        r->sq += w * dur_ns * dur_ns;
        return 0.0;
    }
    struct cheap *c = &o->cheap[role - 1];
    c->n++;
    c->sum += dur_ns;
    c->sq += dur_ns * dur_ns;
    *unlearned = o->ref[0].n + o->ref[1].n == 0;
    return offset_of(o, c, role);
}

double kprof_offset_ref_mean(const struct offset *o)
{
    struct refs r = o ? refs_used(o) : (struct refs){ 0 };
    return r.n > 0 && r.w > 0.0 ? r.sum / r.w : -1.0;
}

void kprof_offset_applied(struct offset *o, enum kprof_offset_role role, double ns)
{
    if (o && role != KPROF_OFFSET_REF)
        o->cheap[role - 1].applied += ns;
}

/* Whether entry o's references' mean is now known closely enough (BLIND_REL_SE), its kernel's blind_ok
 * for its kind following; hold kinds only.  Harvest passes only. */
static void judge_sure(struct offset *o)
{
    if (o->key.kind != KPROF_OFFSET_HELD && o->key.kind != KPROF_OFFSET_HELD_KERNEL)
        return;
    struct refs r = refs_used(o);
    double mean = kprof_offset_ref_mean(o);
    double limit = allowed_se(mean, BLIND_REL_SE, BLIND_ABS_SE, BLIND_ABS_MAX_REL);
    int sure = r.n >= KPROF_HOLD_FIRST && mean > 0.0 && weighted_se2(&r) <= limit * limit;
    if (sure == o->sure)
        return;
    o->sure = (unsigned char)sure;
    struct kprof_kernel *k = o->key.target;
    unsigned i = o->key.kind - 1;
    k->blind_unsure[i] += sure ? -1u : 1u;
    __atomic_store_n(&k->blind_ok[i], (unsigned char)(k->blind_unsure[i] == 0), __ATOMIC_RELAXED);
}

void kprof_offsets_settle(struct pool *p)
{
    struct offset *o = p->offsets_dirty;
    p->offsets_dirty = NULL;
    for (; o; o = o->next_dirty) {
        o->dirty = 0;
        cap_if_spread(o);
        judge_sure(o);
        for (int r = 0; r < KPROF_OFFSET_ROLES - 1; r++) {
            struct cheap *c = &o->cheap[r];
            /* Over every launch of this role read so far: what the offset as learned now takes off, less
             * what was taken off as they were read and since. */
            double owed = (double)c->n * offset_of(o, c, (enum kprof_offset_role)(r + 1)) - c->applied;
            double delta = owed - c->settled;
            if (delta > -1.0 && delta < 1.0)
                continue;
            c->settled += delta;
            struct kprof_sample s;
            memset(&s, 0, sizeof s);
            s.kind = KPROF_TARGET_KERNEL;
            s.target = o->key.target;
            s.device = p->device;
            s.adjust = 1;
            s.adjust_ns = -delta;
            kprof_sample_record(&s);
        }
    }
}
