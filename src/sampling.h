/* sampling.h: KPROF_SAMPLE=auto, the adaptive choice of which kernel launches to time, and the estimate of
 * a sampled kernel's total with its 95% interval. */
#ifndef KPROF_SAMPLING_H
#define KPROF_SAMPLING_H

#include <stdint.h>

/* Launches of a kernel timed every time before its sampling starts thinning (its first always is), at
 * least; a kernel whose lengths spread more is timed longer (struct kprof_sampling's warmup). */
#define KPROF_AUTO_WARMUP 100
/* The most a kernel's spread can raise its warm-up to. */
#define KPROF_AUTO_WARMUP_MAX 4096
/* The half-width of the 95% interval, as a share of the total, that a kernel's warm-up is chosen to keep
 * its estimate within (issue 13 asks for 5% once 100 launches are timed; some margin for the spread's own
 * estimate). */
#define KPROF_AUTO_HALF_WIDTH 0.04
/* The least probability of timing a launch once a kernel has warmed up (before the budget's factor). */
#define KPROF_AUTO_FLOOR (1.0 / 128.0)

/* One kernel's sampling state, a member of its aggregate (struct kprof_kernel). */
struct kprof_sampling {
    uint64_t name_hash;        /* hash of the kernel's mangled name; 0 until computed (atomic) */
    double w_sum, wx_sum;      /* over timed launches: sums of 1/p and of x/p (the kernels' times lock) */
    double c_sum, cx_sum, cx2_sum; /* sums of c, c x and c x^2, c = (1 - p) / p^2 */
    uint64_t n;                /* timed launches weighed */
    uint32_t warmup;           /* W, the launches timed every time before thinning: KPROF_AUTO_WARMUP, or
                                * more as the kernel's measured spread asks (kprof_sample_warmup; atomic,
                                * 0 until set) */
};

/* 1/p of the last launch kprof_sample_auto chose to time on this thread (p: the probability it had of being
 * timed); read by kprof_timing_end when it queues that launch's pair. */
extern __thread float kprof_tls_sample_weight __attribute__((tls_model("initial-exec")));
/* KPROF_SAMPLE=N: the kernel whose launch number 0 (its first to reach the sampling decision, always timed)
 * this thread drew last, until kprof_kernel_count takes it: that launch is the kernel's first, whichever
 * launch another thread counts before it (an untimed one on another thread may finish first). */
extern __thread void *kprof_tls_sample_first __attribute__((tls_model("initial-exec")));
/* KPROF_SAMPLE=N's and auto's launch counters (struct kprof_kernel's seq): KPROF_SEQ_SHARDS of them, one
 * cache line (KPROF_CACHE_LINE bytes) each; a launching thread counts in shard kprof_tls_seq_shard - 1
 * (kprof_seq_shard_assign), threads past KPROF_SEQ_SHARDS sharing them in turn. */
#define KPROF_CACHE_LINE 64
#define KPROF_SEQ_SHARDS 8
struct kprof_seq_shard {
    uint64_t n;       /* launches of the kernel this shard's threads offered for timing (atomic) */
    uint64_t untimed; /* KPROF_SAMPLE=auto: of them, those left untimed that succeeded (atomic) */
    uint64_t due;     /* KPROF_SAMPLE=N: no multiple of N lies below it among the numbers still to come from
                       * n, so a launch numbered below it is untimed without a division (atomic; read before
                       * n's number is taken: kprof_sample_this) */
    char pad[KPROF_CACHE_LINE - 3 * sizeof(uint64_t)];
};

/* KPROF_SAMPLE=N and auto: 1 + the shard of struct kprof_kernel's launch counters this thread counts in,
 * 0 until its first sampled launch, when kprof_seq_shard_assign gives it the next shard in turn (threads
 * past KPROF_SEQ_SHARDS share them) and returns it.  Thread-safe. */
extern __thread unsigned kprof_tls_seq_shard __attribute__((tls_model("initial-exec")));
unsigned kprof_seq_shard_assign(void);

/* KPROF_SAMPLE=auto: 1 when this launch of the kernel named `mangled` is to be timed.  Launch number i
 * (from 0; counted in shard `shard`, 0 to KPROF_SEQ_SHARDS - 1, a launching thread's, so that threads
 * launching one kernel share no counter: kprof_sample_auto_this) is timed with probability
 * p = min(1, max(W / (i + 1), KPROF_AUTO_FLOOR)) x f, number 0 always (p = 1), where W is the kernel's
 * warm-up (struct kprof_sampling's warmup, at least KPROF_AUTO_WARMUP) and f <= 1 keeps the process's
 * timed launches within KPROF_SAMPLE_BUDGET per second (the demand measured over windows of 100 ms).  The
 * draw is a hash of KPROF_SEED, the mangled name, i and the shard (shard 0 adds nothing), so a run with
 * the same seed and launch order times the same launches (while f is 1, and W is the same when each
 * launch is drawn: both follow what was measured), and periodic programs do not alias.  Sets
 * kprof_tls_sample_weight.  Thread-safe, lock-free. */
int kprof_sample_auto(struct kprof_sampling *s, const char *mangled, uint64_t i, unsigned shard);

/* Adds one timed launch (duration ns, weight 1/p from kprof_tls_sample_weight) to the estimator.  Called
 * by the harvester under the kernels' times lock. */
void kprof_sample_weigh(struct kprof_sampling *s, uint64_t ns, double weight);

/* Sets s's warm-up W from the kernel's measured spread, cv2 the square of its timed launches' coefficient
 * of variation (variance / mean^2), once n >= 20 launches after the first were timed: with p = W / (i + 1)
 * the estimate's relative variance tends to cv2 / (2 W) however many launches come (the weights grow as
 * the draws thin), so W = 1.96^2 cv2 / (2 h^2), h = KPROF_AUTO_HALF_WIDTH, keeps its 95% interval within
 * h of the total while f is 1; KPROF_AUTO_WARMUP at least, KPROF_AUTO_WARMUP_MAX at most.  Called by the
 * harvester under the kernels' times lock; read by kprof_sample_auto without it. */
void kprof_sample_warmup(struct kprof_sampling *s, uint64_t n, double cv2);

/* The Hajek estimate of a kernel's total over its `direct` launches (those outside graphs), direct x
 * (sum of x/p) / (sum of 1/p) over the timed ones, in *total_ns, and the half-width of its 95% interval in
 * *ci95_ns: 1.96 x the square root of the linearised variance (direct / sum 1/p)^2 x sum of
 * (1 - p) / p^2 x (x - mean)^2 (Sarndal, Swensson and Wretman, Model Assisted Survey Sampling, 5.7), or of
 * s2 x sum of (1 - p) / p^2 when that is larger (s2: the timed launches' own variance, ns^2), and never
 * below that of a simple random sample of as many launches, s2 x direct x (direct - n) / n in the total's
 * units (n: the launches weighed; it is the floor when launches of small odds went untimed after weighed
 * ones of odds 1, whose terms above are all 0); with one launch weighed of more, the estimate itself (nothing
 * is known of the spread).  Returns 0
 * (leaving both alone) when nothing was weighed.  Called under the kernels' times lock (kernels.c). */
int kprof_sample_estimate(const struct kprof_sampling *s, uint64_t direct, double s2, double *total_ns,
                          double *ci95_ns);

/* Starts the budget's first window and fixes the seed of the draws: KPROF_SEED, or, when it is unset (0),
 * one below 2^53 chosen from the clock and the process id and written back to kprof_config.seed (the
 * report gives it, exact in any JSON reader, so a run can be repeated).  Called once from the constructor,
 * after the configuration is read. */
void kprof_sampling_init(void);

#endif
