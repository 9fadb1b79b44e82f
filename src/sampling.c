/* sampling.c: KPROF_SAMPLE=auto: which launches are timed, and the estimate each kernel's total gets. */
#include <math.h>
#include <unistd.h>
#include "sampling.h"
#include "clock.h"
#include "kernels.h"
#include "kprof_config.h"

__thread float kprof_tls_sample_weight __attribute__((tls_model("initial-exec"))) = 1.0f;

#define WINDOW_NS 100000000ull /* the budget's demand is measured over 100 ms */
#define FACTOR_ONE (1ull << 32) /* the budget's factor f, in 32-bit fixed point */

static struct {
    uint64_t seed;
    uint64_t window_start_ns; /* atomic */
    uint64_t demand;          /* launches that passed the per-kernel draw in this window (atomic) */
    uint64_t factor;          /* f x FACTOR_ONE (atomic) */
} budget = { 0, 0, 0, FACTOR_ONE };

/* splitmix64's finaliser (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014). */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* FNV-1a of a kernel's mangled name, never 0 (0 marks "not computed yet"). */
static uint64_t name_hash(struct kprof_kernel *k)
{
    uint64_t h = __atomic_load_n(&k->name_hash, __ATOMIC_RELAXED);
    if (h)
        return h;
    h = 0xcbf29ce484222325ull;
    for (const unsigned char *c = (const unsigned char *)(k->mangled ? k->mangled : ""); *c; c++)
        h = (h ^ *c) * 0x100000001b3ull;
    h |= 1;
    __atomic_store_n(&k->name_hash, h, __ATOMIC_RELAXED);
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

int kprof_sample_auto(struct kprof_kernel *k)
{
    kprof_tls_sample_weight = 1.0f;
    if (k->is_graph)
        return 1; /* a graph replay's time is never extrapolated */
    uint64_t i = __atomic_fetch_add(&k->seq, 1, __ATOMIC_RELAXED);
    if (i == 0) {
        demand_one();
        return 1;
    }
    double pk = i < KPROF_AUTO_WARMUP ? 1.0 : (double)KPROF_AUTO_WARMUP / (double)(i + 1);
    if (pk < KPROF_AUTO_FLOOR)
        pk = KPROF_AUTO_FLOOR;
    /* u uniform in [0, 1) from the top 53 bits of the hash. */
    double u = (double)(mix(budget.seed ^ mix(name_hash(k) + i)) >> 11) * 0x1.0p-53;
    if (u >= pk)
        return 0;
    demand_one();
    double p = pk * (double)__atomic_load_n(&budget.factor, __ATOMIC_RELAXED) / (double)FACTOR_ONE;
    if (u >= p)
        return 0;
    kprof_tls_sample_weight = (float)(1.0 / p);
    return 1;
}

void kprof_sample_weigh(struct kprof_kernel *k, uint64_t ns, double weight)
{
    double x = (double)ns, w = weight >= 1.0 ? weight : 1.0;
    double c = (w - 1.0) * w; /* (1 - p) / p^2 */
    k->w_sum += w;
    k->wx_sum += w * x;
    k->c_sum += c;
    k->cx_sum += c * x;
    k->cx2_sum += c * x * x;
}

void kprof_sample_estimate(struct kprof_kernel *k)
{
    uint64_t direct = kprof_kernel_direct(k);
    k->estimated = 0;
    if (kprof_config.sample != 0 || k->is_graph || k->w_sum <= 0.0 || k->timed >= direct)
        return;
    double scale = (double)direct / k->w_sum, m = k->wx_sum / k->w_sum;
    /* The design's variance from the timed launches' own spread around m, or, when fewer heavy launches
     * carry most of the weight (the budget thinned them), the spread of all timed launches (Welford's s^2
     * over those after the first) times the weights' sum of c: a few launches that happen to agree must
     * not make the interval narrow. */
    double v = k->cx2_sum - 2.0 * m * k->cx_sum + m * m * k->c_sum;
    uint64_t n = k->timed - (uint64_t)k->first_timed;
    double s2 = n > 1 ? k->m2 / (double)(n - 1) : 0.0;
    if (s2 * k->c_sum > v)
        v = s2 * k->c_sum;
    k->est_total_ns = scale * k->wx_sum;
    k->est_ci95_ns = v > 0.0 ? 1.96 * scale * sqrt(v) : 0.0;
    k->estimated = 1;
}

void kprof_sampling_init(void)
{
    if (kprof_config.seed == 0)
        kprof_config.seed = (long)((mix(kprof_now_ns() ^ ((uint64_t)getpid() << 32)) >> 2) | 1);
    budget.seed = (uint64_t)kprof_config.seed;
    budget.window_start_ns = kprof_now_ns();
}
