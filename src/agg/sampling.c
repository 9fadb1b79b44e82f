/* sampling.c: KPROF_SAMPLE=auto: which launches are timed, and the estimate each kernel's total gets. */
#include <math.h>
#include <unistd.h>
#include "sampling.h"
#include "clock.h"
#include "kprof_config.h"
#include "log.h"
#include "kprof_hash.h"

__thread float kprof_tls_sample_weight __attribute__((tls_model("initial-exec"))) = 1.0f;
__thread void *kprof_tls_sample_first __attribute__((tls_model("initial-exec")));
__thread unsigned kprof_tls_seq_shard __attribute__((tls_model("initial-exec")));

unsigned kprof_seq_shard_assign(void)
{
    static unsigned next;
    unsigned shard = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED) % KPROF_SEQ_SHARDS + 1;
    kprof_tls_seq_shard = shard;
    return shard;
}

#define WINDOW_NS 100000000ull /* the budget's demand is measured over 100 ms */
#define FACTOR_ONE (1ull << 32) /* the budget's factor f, in 32-bit fixed point */

static struct {
    uint64_t seed;
    uint64_t window_start_ns; /* atomic */
    uint64_t demand;          /* launches that passed the per-kernel draw in this window (atomic) */
    uint64_t factor;          /* f x FACTOR_ONE (atomic) */
} budget = { 0, 0, 0, FACTOR_ONE };

/* FNV-1a of a kernel's mangled name, never 0 (0 marks "not computed yet"). */
static uint64_t name_hash(struct kprof_sampling *s, const char *mangled)
{
    uint64_t h = __atomic_load_n(&s->name_hash, __ATOMIC_RELAXED);
    if (h)
        return h;
    h = 0xcbf29ce484222325ull;
    for (const unsigned char *c = (const unsigned char *)(mangled ? mangled : ""); *c; c++)
        h = (h ^ *c) * 0x100000001b3ull;
    h |= 1;
    __atomic_store_n(&s->name_hash, h, __ATOMIC_RELAXED);
    return h;
}

/* Counts one launch that passed its kernel's draw; every 64th looks at the clock and, once a window has
 * passed, sets f from the window's demand. */
static void demand_one(void)
{
    if (__atomic_add_fetch(&budget.demand, 1, __ATOMIC_RELAXED) % 64 != 0)
        return;
    uint64_t now = kprof_now_ns();
    uint64_t start = __atomic_load_n(&budget.window_start_ns, __ATOMIC_RELAXED);
    if (now - start < WINDOW_NS ||
        !__atomic_compare_exchange_n(&budget.window_start_ns, &start, now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return;
    uint64_t demand = __atomic_exchange_n(&budget.demand, 0, __ATOMIC_RELAXED);
    double rate = (double)demand * 1e9 / (double)(now - start);
    double f = rate > (double)kprof_config.sample_budget ? (double)kprof_config.sample_budget / rate : 1.0;
    __atomic_store_n(&budget.factor, (uint64_t)(f * (double)FACTOR_ONE), __ATOMIC_RELAXED);
}

int kprof_sample_auto(struct kprof_sampling *s, const char *mangled, uint64_t i, unsigned shard)
{
    kprof_tls_sample_weight = 1.0f;
    if (i == 0) {
        demand_one();
        return 1;
    }
    uint64_t w = __atomic_load_n(&s->warmup, __ATOMIC_RELAXED);
    if (w < KPROF_AUTO_WARMUP)
        w = KPROF_AUTO_WARMUP;
    double pk = i < w ? 1.0 : (double)w / (double)(i + 1);
    if (pk < KPROF_AUTO_FLOOR)
        pk = KPROF_AUTO_FLOOR;
    /* u uniform in [0, 1) from the top 53 bits of the hash. */
    double u = (double)(kprof_mix64(budget.seed ^ kprof_mix64(name_hash(s, mangled) + i + ((uint64_t)shard << 48))) >> 11) * 0x1.0p-53;
    if (u >= pk)
        return 0;
    demand_one();
    double p = pk * (double)__atomic_load_n(&budget.factor, __ATOMIC_RELAXED) / (double)FACTOR_ONE;
    if (u >= p)
        return 0;
    kprof_tls_sample_weight = (float)(1.0 / p);
    return 1;
}

void kprof_sample_warmup(struct kprof_sampling *s, uint64_t n, double cv2)
{
    if (n < 20 || !(cv2 >= 0.0))
        return;
    double w = 1.96 * 1.96 * cv2 / (2.0 * KPROF_AUTO_HALF_WIDTH * KPROF_AUTO_HALF_WIDTH);
    uint32_t v = w >= KPROF_AUTO_WARMUP_MAX ? KPROF_AUTO_WARMUP_MAX
                 : w <= KPROF_AUTO_WARMUP   ? KPROF_AUTO_WARMUP
                                            : (uint32_t)ceil(w);
    __atomic_store_n(&s->warmup, v, __ATOMIC_RELAXED);
}

void kprof_sample_weigh(struct kprof_sampling *s, uint64_t ns, double weight)
{
    double x = (double)ns, w = weight >= 1.0 ? weight : 1.0;
    double c = (w - 1.0) * w; /* (1 - p) / p^2 */
    s->n++;
    s->w_sum += w;
    s->wx_sum += w * x;
    s->c_sum += c;
    s->cx_sum += c * x;
    s->cx2_sum += c * x * x;
}

int kprof_sample_estimate(const struct kprof_sampling *s, uint64_t direct, double s2, double *total_ns,
                          double *ci95_ns)
{
    if (s->w_sum <= 0.0)
        return 0;
    double scale = (double)direct / s->w_sum, m = s->wx_sum / s->w_sum;
    /* The design's variance from the timed launches' own spread around m, or, when a few heavy launches
     * carry most of the weight (the budget thinned them), s2 times the weights' sum of c: a few launches
     * that happen to agree must not make the interval narrow. */
    double v = s->cx2_sum - 2.0 * m * s->cx_sum + m * m * s->c_sum;
    if (s2 * s->c_sum > v)
        v = s2 * s->c_sum;
    /* Nor narrower than a simple random sample of as many launches would make it: launches not weighed
     * whose odds were small (the budget's factor fell after the weighed ones, all of weight 1) add nothing
     * to either sum above, yet the estimate holds them at the weighed ones' mean. */
    double n = (double)s->n, N = (double)direct;
    double floor = direct > s->n ? s2 * s->w_sum * s->w_sum * (N - n) / (N * n) : 0.0;
    if (floor > v)
        v = floor;
    if (v <= 1e-12 * m * m * s->c_sum) /* rounding left by the expansion of (x - m)^2 when every x is m */
        v = 0.0;
    *total_ns = scale * s->wx_sum;
    *ci95_ns = v > 0.0 ? 1.96 * scale * sqrt(v) : 0.0;
    if (s->n < 2 && direct > s->n) /* one launch weighed: nothing is known of the spread */
        *ci95_ns = *total_ns;
    return 1;
}

void kprof_sampling_init(void)
{
    if (kprof_config.seed == 0) {
        /* Below 2^53: JSON readers that hold numbers as doubles (jq 1.6, JavaScript) read it back exactly. */
        kprof_config.seed = (long)((kprof_mix64(kprof_now_ns() ^ ((uint64_t)getpid() << 32)) >> 11) | 1);
        kprof_debug("KPROF_SEED=0: the draws' seed picked is %ld (the report gives it too)", kprof_config.seed);
    }
    budget.seed = (uint64_t)kprof_config.seed;
    budget.window_start_ns = kprof_now_ns();
}
