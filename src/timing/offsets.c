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
/* The entries of a kernel and kind that may lend their offset to a shape with no reference of its own
 * (struct joint_test's lenders, borrowed_offset): the first to reach KPROF_HOLD_FIRST references, at most
 * as many as a kernel has draw words and as many again (a bound on the harvester's work for a kernel of
 * thousands of shapes). */
#define LENDERS 48
/* How far apart in blocks (a factor) a shape's grid may be from that of the shape whose offset it borrows. */
#define BORROW_RATIO 2.0

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
    uint64_t no_reference;     /* of n, those counted in the events' unheld_no_reference (exit passes) */
};
/* Launches measured in full (the references), each weighed by the launches it stands for: 1 for its
 * shape's first ones, 2^k for one drawn at the rate 1/(N x 2^k) (hold.h) */
struct refs {
    uint64_t n;
    double w, w2;   /* the sum of their weights and of its squares */
    double sum, sq; /* weighted sums of their durations and squares, ns, ns^2 */
};
/* Over a kernel and kind's entries whose cheap launches (KPROF_OFFSET_CHEAP) and references have both been
 * read and differ within chance (joint_part), the sums of n d, n and n^2 se^2 (ns, launches, ns^2), n an
 * entry's cheap launches, d their mean less its references' and se d's standard error: their weighted
 * mean is the difference over every such launch of the kernel and kind (joint_holds). */
struct joint_sums {
    double nd, n, n2v;
};
struct offset {
    struct offset_key key;
    struct refs ref[2]; /* [0] its shape's first ones, [1] those drawn after them */
    unsigned char capped;   /* its kernel's draws brought back to 1 in N for it (kprof_hold_stop_thinning) */
    unsigned char sure;     /* a hold kind's entry whose references' mean is known closely (BLIND_REL_SE) */
    unsigned char word;     /* its shape's draw word + 1, once counted there (attach_word), else 0 */
    struct cheap cheap[KPROF_OFFSET_ROLES - 1]; /* by role, KPROF_OFFSET_CHEAP first */
    unsigned char lending;     /* on its joint test's lenders */
    struct offset *next_dirty; /* on p->offsets_dirty: read from since the last settle */
    int dirty;
    struct joint_sums part;    /* what it adds to its kernel and kind's joint test (joint_add) */
    struct joint_test *joint;  /* that joint test (NULL when out of memory) */
    struct offset *next_shape; /* the next entry of the same joint test */
    UT_hash_handle hh;
};
/* A kernel's shapes, for one kind of hold in a context: the joint test of those whose own difference is
 * within chance (offset_of, joint_holds). */
struct joint_key {
    void *target; /* struct kprof_kernel * */
    unsigned kind; /* enum kprof_offset_kind */
};
struct joint_test {
    struct joint_key key;
    struct joint_sums sum;
    int settled;            /* the answer its entries were last settled on (1 or 0) */
    int moved;              /* settle: its answer changed, its entries to be put on the dirty list */
    struct offset *shapes;  /* its entries, by next_shape */
    /* Its entries that reached KPROF_HOLD_FIRST references, the first LENDERS of them (made with the first;
     * NULL before, or when out of memory) */
    struct offset **lenders;
    unsigned nlenders;
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

/* The difference d between the cheap launches c of entry o and its references (their means, ns) and d's
 * squared standard error (lengths that vary from launch to launch make the two means differ by chance).
 * 0 when either has no launch yet. */
static int difference(const struct offset *o, const struct cheap *c, double *d, double *se2)
{
    struct refs r = refs_used(o);
    if (r.n == 0 || c->n == 0)
        return 0;
    *d = c->sum / (double)c->n - r.sum / r.w;
    *se2 = weighted_se2(&r) + variance(c->n, c->sum, c->sq) / (double)c->n;
    return 1;
}

/* Entry o's part of its kernel and kind's joint difference: its cheap launches' difference from its
 * references, weighed by their number, while that is within 2 standard errors of 0; nothing beyond
 * them, or while either has no launch. */
static struct joint_sums joint_part(const struct offset *o)
{
    struct joint_sums part = { 0 };
    const struct cheap *c = &o->cheap[KPROF_OFFSET_CHEAP - 1];
    double d, se2, n = (double)c->n;
    if (difference(o, c, &d, &se2) && d * d <= 4.0 * se2) {
        part.nd = n * d;
        part.n = n;
        part.n2v = n * n * se2;
    }
    return part;
}

/* Brings entry o's part of its joint test up to date (after its references or cheap launches
 * changed: kprof_offsets_settle, for the entries read since the last pass). */
static void joint_add(struct offset *o)
{
    if (!o->joint)
        return;
    struct joint_sums *q = &o->joint->sum, part = joint_part(o);
    q->nd += part.nd - o->part.nd;
    q->n += part.n - o->part.n;
    q->n2v += part.n2v - o->part.n2v;
    o->part = part;
}

/* Whether the differences of the shapes of joint test q (NULL: none) that are each within chance are, weighed
 * by their cheap launches, more than 2 standard errors above 0 together; *mean and *se: their weighted
 * mean and its standard error (ns; 0 with no such shape).  Above only: what the test is for, a latency,
 * adds time; and the shapes within chance are a one-sided lot where lengths are skewed (say every 5th
 * launch 50 times as long, no latency): a shape whose references caught more of the long launches than
 * their share reads a large negative difference with a wide standard error (within chance), one whose
 * references missed them a large positive one with a narrow error (beyond chance on its own, left out),
 * so that pooled, the first kind passed the test below 0 (a helper's case: 1 to 3 seeds in 40 held,
 * 10 to 20 in 30 behind copies, the kernel then 10 to 40% long). */
static int joint_holds(const struct joint_test *q, double *mean, double *se)
{
    *mean = *se = 0.0;
    if (!q || q->sum.n < 1.0)
        return 0;
    *mean = q->sum.nd / q->sum.n;
    *se = sqrt(q->sum.n2v) / q->sum.n;
    return *mean > 2.0 * *se;
}

/* The offset entry o learned for its cheap launches c (of `role`): their mean less the references'
 * mean, d, where d is beyond 2 standard errors of 0 (lengths that vary from launch to launch make the two
 * means differ by chance; taken off, that chance would become an error of the total) or, for
 * KPROF_OFFSET_CHEAP, where the differences of its kernel's shapes (of its kind) that are each within
 * chance are above it together (joint_holds); else 0.  KPROF_OFFSET_BLIND and KPROF_OFFSET_IDLE always
 * take d off (their readings hold an idle stream's launch call or the host's time before it: left on, an
 * error of the total for sure).  Nothing when either has no launch yet.
 *
 * The joint test came in the twenty-third session: a kernel with tens of launches a shape (8 to 12
 * references), whose idle launches' latency varies from launch to launch (which swells d's standard
 * error), kept an offset of 0.3 to 0.5 us in its total (the H200's torch_decode: its small kernels 20 to
 * 54% over CUPTI's means).  Over a kernel's shapes such an offset is beyond chance sooner, while lengths
 * that vary by chance give differences of either sign.  Taken off, each shape's cheap launches read as its
 * references' mean, as a shape beyond chance on its own does.  Tried first and not kept (helpers set to
 * break them found each): a share of d by how much wider the cheap launches' readings spread than the
 * references' (skewed lengths, say every 5th launch 50 times as long: a group's mean and spread move
 * together, and the share followed d's sign, totals up to 24% short where this test was exact); one offset
 * pooled over every kernel of the context, with the pooled spread of cheap readings as the floor of d's
 * standard error (one kernel's latency or chance difference landed on another's exact readings: 0 to 3
 * times their total); and the offset pooled over a kernel's shapes, taken by each shape within chance of
 * it (a large grid's real offset, pooled with a small grid's noisy 0, landed on the small one: 5 to 42%
 * short).
 * The references are those drawn among the same launches once there are KPROF_HOLD_FIRST of them; until
 * then the shape's first launches too (which may run apart from the rest: caches cold, a length that
 * grows over the run). */
static double own_offset(const struct offset *o, const struct cheap *c, enum kprof_offset_role role)
{
    double d, se2, mean, se;
    if (!difference(o, c, &d, &se2))
        return 0.0;
    if (role == KPROF_OFFSET_BLIND || role == KPROF_OFFSET_IDLE || d * d > 4.0 * se2)
        return d;
    return role == KPROF_OFFSET_CHEAP && joint_holds(o->joint, &mean, &se) ? d : 0.0;
}

/* The blocks of entry o's grid (at least 1). */
static double grid_blocks(const struct offset *o)
{
    double b = (double)o->key.grid[0] * (double)o->key.grid[1] * (double)o->key.grid[2];
    return b >= 1.0 ? b : 1.0;
}

/* Whether entry x (a lender: struct joint_test's lenders) can lend entry o its offset of role `role`
 * (borrowed_offset): another shape of the same block whose grid is within BORROW_RATIO of o's in blocks,
 * with KPROF_HOLD_FIRST references and 2 launches of that role or more, so that its offset is its own
 * shape's latency and not one launch's chance length (a lender of 1 reference and 1 launch has a standard
 * error of 0, any difference beyond it: a helper's case of lengths that vary, 1,000 shapes of 3 launches,
 * read -39 to +57% where no lending read +12 to +14%). */
static int can_lend(const struct offset *x, const struct offset *o, enum kprof_offset_role role)
{
    double ratio = grid_blocks(x) / grid_blocks(o);
    return x != o && x->cheap[role - 1].n >= 2 && refs_used(x).n >= KPROF_HOLD_FIRST && ratio <= BORROW_RATIO &&
           ratio >= 1.0 / BORROW_RATIO && memcmp(x->key.block, o->key.block, sizeof o->key.block) == 0;
}

/* For entry o, none of whose shape's launches has been measured in full (a shape past its kernel's draw
 * words, whose launches are drawn 1 in N on a count they share: hold.h; or one whose launches so far all
 * came before its first reference was read), the offset of role `role` of the lender of its kernel and
 * kind nearest in blocks that can lend it (can_lend): the launch latency an offset takes off follows the
 * grid (a large grid arrives later), not the kernel's length.  *found: 0 when there is none (then no
 * offset, as before the forty-fifth session for every such entry: `preds pastwords`, 30 shapes of which
 * the 6 past the 24 words got one reference or none, read +17 to +34%,
 * tests/shapes-past-the-draw-words-borrow-a-near-offset.sh). */
static double borrowed_offset(const struct offset *o, enum kprof_offset_role role, int *found)
{
    const struct offset *best = NULL;
    double blocks = grid_blocks(o), nearest = 0.0;
    for (unsigned i = 0; o->joint && i < o->joint->nlenders; i++) {
        const struct offset *x = o->joint->lenders[i];
        double far = fabs(log(grid_blocks(x) / blocks));
        if (can_lend(x, o, role) && (!best || far < nearest)) {
            best = x;
            nearest = far;
        }
    }
    *found = best != NULL;
    return best ? own_offset(best, &best->cheap[role - 1], role) : 0.0;
}

/* The offset taken off the launches c (of `role`) of entry o: its own (own_offset), or where it has no
 * reference, one borrowed from another shape of its kernel (borrowed_offset); *found 0 when it has none
 * and none could be borrowed (found may be NULL). */
static double offset_of(const struct offset *o, const struct cheap *c, enum kprof_offset_role role, int *found)
{
    int lent = 1;
    double d = refs_used(o).n == 0 ? borrowed_offset(o, role, &lent) : own_offset(o, c, role);
    if (found)
        *found = lent;
    return d;
}

/* Sets `out` to the item of uthash table `head` (items with a field `key` and a handle `hh`) whose key is
 * *k, adding a zeroed one with that key if need be (`added` set to 1 then, else 0); NULL when out of
 * memory. */
#define FIND_OR_ADD(head, k, out, added)                                                                      \
    do {                                                                                                     \
        (added) = 0;                                                                                         \
        HASH_FIND(hh, head, k, sizeof *(k), out);                                                            \
        if (!(out) && ((out) = calloc(1, sizeof *(out))) != NULL) {                                         \
            __typeof__(out) found_;                                                                          \
            (out)->key = *(k);                                                                               \
            HASH_ADD(hh, head, key, sizeof *(k), out);                                                       \
            HASH_FIND(hh, head, k, sizeof *(k), found_);                                                     \
            if (found_ != (out)) { /* uthash ran out of memory and did not add it */                         \
                free(out);                                                                                   \
                (out) = NULL;                                                                                \
            } else {                                                                                         \
                (added) = 1;                                                                                 \
            }                                                                                                \
        }                                                                                                    \
    } while (0)

/* The draw word (struct kprof_kernel's hold_shapes) of entry o's shape in the situation of its kind of hold,
 * as its launches draw it (timing.c, begin_take_events; not behind a short backlog, whose word no entry
 * of a kind of hold learns from), or -1 (a shape past the kernel's words). */
static int shape_word(const struct offset *o)
{
    const struct kprof_kernel *k = o->key.target;
    uint32_t key = kprof_hold_shape_key(o->key.grid[0], o->key.grid[1], o->key.grid[2], o->key.block[0],
                                        o->key.block[1], o->key.block[2]) ^
                   (o->key.kind == KPROF_OFFSET_HELD_KERNEL ? KPROF_HOLD_COPY_KEY : 0);
    return kprof_hold_word_of(k->hold_shapes, KPROF_KERNEL_HOLD_SHAPES, key);
}

/* Adds delta (1, 0 or -1u) to a count of entries not yet sure (struct kprof_kernel's blind_unsure or
 * hold_unsure), and sets its flag (blind_ok, hold_sure) to whether none is left (atomic: the launching
 * threads read it).  Harvest passes only. */
static void unsure_add(unsigned *unsure, unsigned char *ok, unsigned delta)
{
    *unsure += delta;
    __atomic_store_n(ok, (unsigned char)(*unsure == 0), __ATOMIC_RELAXED);
}

/* Entry o (a kind of hold's) counted in its shape's draw word (struct kprof_kernel's hold_unsure, hold_sure)
 * once that word is found: a shape's first launches may come before its kernel draws (the hold's
 * calibration), so its entry may be made before the word is claimed.  Harvest passes only. */
static void attach_word(struct offset *o)
{
    if (o->word)
        return;
    int w = shape_word(o);
    if (w < 0)
        return;
    struct kprof_kernel *k = o->key.target;
    o->word = (unsigned char)(w + 1);
    unsure_add(&k->hold_unsure[w], &k->hold_sure[w], !o->sure);
}

/* Pair pr's entry for `kind`, made if need be (with its joint test, its kernel and kind's); NULL when out
 * of memory. */
static struct offset *offset_for(struct pool *p, const struct pair *pr, unsigned kind)
{
    struct offset_key key;
    memset(&key, 0, sizeof key); /* no padding left unset in the hashed bytes */
    key.target = pr->target;
    memcpy(key.grid, pr->grid, sizeof key.grid);
    memcpy(key.block, pr->block, sizeof key.block);
    key.kind = kind;
    struct offset *o;
    int added;
    FIND_OR_ADD(p->offsets, &key, o, added);
    if (!o || !added)
        return o;
    struct joint_key qkey;
    memset(&qkey, 0, sizeof qkey);
    qkey.target = pr->target;
    qkey.kind = kind;
    FIND_OR_ADD(p->joints, &qkey, o->joint, added);
    if (o->joint) {
        o->next_shape = o->joint->shapes;
        o->joint->shapes = o;
    }
    if (kind == KPROF_OFFSET_HELD || kind == KPROF_OFFSET_HELD_KERNEL) { /* not sure yet (judge_sure) */
        struct kprof_kernel *k = pr->target;
        unsure_add(&k->blind_unsure[kind - 1], &k->blind_ok[kind - 1], 1);
        attach_word(o);
    }
    return o;
}

/* Puts entry o on p's dirty list, if not there yet. */
static void mark_dirty(struct pool *p, struct offset *o)
{
    if (o->dirty)
        return;
    o->dirty = 1;
    o->next_dirty = p->offsets_dirty;
    p->offsets_dirty = o;
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
    mark_dirty(p, o);
    if (role == KPROF_OFFSET_REF) {
        struct refs *r = &o->ref[!pr->early];
        double w = (double)(1u << (pr->thin & 31));
        r->n++;
        r->w += w;
        r->w2 += w * w;
        r->sum += w * dur_ns;
        r->sq += w * dur_ns * dur_ns;
        struct joint_test *q = o->joint;
        if (q && !o->lending && o->ref[0].n + o->ref[1].n >= KPROF_HOLD_FIRST && q->nlenders < LENDERS &&
            (q->lenders || (q->lenders = calloc(LENDERS, sizeof *q->lenders)) != NULL)) {
            q->lenders[q->nlenders++] = o;
            o->lending = 1;
        }
        return 0.0;
    }
    struct cheap *c = &o->cheap[role - 1];
    c->n++;
    c->sum += dur_ns;
    c->sq += dur_ns * dur_ns;
    *unlearned = o->ref[0].n + o->ref[1].n == 0;
    return offset_of(o, c, role, NULL);
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

void kprof_offset_forget(struct offset *o, const struct pair *pr, enum kprof_offset_role role, double dur_ns,
                         double applied_ns)
{
    if (!o)
        return;
    if (role == KPROF_OFFSET_REF) {
        struct refs *r = &o->ref[!pr->early];
        double w = (double)(1u << (pr->thin & 31));
        if (r->n == 0)
            return;
        r->n--;
        r->w -= w;
        r->w2 -= w * w;
        r->sum -= w * dur_ns;
        r->sq -= w * dur_ns * dur_ns;
        if (r->n == 0) /* no rounding left behind */
            r->w = r->w2 = r->sum = r->sq = 0.0;
        return;
    }
    struct cheap *c = &o->cheap[role - 1];
    if (c->n == 0)
        return;
    c->n--;
    c->sum -= dur_ns;
    c->sq -= dur_ns * dur_ns;
    c->applied -= applied_ns;
    if (c->n == 0)
        c->sum = c->sq = 0.0; /* what was applied and settled stays: the totals hold it */
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
    attach_word(o);
    if (sure == o->sure)
        return;
    o->sure = (unsigned char)sure;
    struct kprof_kernel *k = o->key.target;
    unsigned i = o->key.kind - 1;
    unsure_add(&k->blind_unsure[i], &k->blind_ok[i], sure ? -1u : 1u);
    if (o->word) {
        unsigned w = o->word - 1u;
        unsure_add(&k->hold_unsure[w], &k->hold_sure[w], sure ? -1u : 1u);
    }
}

/* Every entry of joint test q on p's dirty list, q's sums taken afresh from its entries (no rounding
 * left over from the updates), and its answer taken as settled on. */
static void dirty_shapes(struct pool *p, struct joint_test *q)
{
    memset(&q->sum, 0, sizeof q->sum);
    for (struct offset *o = q->shapes; o; o = o->next_shape) {
        memset(&o->part, 0, sizeof o->part);
        joint_add(o);
        mark_dirty(p, o);
    }
    double mean, se;
    q->settled = joint_holds(q, &mean, &se);
}

/* KPROF_LOG=debug: each kernel and kind in p whose joint test holds (the exit drain's). */
static void log_joint(const struct pool *p)
{
    static const char *const kinds[KPROF_OFFSET_KINDS] = { "", "held", "held behind a copy", "gap" };
    for (const struct joint_test *q = p->joints; q; q = q->hh.next) {
        double mean, se;
        const struct kprof_kernel *k = q->key.target;
        if (joint_holds(q, &mean, &se))
            kprof_debug("device %d: kernel %s (%s): the unheld launches of its shapes each within chance read "
                        "%.0f ns +- %.0f over their shapes' drawn ones together, %.0f of them: their offsets "
                        "taken off", p->device, k->name ? k->name : "?", kinds[q->key.kind], mean, se, q->sum.n);
    }
}

void kprof_offsets_settle(struct pool *p, int all)
{
    if (all) {
        for (struct joint_test *q = p->joints; q; q = q->hh.next)
            dirty_shapes(p, q);
        log_joint(p);
    } else {
        /* A joint test changes only as its entries are read, so any whose answer changed since it was last
         * settled has an entry on the list: all its entries join them.  (Their parts are brought up to date
         * here, once a pass, not at each reading: the harvester's pace decides which launches are drawn
         * behind a short backlog.) */
        for (struct offset *o = p->offsets_dirty; o; o = o->next_dirty)
            joint_add(o);
        for (struct offset *o = p->offsets_dirty; o; o = o->next_dirty) {
            struct joint_test *q = o->joint;
            double mean, se;
            if (q && !q->moved && joint_holds(q, &mean, &se) != q->settled)
                q->moved = 1;
        }
        for (struct offset *o = p->offsets_dirty; o; o = o->next_dirty)
            if (o->joint && o->joint->moved) {
                o->joint->moved = 0;
                dirty_shapes(p, o->joint); /* adds at the list's head: those are settled below too */
            }
    }
    struct offset *o = p->offsets_dirty;
    p->offsets_dirty = NULL;
    for (; o; o = o->next_dirty) {
        o->dirty = 0;
        cap_if_spread(o);
        judge_sure(o);
        /* The roles' adjustments go to the total as one: apart, one role's taking off could come before
         * another's adding back and be clamped at 0 on a total that does not hold it yet (kprof_ns_adjust
         * carries what it cannot take, but only to the next adjustment). */
        double adjust = 0.0;
        for (int r = 0; r < KPROF_OFFSET_ROLES - 1; r++) {
            struct cheap *c = &o->cheap[r];
            int found;
            double off = offset_of(o, c, (enum kprof_offset_role)(r + 1), &found);
            if (all && !found && c->n > c->no_reference) {
                /* Read without an offset, and none learned or borrowed by the end: the events say how many. */
                pthread_mutex_lock(&kprof_ev.lock);
                kprof_ev.n.unheld_no_reference += (long)(c->n - c->no_reference);
                pthread_mutex_unlock(&kprof_ev.lock);
                c->no_reference = c->n;
            }
            /* Over every launch of this role read so far: what the offset as learned now takes off, less
             * what was taken off as they were read and since. */
            double owed = (double)c->n * off - c->applied;
            double delta = owed - c->settled;
            /* Below a ns, left to a later pass; but the last pass settles every fraction (the totals add
             * them up, kprof_kernel_adjust). */
            if (delta == 0.0 || (!all && delta > -1.0 && delta < 1.0))
                continue;
            c->settled += delta;
            adjust -= delta;
        }
        if (adjust != 0.0) {
            struct kprof_sample s;
            memset(&s, 0, sizeof s);
            s.kind = KPROF_TARGET_KERNEL;
            s.target = o->key.target;
            s.device = p->device;
            s.adjust = 1;
            s.adjust_ns = adjust;
            kprof_sample_record(&s);
        }
    }
}
