/* hitfam scheduling a live event loop: the handlers of a toy page load post their own callbacks,
 * one of them only in some schedules, and hf_online picks every next task without being given
 * the order. It finds the two bugs of examples/eventloop.c and a third that exists only when a
 * timer fires before the network answers. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hitfam/online.h>

/* ------------------------------------------------------------------------------------------ */
/* The page                                                                                   */

enum content { DIV_EMPTY, DIV_PLACEHOLDER, DIV_NEWS };

struct page {
    int f_defined;    /* script 1 has defined the global function f */
    int div_exists;   /* the parser has created <div id=news> */
    enum content div; /* what the div shows */
    int news_cached;  /* the response arrived before the div existed */
    int onload_threw; /* img.onload called f before it existed */
    int xhr_done;     /* the response has arrived */
    int duplicated;   /* a retry ran after the answer: the news is shown twice */
};

enum { BUG_A = 1, BUG_B = 2, BUG_C = 4 };

/* The event loop's queue is hitfam: a handler posts a callback through post(). */
struct loop {
    hf_online *s;
    uint32_t running; /* the event whose handler runs */
    struct page pg;
    int failed;
};

static void post(struct loop *l, const char *task)
{
    hf_error err;
    if (hf_online_post(l->s, l->running, task, NULL, &err) != HF_OK) {
        fprintf(stderr, "eventloop_online: post %s: %s\n", task, err.text);
        l->failed = 1;
    }
}

/* Each handler does its work and posts what it starts. */
static void run_task(struct loop *l, const char *task)
{
    struct page *pg = &l->pg;
    if (strcmp(task, "parse_head") == 0) {
        post(l, "parse_img");
        post(l, "xhr_sent");
    } else if (strcmp(task, "parse_img") == 0) {
        post(l, "parse_script1");
        post(l, "img_fetched");
    } else if (strcmp(task, "parse_script1") == 0) {
        pg->f_defined = 1;
        post(l, "parse_div");
        post(l, "timer_fired");
    } else if (strcmp(task, "parse_div") == 0) {
        pg->div_exists = 1;
        pg->div = DIV_EMPTY;
        post(l, "parse_script2");
        post(l, "user_click");
    } else if (strcmp(task, "parse_script2") == 0) {
        /* div.textContent = cache || "no news yet": forgets that the handler may already have
         * written the div directly (bug B) */
        pg->div = pg->news_cached ? DIV_NEWS : DIV_PLACEHOLDER;
        post(l, "dom_ready");
    } else if (strcmp(task, "xhr_sent") == 0) {
        post(l, "xhr_done");
    } else if (strcmp(task, "xhr_done") == 0) {
        pg->xhr_done = 1;
        if (pg->div_exists)
            pg->div = DIV_NEWS;
        else
            pg->news_cached = 1;
    } else if (strcmp(task, "img_fetched") == 0) {
        post(l, "img_onload");
    } else if (strcmp(task, "img_onload") == 0) {
        if (!pg->f_defined) /* f(this) before script 1 defined f: bug A */
            pg->onload_threw = 1;
    } else if (strcmp(task, "timer_fired") == 0) {
        /* no answer yet: fetch again later. The retry exists only in the schedules where the
         * timer fires before the response. */
        if (!pg->xhr_done)
            post(l, "xhr_retry");
    } else if (strcmp(task, "xhr_retry") == 0) {
        /* the author assumed the first request had failed: if it answered in the meantime the
         * news is fetched and shown twice (bug C, depth 3: timer_fired, xhr_done, xhr_retry) */
        if (pg->xhr_done)
            pg->duplicated = 1;
    }
    /* dom_ready, user_click: nothing */
}

static unsigned bugs_of(const struct page *pg)
{
    return (pg->onload_threw ? BUG_A : 0) | (pg->div != DIV_NEWS ? BUG_B : 0) |
           (pg->duplicated ? BUG_C : 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Sessions                                                                                   */

struct result {
    uint64_t runs;
    uint64_t first[3]; /* 1-based run that first exposed bug A, B, C; 0 = never */
    hf_online_run_result last;
};

static int play(hf_online_strategy strategy, unsigned d, struct result *res)
{
    hf_online_options o;
    hf_online_options_init(&o);
    o.d = d;
    o.strategy = strategy;
    o.max_runs = 1000;
    struct loop l = {0};
    hf_error err;
    if (hf_online_new(NULL, &o, &l.s, &err) != HF_OK) {
        fprintf(stderr, "eventloop_online: %s\n", err.text);
        return 2;
    }
    memset(res, 0, sizeof *res);
    do {
        memset(&l.pg, 0, sizeof l.pg);
        l.running = HF_NO_EVENT;
        if (hf_online_begin_run(l.s, &err) != HF_OK) {
            fprintf(stderr, "eventloop_online: %s\n", err.text);
            l.failed = 1;
            break;
        }
        post(&l, "parse_head");
        while (!l.failed && hf_online_pending(l.s) > 0) {
            if (hf_online_next(l.s, &l.running, &err) != HF_OK) {
                fprintf(stderr, "eventloop_online: %s\n", err.text);
                l.failed = 1;
                break;
            }
            uint32_t node = hf_online_event_node(l.s, l.running);
            run_task(&l, hf_online_node_label(l.s, node));
        }
        if (l.failed || hf_online_end_run(l.s, &res->last, &err) != HF_OK) {
            if (!l.failed)
                fprintf(stderr, "eventloop_online: %s\n", err.text);
            l.failed = 1;
            break;
        }
        res->runs++;
        unsigned b = bugs_of(&l.pg);
        for (int k = 0; k < 3; k++)
            if ((b >> k) & 1 && !res->first[k])
                res->first[k] = res->runs;
    } while (res->last.more);
    hf_online_free(l.s);
    return l.failed ? 2 : 0;
}

int main(void)
{
    printf("A page load whose handlers post their callbacks; hitfam chooses every next task.\n"
           "bug A (depth 2): img_onload runs before parse_script1 defines f\n"
           "bug B (depth 3): xhr_done runs after parse_div but before parse_script2\n"
           "bug C (depth 3): timer_fired runs before xhr_done, so it posts xhr_retry, and\n"
           "                 xhr_retry runs after xhr_done: the news is fetched twice\n\n");
    static const struct {
        hf_online_strategy strategy;
        unsigned d;
        unsigned must; /* bugs the strategy must expose */
    } plays[] = {
        {HF_ONLINE_DFS, 2, BUG_A},
        {HF_ONLINE_DOUBLETREE, 3, BUG_A | BUG_B},
        {HF_ONLINE_LEARN, 3, BUG_A | BUG_B | BUG_C},
    };
    printf("%-10s %2s %5s %7s %7s %7s %7s %7s\n", "strategy", "d", "runs", "events", "bug A",
           "bug B", "bug C", "tuples");
    int rc = 0;
    for (size_t i = 0; i < sizeof plays / sizeof plays[0]; i++) {
        struct result r;
        if (play(plays[i].strategy, plays[i].d, &r))
            return 2;
        char at[3][32], tuples[64] = "-";
        for (int k = 0; k < 3; k++) {
            if (r.first[k])
                snprintf(at[k], sizeof at[k], "run %" PRIu64, r.first[k]);
            else
                snprintf(at[k], sizeof at[k], "never");
        }
        if (plays[i].strategy == HF_ONLINE_LEARN)
            snprintf(tuples, sizeof tuples, "%" PRIu64 " hit, %" PRIu64 " set aside",
                     r.last.tuples_hit, r.last.tuples_apart);
        printf("%-10s %2u %5" PRIu64 " %7" PRIu32 " %7s %7s %7s  %s\n",
               hf_online_strategy_name(plays[i].strategy), plays[i].d, r.runs, r.last.nodes, at[0],
               at[1], at[2], tuples);
        for (int k = 0; k < 3; k++)
            if ((plays[i].must >> k) & 1 && !r.first[k]) {
                fprintf(stderr, "eventloop_online: FAIL: strategy %s misses bug %c\n",
                        hf_online_strategy_name(plays[i].strategy), 'A' + k);
                rc = 1;
            }
        if (plays[i].strategy == HF_ONLINE_LEARN &&
            r.last.tuples_hit + r.last.tuples_apart != r.last.tuples) {
            fprintf(stderr, "eventloop_online: FAIL: learn stopped with open tuples\n");
            rc = 1;
        }
    }
    printf("\n%s\n", rc == 0 ? "OK: the 3-hitting strategies expose bugs A and B; learn, which "
                               "replays what it saw, also reaches bug C."
                             : "FAIL");
    return rc;
}
