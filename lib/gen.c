/* The method registry: names, applicability checks with advice, exact size prediction, and the
 * `auto` choice of the smallest applicable family. */
#include <errno.h>
#include <string.h>

#include "family_i.h"
#include "family_rows_i.h"
#include "forest.h"
#include "gen.h"
#include "hitfam/count.h"
#include "poset_i.h"
#include "sample.h"

/* Implemented methods, in the order auto prefers them on equal predicted size. Each descriptor
 * carries its name, its checks, its prediction and auto's rule for it; this file names none. */
static const hf_i_method *const implemented[] = {
    &hf_i_method_dfs,      &hf_i_method_doubletree, &hf_i_method_simple, &hf_i_method_pattern,
    &hf_i_method_scramble, &hf_i_method_greedy,     &hf_i_method_chains, &hf_i_method_exact,
    &hf_i_method_random,   &hf_i_method_rw,         &hf_i_method_pct,    &hf_i_method_pos,
    &hf_i_method_basicpos};
#define N_IMPLEMENTED (sizeof implemented / sizeof implemented[0])
/* Method ids are below this (a bit set of ids fits an unsigned). */
#define N_IDS 32u

hf_i_auto_rule hf_i_auto_advise(const hf_poset *p, unsigned d)
{
    (void)p;
    (void)d;
    return HF_I_AUTO_ADVISE;
}

hf_i_auto_rule hf_i_auto_never(const hf_poset *p, unsigned d)
{
    (void)p;
    (void)d;
    return HF_I_AUTO_NEVER;
}

const hf_i_method *hf_i_method_of(hf_method m)
{
    for (unsigned i = 0; i < N_IMPLEMENTED; i++)
        if (implemented[i]->id == m)
            return implemented[i];
    return NULL;
}

/* The name of method id m ("auto" for the choice), or NULL for an id no method has. */
static const char *name_of(unsigned m)
{
    if (m == (unsigned)HF_METHOD_AUTO)
        return "auto";
    const hf_i_method *impl = m < N_IDS ? hf_i_method_of((hf_method)m) : NULL;
    return impl ? impl->name : NULL;
}

const char *hf_method_name(hf_method m) { return name_of((unsigned)m); }

hf_status hf_method_from_name(const char *name, hf_method *m)
{
    if (!name || !m)
        return HF_EINVAL;
    for (unsigned i = 0; i < N_IDS; i++)
        if (name_of(i) && strcmp(name, name_of(i)) == 0) {
            *m = (hf_method)i;
            return HF_OK;
        }
    return HF_ENOTFOUND;
}

static const hf_i_method *find_impl(hf_method m) { return hf_i_method_of(m); }

bool hf_i_is_sampler(hf_method m)
{
    const hf_i_method *impl = hf_i_method_of(m);
    return impl && impl->sampler;
}

bool hf_method_is_sampler(hf_method m) { return hf_i_is_sampler(m); }

bool hf_method_predict_runs(hf_method m)
{
    const hf_i_method *impl = find_impl(m);
    return impl && impl->predict_runs;
}

void hf_gen_options_init(hf_gen_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->d = 2;
    opt->method = HF_METHOD_AUTO;
    opt->max_names = HF_GEN_DEFAULT_MAX_NAMES;
    opt->threads = 1;
}

/* Method names of a bit set of method ids, "a, b and c", into buf. */
static const char *name_list(unsigned set, char *buf, size_t cap)
{
    size_t k = 0, left = hf_i_popcount(set);
    buf[0] = '\0';
    for (unsigned id = 0; id < N_IDS && k < cap; id++)
        if (set & (1u << id)) {
            left--;
            int w = snprintf(buf + k, cap - k, "%s%s", name_of(id),
                             left == 0   ? ""
                             : left == 1 ? " and "
                                         : ", ");
            k += w > 0 ? (size_t)w : 0;
        }
    return buf;
}

static hf_status check_options(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    if (!p || !opt)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    if (opt->d < 1 || opt->d > HF_MAX_D)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "d must be between 1 and %u (got %u)", HF_MAX_D,
                         opt->d);
    if (!name_of((unsigned)opt->method))
        return hf_i_fail(err, HF_EINVAL, 0, 0, "unknown method %d", (int)opt->method);
    if ((unsigned)opt->pattern_mode > HF_PATTERN_ALL)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "unknown pattern mode %d", (int)opt->pattern_mode);
    if (opt->count && !hf_i_is_sampler(opt->method)) {
        unsigned samplers = 0;
        for (unsigned i = 0; i < N_IMPLEMENTED; i++)
            samplers |= implemented[i]->sampler ? 1u << implemented[i]->id : 0;
        char names[96];
        return hf_i_fail(err, HF_EINVAL, 0, 0,
                         "a schedule count is an option of the sampling methods only (%s)",
                         name_list(samplers, names, sizeof names));
    }
    if (!opt->row_first && opt->row_last)
        return hf_i_fail(err, HF_EINVAL, 0, 0,
                         "row_last %" PRIu64 " without row_first (rows are counted from 1)",
                         opt->row_last);
    if (opt->row_last && opt->row_last < opt->row_first)
        return hf_i_fail(err, HF_EINVAL, 0, 0,
                         "rows %" PRIu64 ":%" PRIu64 ": the last row comes before the first",
                         opt->row_first, opt->row_last);
    return hf_i_check_d_focus(p, opt->d, opt->focus, opt->focus_count, err);
}

/* Why nothing applies, and what to use: the advice auto gives. too_large: methods that apply
 * but whose families are too large to build or predict within their limits; skipped: methods
 * auto does not weigh on this order (they may still be asked for). */
static hf_status no_method(const hf_poset *p, unsigned d, unsigned too_large, unsigned skipped,
                           hf_error *err)
{
    (void)p;
    char big[96], left[96];
    const char *families = hf_i_popcount(too_large) == 1 ? "family of" : "families of";
    const char *are = hf_i_popcount(too_large) == 1 ? "is" : "are";
    if (too_large && skipped)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "no method applies to this order for d=%u within auto's limits: the %s "
                         "%s %s too large to build here (hitfam stats gives each reason); %s may "
                         "still be asked for by name",
                         d, families, name_list(too_large, big, sizeof big), are,
                         name_list(skipped, left, sizeof left));
    if (too_large)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "no method applies to this order for d=%u: the %s %s %s too large to "
                         "build here, and no other method builds %u-hitting families of this "
                         "order (hitfam stats gives each reason)",
                         d, families, name_list(too_large, big, sizeof big), are, d);
    if (skipped)
        return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                         "no method applies to this order for d=%u within auto's limits; %s may "
                         "still be asked for by name (auto does not weigh them on this order)",
                         d, name_list(skipped, left, sizeof left));
    return hf_i_fail(err, HF_EUNSUPPORTED, 0, 0,
                     "no method builds %u-hitting families of this order (hitfam stats gives "
                     "each method's reason)",
                     d);
}

/* Under focus_prefix only a method that reads it (simple, as its prefixes) sees the focus set;
 * every other method hits every tuple of the whole order, which includes the tuples asked for.
 * The options of the whole family: generate() gives the slice to the methods that compute rows
 * themselves. */
static hf_gen_options method_options(const hf_i_method *m, const hf_gen_options *opt)
{
    hf_gen_options o = *opt;
    o.row_first = o.row_last = 0;
    if (o.focus_prefix && !m->focus_prefix) {
        o.focus = NULL;
        o.focus_count = 0;
    }
    return o;
}

/* The most schedules of a run-to-predict method auto considers (and holds in memory). Larger
 * families lose to the tree methods wherever those apply, and elsewhere are left to an explicit
 * --method (greedy's and chains' sizes grow with the order). */
#define AUTO_MAX_RUN_SCHEDULES 65536u

/* A family sink that refuses (HF_ETOOLARGE) beyond `cap` schedules: auto stops a run as soon
 * as it cannot win. */
typedef struct capped_family {
    hf_family *f;
    uint64_t cap;
} capped_family;

static hf_status capped_put(void *user, const uint32_t *schedule, uint32_t n)
{
    capped_family *c = user;
    if (c->f->m >= c->cap)
        return HF_ETOOLARGE;
    hf_sink s = hf_family_sink(c->f);
    return s.put(s.user, schedule, n);
}

/* A family auto built while choosing (methods that are sized by running them), kept so that
 * hf_generate replays it instead of running the method a second time. */
typedef struct auto_cache {
    const hf_i_method *method;
    hf_family *family;
} auto_cache;

/* The method to run: the explicit one, or auto's smallest prediction (stored in `size` if it
 * is not NULL; an explicit method is predicted only when `size` is given). With `cache`, auto
 * generates the run-to-predict methods into memory instead of predicting them, and keeps the
 * winner's family in *cache. */
static hf_status resolve(const hf_poset *p, const hf_gen_options *opt, const hf_i_method **out,
                         mpz_t size, auto_cache *cache, hf_error *err)
{
    hf_status st = check_options(p, opt, err);
    if (st)
        return st;
    if (opt->method != HF_METHOD_AUTO) {
        const hf_i_method *m = find_impl(opt->method); /* check_options: a known method */
        hf_gen_options o = method_options(m, opt);
        /* generating needs no prediction of an explicit method (some predict by running) */
        if ((st = m->check(p, &o, err)) || (size && (st = m->predict(p, &o, size, err))))
            return st;
        *out = m;
        return HF_OK;
    }
    const hf_i_method *best = NULL;
    hf_family *best_family = NULL;
    unsigned too_large = 0, skipped = 0; /* for the message when nothing applies */
    mpz_t s, best_size;
    mpz_init(s);
    mpz_init(best_size);
    /* what a weighed method says when it fails: kept when its failure ends auto (a stop by the
     * progress callback), dropped when auto only passes the method over */
    hf_error why = {0};
    for (unsigned i = 0; i < N_IMPLEMENTED && !st; i++) {
        const hf_i_method *m = implemented[i];
        hf_gen_options o = method_options(m, opt);
        hf_i_auto_rule rule = m->auto_rule ? m->auto_rule(p, opt->d) : HF_I_AUTO_WEIGH;
        if (rule == HF_I_AUTO_NEVER)
            continue;
        if (rule == HF_I_AUTO_ADVISE) {
            skipped |= m->check(p, &o, NULL) == HF_OK ? 1u << m->id : 0;
            continue;
        }
        hf_status applies = m->check(p, &o, NULL);
        if (applies == HF_ENOMEM) { /* a check that counts tuples in memory (exact) */
            st = applies;
            break;
        }
        if (applies != HF_OK)
            continue;
        hf_family *f = NULL;
        /* a run-to-predict family auto may hold in memory: at most 64 MiB of rows */
        uint64_t cap = ((uint64_t)1 << 24) / (p->n ? p->n : 1);
        cap = cap > AUTO_MAX_RUN_SCHEDULES ? AUTO_MAX_RUN_SCHEDULES : cap ? cap : 1;
        if (best && mpz_cmp_ui(best_size, (unsigned long)cap) <= 0)
            cap = mpz_get_ui(best_size) ? mpz_get_ui(best_size) - 1 : 0;
        if (m->auto_below) {
            /* a search for a family smaller than the best so far, which bounds it */
            hf_family *g = NULL;
            st = m->auto_below(p, &o, best ? mpz_get_ui(best_size) : 0, &g, NULL, &why);
            if (!st && !g)
                continue; /* none smaller within its budget */
            if (!st)
                mpz_set_ui(s, (unsigned long)hf_family_size(g));
            if (!st && cache)
                f = g;
            else
                hf_family_free(g);
        } else if (cache && m->predict_runs) {
            if ((st = hf_family_new(p->ctx, p->n, &f)))
                break;
            capped_family cf = {f, cap};
            st = m->generate(p, &o, (hf_sink){capped_put, &cf}, &why);
            mpz_set_ui(s, (unsigned long)hf_family_size(f));
        } else {
            st = m->predict(p, &o, s, &why);
            if (!st && m->predict_runs && mpz_cmp_ui(s, (unsigned long)cap) > 0)
                st = HF_ETOOLARGE;
        }
        /* a size too large to predict (or a method that gives up) is a family not to prefer */
        if (st == HF_ETOOLARGE || st == HF_EUNSUPPORTED) {
            too_large |= 1u << m->id;
            st = HF_OK;
            why = (hf_error){0};
            hf_family_free(f);
            continue;
        }
        if (!st && (!best || mpz_cmp(s, best_size) < 0)) {
            best = m;
            mpz_set(best_size, s);
            hf_family_free(best_family);
            best_family = f;
        } else {
            hf_family_free(f);
        }
        /* a check only asks whether auto has a method: the first that applies answers it,
         * without running the costlier ones (greedy, exact) that could only be smaller */
        if (!st && best && !size && !cache)
            break;
    }
    if (size)
        mpz_set(size, best_size);
    mpz_clear(s);
    mpz_clear(best_size);
    if (st && st != HF_ENOMEM && err && why.text[0])
        *err = why;
    if (!st && !best)
        st = no_method(p, opt->d, too_large, skipped, err);
    if (st) {
        hf_family_free(best_family);
        if (st == HF_ENOMEM)
            hf_i_fail(err, st, 0, 0, "out of memory");
        return st;
    }
    if (cache) {
        cache->method = best;
        cache->family = best_family;
    }
    *out = best;
    return HF_OK;
}

hf_status hf_method_check(const hf_poset *p, const hf_gen_options *opt, hf_error *err)
{
    hf_i_error_clear(err);
    const hf_i_method *m;
    return resolve(p, opt, &m, NULL, NULL, err);
}

hf_status hf_method_predict_mpz(const hf_poset *p, const hf_gen_options *opt, mpz_t size,
                                hf_method *chosen, hf_error *err)
{
    hf_i_error_clear(err);
    const hf_i_method *m;
    hf_status st = resolve(p, opt, &m, size, NULL, err);
    if (!st && chosen)
        *chosen = m->id;
    return st;
}

hf_status hf_method_predict(const hf_poset *p, const hf_gen_options *opt, uint64_t *size,
                            hf_method *chosen, hf_error *err)
{
    if (!size)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "invalid argument");
    mpz_t s;
    mpz_init(s);
    hf_status st = hf_method_predict_mpz(p, opt, s, chosen, err);
    if (!st) {
        if (mpz_sizeinbase(s, 2) > 64)
            st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                           "the family would have more than 2^64 "
                           "schedules");
        else {
            uint64_t v = 0; /* mpz_export is exact whatever the width of unsigned long */
            mpz_export(&v, NULL, -1, sizeof v, 0, 0, s);
            *size = v;
        }
    }
    mpz_clear(s);
    return st;
}

/* The exact size as a uint64_t, if it fits. */
static bool size_u64(const mpz_t s, uint64_t *v)
{
    if (mpz_sgn(s) < 0 || mpz_sizeinbase(s, 2) > 64)
        return false;
    *v = 0;
    mpz_export(v, NULL, -1, sizeof *v, 0, 0, s);
    return true;
}

/* A sink that passes schedules on until they would hold more than `max` names (schedules x
 * events): the guard of methods whose size is known only by running them. */
typedef struct name_guard {
    hf_sink next;
    uint64_t max, names;
    hf_error *err;
} name_guard;

static hf_status guard_put(void *user, const uint32_t *schedule, uint32_t n)
{
    name_guard *g = user;
    if (n > g->max - g->names || g->names > g->max)
        return hf_i_fail(g->err, HF_ETOOLARGE, 0, 0,
                         "the family passed max_names (%" PRIu64 " names, schedules x events) "
                         "while it was built",
                         g->max);
    g->names += n;
    return g->next.put(g->next.user, schedule, n);
}

/* A sink that reports each schedule to the progress callback before passing it on. */
typedef struct progress_sink {
    hf_sink next;
    hf_ctx *ctx;
    uint64_t done, total;
    hf_error *err;
} progress_sink;

static hf_status progress_put(void *user, const uint32_t *schedule, uint32_t n)
{
    progress_sink *ps = user;
    hf_status st = hf_i_progress(ps->ctx, "gen", ++ps->done, ps->total, ps->err);
    return st ? st : ps->next.put(ps->next.user, schedule, n);
}

/* The rows of a slice (opt->row_first..row_last) that reach the caller's sink. A method that
 * computes its rows (`direct`) emits only them: they are counted and passed on. Otherwise the
 * whole stream arrives, and the sink passes on its rows first..last and stops the generator
 * (HF_EABORTED, `stopped`) once the last one is through. */
typedef struct slice_sink {
    hf_sink next;
    uint64_t first, last; /* last 0: to the end */
    uint64_t seen, passed;
    bool direct, stopped;
} slice_sink;

static hf_status slice_put(void *user, const uint32_t *schedule, uint32_t n)
{
    slice_sink *s = user;
    if (s->direct) {
        s->passed++;
        return s->next.put(s->next.user, schedule, n);
    }
    uint64_t row = ++s->seen;
    if (row < s->first)
        return HF_OK;
    s->passed++;
    hf_status st = s->next.put(s->next.user, schedule, n);
    if (!st && s->last && row >= s->last) {
        s->stopped = true;
        return HF_EABORTED;
    }
    return st;
}

/* The rows described by ranges (lib/family_rows_i.h) through the same sinks: each wrapper does
 * what its put does, then hands the description on. */
static hf_status guard_put_rows(void *user, const hf_i_rows *r)
{
    name_guard *g = user;
    if (r->n > g->max - g->names || g->names > g->max)
        return guard_put(user, NULL, r->n); /* the same refusal */
    g->names += r->n;
    return hf_i_sink_put_rows(g->next, r);
}

static hf_status progress_put_rows(void *user, const hf_i_rows *r)
{
    progress_sink *ps = user;
    hf_status st = hf_i_progress(ps->ctx, "gen", ++ps->done, ps->total, ps->err);
    return st ? st : hf_i_sink_put_rows(ps->next, r);
}

static hf_status slice_put_rows(void *user, const hf_i_rows *r)
{
    slice_sink *s = user;
    if (s->direct) {
        s->passed++;
        return hf_i_sink_put_rows(s->next, r);
    }
    uint64_t row = ++s->seen;
    if (row < s->first)
        return HF_OK;
    s->passed++;
    hf_status st = hf_i_sink_put_rows(s->next, r);
    if (!st && s->last && row >= s->last) {
        s->stopped = true;
        return HF_EABORTED;
    }
    return st;
}

static hf_status watch_put(void *user, const uint32_t *schedule, uint32_t n)
{
    hf_sink_watch *w = user;
    errno = 0;
    hf_status st = w->next.put(w->next.user, schedule, n);
    if (st && w->failed)
        w->failed(w->user, st);
    return st;
}

static hf_status watch_put_rows(void *user, const hf_i_rows *r)
{
    hf_sink_watch *w = user;
    errno = 0;
    hf_status st = hf_i_sink_put_rows(w->next, r);
    if (st && w->failed)
        w->failed(w->user, st);
    return st;
}

hf_sink hf_sink_watch_sink(hf_sink_watch *w) { return (hf_sink){watch_put, w}; }

/* The sink a wrapper passes rows on to, and its put_rows; NULL when s is not one of the
 * library's wrappers. */
static const hf_sink *wrapped(hf_sink s, hf_status (**put_rows)(void *, const hf_i_rows *))
{
    if (s.put == progress_put) {
        *put_rows = progress_put_rows;
        return &((progress_sink *)s.user)->next;
    }
    if (s.put == slice_put) {
        *put_rows = slice_put_rows;
        return &((slice_sink *)s.user)->next;
    }
    if (s.put == guard_put) {
        *put_rows = guard_put_rows;
        return &((name_guard *)s.user)->next;
    }
    if (s.put == watch_put) {
        *put_rows = watch_put_rows;
        return &((hf_sink_watch *)s.user)->next;
    }
    return NULL;
}

hf_writer *hf_i_sink_writer(hf_sink s)
{
    hf_status (*put_rows)(void *, const hf_i_rows *);
    for (const hf_sink *next; (next = wrapped(s, &put_rows));)
        s = *next;
    return s.put == hf_i_writer_put ? s.user : NULL;
}

bool hf_i_sink_takes_rows(hf_sink s) { return hf_i_sink_writer(s) != NULL; }

hf_status hf_i_sink_put_rows(hf_sink s, const hf_i_rows *r)
{
    hf_status (*put_rows)(void *, const hf_i_rows *);
    if (wrapped(s, &put_rows))
        return put_rows(s.user, r);
    return s.put == hf_i_writer_put ? hf_i_writer_put_rows(s.user, r) : HF_EINVAL;
}

/* The rows asked for against a family of `size` schedules (size_known false: more than 2^64),
 * before anything is written: HF_EINVAL for a row beyond it. */
static hf_status check_rows(const hf_gen_options *opt, bool size_known, uint64_t size,
                            hf_error *err)
{
    uint64_t last = opt->row_last ? opt->row_last : opt->row_first;
    if (!size_known || last <= size)
        return HF_OK;
    return hf_i_fail(err, HF_EINVAL, 0, 0,
                     "row %" PRIu64 " is beyond the family, which has %" PRIu64
                     " schedules (rows are counted from 1)",
                     last, size);
}

/* Refuse a family of `size` schedules over n events that holds more than max names. */
static hf_status check_names(const mpz_t size, uint32_t n, uint64_t max, hf_error *err)
{
    mpz_t names;
    mpz_init(names);
    mpz_mul_ui(names, size, n);
    hf_status st = HF_OK;
    uint64_t count;
    if (!size_u64(names, &count) || count > max) {
        uint64_t exact;
        char shown[48];
        if (size_u64(size, &exact))
            snprintf(shown, sizeof shown, "%" PRIu64, exact);
        else
            snprintf(shown, sizeof shown, "about 10^%zu", mpz_sizeinbase(size, 10) - 1);
        /* about two bytes per name in text: a short name and a separator */
        double bytes = mpz_get_d(names) * 2;
        static const char *const unit[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
        unsigned u = 0;
        while (bytes >= 1000 && u + 1 < sizeof unit / sizeof unit[0]) {
            bytes /= 1000;
            u++;
        }
        st = hf_i_fail(err, HF_ETOOLARGE, 0, 0,
                       "the family would have %s schedules of %" PRIu32 " events, more than "
                       "max_names (%" PRIu64 " names, schedules x events; at least %.3g %s of "
                       "text)",
                       shown, n, max, bytes, unit[u]);
    }
    mpz_clear(names);
    return st;
}

/* hf_generate_ex; the size is computed only when `want_size`, and `info->method` is set as soon
 * as the method is chosen. */
static hf_status generate(const hf_poset *p, const hf_gen_options *opt, hf_gen_begin_fn begin,
                          void *begin_user, hf_sink sink, bool want_size, hf_gen_info *info,
                          hf_error *err)
{
    hf_i_error_clear(err);
    if (!sink.put)
        return hf_i_fail(err, HF_EINVAL, 0, 0, "sink without a put function");
    const hf_i_method *m;
    auto_cache cache = {NULL, NULL};
    mpz_t size;
    mpz_init(size);
    /* the size is needed for the caller's announcement and for max_names; auto predicts
     * anyway; an explicit method is predicted only when that is cheap (the others are guarded
     * while they run) */
    bool limited = opt && opt->max_names != 0;
    bool sliced = opt && opt->row_first != 0;
    bool predict = (want_size || limited || sliced) && opt &&
                   (opt->method == HF_METHOD_AUTO || !hf_method_predict_runs(opt->method) ||
                    (hf_i_is_sampler(opt->method) && opt->count));
    hf_status st = resolve(p, opt, &m, predict ? size : NULL, &cache, err);
    if (st) {
        mpz_clear(size);
        return st;
    }
    info->method = m->id;
    bool known = predict;
    if (cache.family) {
        info->schedules_known = known = true;
        info->schedules = hf_family_size(cache.family);
        mpz_set_ui(size, (unsigned long)hf_family_size(cache.family));
    } else if (predict) {
        info->schedules_known = size_u64(size, &info->schedules);
    }
    /* a slice: rows beyond a known size are refused before the first schedule; the methods that
     * compute rows build only the slice, and max_names counts its names */
    uint64_t last = sliced ? opt->row_last : 0;
    if (sliced && known) {
        uint64_t whole;
        bool fits = size_u64(size, &whole);
        if ((st = check_rows(opt, fits, whole, err))) {
            mpz_clear(size);
            hf_family_free(cache.family);
            return st;
        }
        if (!last && fits)
            last = whole;
        if (m->rows && !cache.family) {
            /* (last or size) - (row_first - 1), exact whatever the width of unsigned long */
            if (last)
                mpz_import(size, 1, -1, sizeof last, 0, 0, &last);
            mpz_t skip;
            mpz_init(skip);
            uint64_t before = opt->row_first - 1;
            mpz_import(skip, 1, -1, sizeof before, 0, 0, &before);
            mpz_sub(size, size, skip);
            mpz_clear(skip);
        }
    }
    if (limited && known && (st = check_names(size, p->n, opt->max_names, err))) {
        mpz_clear(size);
        hf_family_free(cache.family);
        return st;
    }
    mpz_clear(size);
    if (begin && (st = begin(begin_user, info))) {
        hf_family_free(cache.family);
        return st;
    }
    uint64_t total = info->schedules_known ? info->schedules : 0;
    if (sliced)
        total = last ? last - opt->row_first + 1 : 0;
    progress_sink ps = {sink, p->ctx, 0, total, err};
    if (p->ctx && p->ctx->progress)
        sink = (hf_sink){progress_put, &ps};
    if (cache.family) {
        size_t from = sliced ? (size_t)(opt->row_first - 1) : 0;
        size_t to = sliced && last ? (size_t)last : cache.family->m;
        for (size_t i = from; i < to && !st; i++)
            st = sink.put(sink.user, cache.family->rows + i * (size_t)p->n, p->n);
        hf_family_free(cache.family);
        return st;
    }
    slice_sink slice = {sink, sliced ? opt->row_first : 0, last, 0, 0, m->rows, false};
    if (sliced)
        sink = (hf_sink){slice_put, &slice};
    name_guard guard = {sink, opt->max_names, 0, err};
    if (limited && !known)
        sink = (hf_sink){guard_put, &guard};
    hf_gen_options o = method_options(m, opt);
    if (sliced && m->rows) {
        o.row_first = opt->row_first;
        o.row_last = last;
    }
    st = m->generate(p, &o, sink, err);
    if (st == HF_EABORTED && slice.stopped) {
        hf_i_error_clear(err);
        st = HF_OK;
    }
    /* a family whose size was not known beforehand, shorter than the slice */
    if (!st && sliced &&
        (slice.passed == 0 || (last && slice.passed < last - opt->row_first + 1))) {
        uint64_t beyond = slice.passed == 0 ? opt->row_first : opt->row_first + slice.passed;
        if (m->rows)
            return hf_i_fail(err, HF_EINVAL, 0, 0,
                             "row %" PRIu64 " is beyond the family (rows are counted from 1)",
                             beyond);
        return hf_i_fail(err, HF_EINVAL, 0, 0,
                         "row %" PRIu64 " is beyond the family, which has %" PRIu64
                         " schedules (rows are counted from 1)",
                         beyond, slice.seen);
    }
    if (st && err && !err->text[0])
        hf_i_fail(err, st, 0, 0, "%s", hf_strerror(st));
    return st;
}

hf_status hf_generate_ex(const hf_poset *p, const hf_gen_options *opt, hf_gen_begin_fn begin,
                         void *begin_user, hf_sink sink, hf_gen_info *info, hf_error *err)
{
    hf_gen_info gi = {HF_METHOD_AUTO, false, 0};
    /* a tree method's prediction and its generation share their forest view */
    hf_i_tree_scope scope;
    hf_i_tree_scope_begin(&scope);
    hf_status st = generate(p, opt, begin, begin_user, sink, begin || info, &gi, err);
    hf_i_tree_scope_end(&scope);
    if (info)
        *info = gi;
    return st;
}

hf_status hf_generate(const hf_poset *p, const hf_gen_options *opt, hf_sink sink, hf_method *used,
                      hf_error *err)
{
    hf_gen_info gi = {HF_METHOD_AUTO, false, 0};
    hf_i_tree_scope scope;
    hf_i_tree_scope_begin(&scope);
    hf_status st = generate(p, opt, NULL, NULL, sink, false, &gi, err);
    hf_i_tree_scope_end(&scope);
    /* the method is reported once it is chosen, even if generating it then failed */
    if (used && (st == HF_OK || gi.method != HF_METHOD_AUTO))
        *used = gi.method;
    return st;
}
