/*
 * What a night tells (nightly-notify.h): one mail for its confirmed
 * regressions, one for the bisections that ended after their regression
 * was told, one webhook POST for both and its other confirmed changes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "say.h"
#include "textfmt.h"
#include "ab.h"
#include "ab-report.h"
#include "array.h"
#include "escape.h"
#include "events.h"
#include "explain.h"
#include "json-writer.h"
#include "log.h"
#include "nightly-notify.h"
#include "notify.h"
#include "redact.h"
#include "run.h"
#include "stats.h"
#include "store.h"
#include "store-bisect.h"
#include "store-nightly.h"
#include "strbuf.h"

/* The functions a mail shows of the culprit's explanation. */
#define NIGHTLY_EXPLAIN_TOP 5

enum channel { MAIL, WEBHOOK, NCHANNELS };
static const char *const channel_name[NCHANNELS] = { "mail", "webhook" };

/* What a message of the night carries of a change. */
enum carried {
	CARRY_CHANGE = 1,	/* the change itself, the first time */
	CARRY_FOLLOWUP = 2,	/* its bisection's outcome, owed since it was told without */
};

/* A change not yet told on every channel that should tell it. */
struct untold {
	long long id;
	int pending;		/* a regression whose bisection has not ended */
	struct {
		int should;	/* the channel should tell it */
		int told;	/* it has, on an earlier night or now */
		int owed;	/* told before its bisection ended: a follow-up is owed */
		int followed;	/* that follow-up was delivered */
		enum carried now;	/* what this night's message carries; 0: nothing */
	} ch[NCHANNELS];
};

/* What a change's bisection found, read once for the mail and the POST. */
struct found {
	struct strbuf subject, author;	/* the culprit's; "" without one */
	struct strbuf metric;		/* the metric bisected */
	double effect, lo, hi, alpha;	/* R(good -> bad) with its CI; NaN: not measured */
};

/* What the notifications carry, gathered before anything is sent. */
struct outbox {
	struct night *nt;
	const struct series_copy *sc;
	struct strbuf mail, subject;		/* the regressions not mailed yet */
	double subject_size;	/* |ln ratio| of the regression the subject names, the worst */
	struct strbuf followup, followup_subject;	/* bisections ended since */
	struct strbuf json;	/* the webhook's body */
	struct json_writer jw;	/* writing to json */
	struct untold *ch;
	size_t nch, ch_alloc, nmail, nfollowup, npost;
	long long *tables;	/* the A/Bs whose table the mail has */
	size_t ntables, tables_alloc;
};

/* The change as the POST's JSON carries it. */
static void add_json(struct outbox *ob, const struct nightly_change *c, const char *series,
		     const struct nightly_series *s, const struct found *f, enum carried what)
{
	const struct lab_nightly *n = ob->nt->n;
	const char *base = n->base_url && *n->base_url ? n->base_url : NULL;

	struct json_writer *jw = &ob->jw;

	ob->npost++;
	json_object_begin(jw, NULL);
	json_string(jw, "series", series);
	json_string(jw, "workload", s->workload);
	json_string(jw, "metric", s->metric);
	json_int(jw, "mem_mib", s->mem_mib);
	json_string(jw, "cmdline", s->cmdline);
	json_string(jw, "clock", s->clock);
	json_string(jw, "verdict", c->verdict);
	json_string(jw, "before", c->before);
	json_string(jw, "after", c->after);
	json_int(jw, "ab_experiment", c->ab_experiment);
	if (what == CARRY_FOLLOWUP)
		json_bool(jw, "followup", 1);
	else if (!strcmp(c->verdict, "REGRESSION") && !*c->outcome)
		json_bool(jw, "bisection_pending", 1);
	if (c->bisection)
		json_int(jw, "bisection", c->bisection);
	if (*c->outcome)
		json_string(jw, "outcome", c->outcome);
	if (*c->culprit) {
		json_string(jw, "culprit", c->culprit);
		json_string(jw, "subject", strbuf_str(&f->subject));
		json_string(jw, "author", strbuf_str(&f->author));
	}
	if (isfinite(f->effect)) {
		json_string(jw, "effect_metric", strbuf_str(&f->metric));
		json_number(jw, "effect", f->effect);
		if (isfinite(f->lo) && isfinite(f->hi)) {
			json_array_begin(jw, "effect_ci");
			json_number(jw, NULL, f->lo);
			json_number(jw, NULL, f->hi);
			json_array_end(jw);
		}
	}
	if (base) {
		struct strbuf url = STRBUF_INIT;

		strbuf_addf(&url, "%s/e%lld.html", base, c->ab_experiment);
		json_string(jw, "ab_url", url.buf);
		if (c->bisection) {
			strbuf_reset(&url);
			strbuf_addf(&url, "%s/b%lld.html", base, c->bisection);
			json_string(jw, "bisection_url", url.buf);
		}
		strbuf_release(&url);
	}
	json_object_end(jw);
}

static int found_row(const struct bisection_status *b, void *data)
{
	struct found *f = data;

	strbuf_addstr(&f->metric, b->metric);
	f->effect = b->effect;
	f->lo = b->effect_lo;
	f->hi = b->effect_hi;
	f->alpha = b->effect_alpha;
	return 0;
}

/* What the bisection of c found, into f (initialized here: release it either way). */
static int found_read(struct found *f, struct store *st, const struct nightly_change *c)
{
	strbuf_init(&f->subject, 0);
	strbuf_init(&f->author, 0);
	strbuf_init(&f->metric, 0);
	f->effect = f->lo = f->hi = f->alpha = NAN;
	return (*c->culprit && store_nightly_commit_info(st, &f->subject, &f->author, c->culprit)) ||
	       (c->bisection && store_bisection_read(st, c->bisection, found_row, f)) ? -1 : 0;
}

static void found_release(struct found *f)
{
	strbuf_release_all(&f->subject, &f->author, &f->metric);
}

/*
 * What the bisection of c found (the culprit with its subject and author,
 * the outcome and its effect), or that it has not ended yet, and the
 * links: the part a regression's mail and its follow-up share.
 */
static void add_bisection(struct strbuf *sb, struct outbox *ob, const struct nightly_change *c,
			  const struct found *f)
{
	const struct lab_nightly *n = ob->nt->n;
	const char *base = n->base_url && *n->base_url ? n->base_url : NULL;

	if (*c->culprit)
		strbuf_addf(sb, "\nculprit: %s\nsubject: %s\nauthor: %s\nbisection: E%lld, %s\n",
			    c->culprit, strbuf_str(&f->subject), strbuf_str(&f->author), c->bisection,
			    c->outcome);
	else if (c->bisection)
		strbuf_addf(sb, "\nbisection: E%lld, %s: no single culprit\n", c->bisection,
			    c->outcome);
	else
		strbuf_addstr(sb, "\nbisection: not finished tonight; it goes on next night, and a "
			      "second mail will tell its outcome\n");
	if (!isnan(f->effect)) {
		char ci[32] = "CI", change[96];

		if (!isnan(f->alpha))
			stats_ci_label(ci, sizeof(ci), f->alpha);
		textfmt_change(change, sizeof(change), f->effect, f->lo, f->hi);
		strbuf_addf(sb, "effect good -> bad: %s %s", strbuf_str(&f->metric), change);
		if (isfinite(f->lo) && isfinite(f->hi))
			strbuf_addf(sb, " (%s)", ci);
		strbuf_addstr(sb, "\n");
	}
	if (*c->culprit && c->bisection) {
		ab_report_culprit_events(sb, &ob->nt->ctx->st, c->bisection, c->culprit);
		explain_report_all(sb, &ob->nt->ctx->st, c->bisection, NIGHTLY_EXPLAIN_TOP);
	}
	if (base) {
		strbuf_addf(sb, "\nA/B: %s/e%lld.html\n", base, c->ab_experiment);
		if (c->bisection)
			strbuf_addf(sb, "bisection: %s/b%lld.html\n", base, c->bisection);
	}
	strbuf_addstr(sb, "\n");
}

/*
 * "zeroing.t (this host, 23.54G and 2 CPUs, wall time) got worse between
 * X and Y": what the series measured, in the words of its A/B's table
 * (run_size_words()), where it ran when that was not this host, and its
 * command line when it has one.
 */
static void add_got_worse(struct strbuf *sb, struct night *nt, const struct nightly_change *c,
			  const struct nightly_series *s)
{
	struct events_report ev;
	struct strbuf host = STRBUF_INIT;
	long long mem = s->mem_mib;
	int cpus = (int)nt->ctx->cfg.cpus, loaded;

	loaded = !events_report_load(&ev, &nt->ctx->st, c->ab_experiment);
	if (loaded && ev.npoints == 1) {
		mem = ev.points[0].mem_mib;
		cpus = ev.points[0].cpus;
	}
	strbuf_addf(sb, "%s.%s (", s->workload, s->metric);
	if (loaded && events_host_words(&host, &ev, mem, cpus)) {
		strbuf_addf(sb, "this host, %s, ", host.buf);
	} else {
		strbuf_addf(sb, "%s, ", s->target);
		run_size_words(sb, mem, cpus, 0, 0);
		strbuf_addstr(sb, ", ");
	}
	clock_words(sb, s->clock);
	if (*s->cmdline)
		strbuf_addf(sb, ", cmdline '%s'", s->cmdline);
	strbuf_addf(sb, ") got worse between %.12s and %.12s", c->before, c->after);
	if (loaded)
		events_report_release(&ev);
	strbuf_release(&host);
}

/* The regression as the mail tells it: the A/B table, the bisection, the links. */
static void add_mail(struct outbox *ob, const struct nightly_change *c,
		     const struct nightly_series *s, const struct found *fd)
{
	struct night *nt = ob->nt;
	const struct lab_nightly *n = nt->n;
	double size = fabs(log(c->ratio));
	int above = 0;

	ob->nmail++;
	/* what a kernel developer sees first: the worst metric, and how much */
	if (!ob->subject.len || size > ob->subject_size) {
		char change[32];

		strbuf_reset(&ob->subject);
		ob->subject_size = size;
		textfmt_ratio(change, sizeof(change), c->ratio);
		strbuf_addf(&ob->subject, "[lab nightly %s] REGRESSION in %s.%s %s", n->name,
			    s->workload, s->metric, change);
		if (*c->culprit)
			strbuf_addf(&ob->subject, ": %.12s (\"%s\")", c->culprit,
				    strbuf_str(&fd->subject));
	}
	add_got_worse(&ob->mail, nt, c, s);
	strbuf_addf(&ob->mail, ".\nConfirmed by an interleaved A/B of the two commits on one host "
		    "(E%lld):\n\n", c->ab_experiment);
	for (size_t i = 0; i < ob->ntables; i++)
		if (ob->tables[i] == c->ab_experiment) {
			/* the A/B measured every metric of the workload: its table is above */
			strbuf_addf(&ob->mail, "  (the table of E%lld above)\n", c->ab_experiment);
			above = 1;
			break;
		}
	if (!above) {
		ab_report(&ob->mail, &nt->ctx->st, c->ab_experiment, AB_TEXT, AB_REPORT_VERBOSE);
		ALLOC_GROW(ob->tables, ob->ntables + 1, ob->tables_alloc);
		ob->tables[ob->ntables++] = c->ab_experiment;
	}
	add_bisection(&ob->mail, ob, c, fd);
}

/* A regression mailed before its bisection ended, as the follow-up tells its outcome. */
static void add_followup(struct outbox *ob, const struct nightly_change *c,
			 const struct nightly_series *s, const struct found *f)
{
	const struct lab_nightly *n = ob->nt->n;

	ob->nfollowup++;
	if (!ob->followup_subject.len) {
		if (*c->culprit)
			strbuf_addf(&ob->followup_subject, "[lab nightly %s] culprit of the REGRESSION "
				    "in %s.%s: %.12s (\"%s\")", n->name, s->workload, s->metric,
				    c->culprit, strbuf_str(&f->subject));
		else
			strbuf_addf(&ob->followup_subject, "[lab nightly %s] bisection of the "
				    "REGRESSION in %s.%s: %s, no single culprit", n->name, s->workload,
				    s->metric, c->outcome);
	}
	add_got_worse(&ob->followup, ob->nt, c, s);
	strbuf_addf(&ob->followup, " (E%lld): its bisection has ended\n", c->ab_experiment);
	add_bisection(&ob->followup, ob, c, f);
}

/*
 * A confirmed change not yet told everywhere: into the mail when it is a
 * regression the mail has not told, into the POST when the webhook has
 * not; a regression a channel told before its bisection ended goes into
 * that channel's follow-up once the bisection has an outcome.
 */
static int outbox_add(const struct nightly_change *c, const char *series, void *data)
{
	struct outbox *ob = data;
	struct night *nt = ob->nt;
	const struct lab_nightly *n = nt->n;
	struct nightly_series s = { series, "", "", "", "", "", "", 0 };
	struct found f;
	int regression = !strcmp(c->verdict, "REGRESSION");
	struct untold u;
	int ret = -1;

	memset(&u, 0, sizeof(u));
	if (found_read(&f, &nt->ctx->st, c))
		goto out;
	u.id = c->id;
	u.pending = regression && !*c->outcome;
	u.ch[MAIL].should = regression && n->mail_to;
	u.ch[WEBHOOK].should = n->webhook != NULL;
	for (size_t i = 0; i < ob->sc->nr; i++)
		if (!strcmp(ob->sc->key.v[i], series))
			s = series_at(ob->sc, i);
	for (int ch = 0; ch < NCHANNELS; ch++) {
		if (!u.ch[ch].should)
			continue;
		if (store_nightly_notice_sent(&nt->ctx->st, &u.ch[ch].told, c->id, channel_name[ch]) ||
		    store_nightly_followup_state(&nt->ctx->st, &u.ch[ch].owed, &u.ch[ch].followed,
						 c->id, channel_name[ch]))
			goto out;
		if (!u.ch[ch].told)
			u.ch[ch].now = CARRY_CHANGE;
		else if (u.ch[ch].owed && !u.ch[ch].followed && *c->outcome)
			u.ch[ch].now = CARRY_FOLLOWUP;
	}
	if (u.ch[WEBHOOK].now)
		add_json(ob, c, series, &s, &f, u.ch[WEBHOOK].now);
	if (u.ch[MAIL].now == CARRY_CHANGE)
		add_mail(ob, c, &s, &f);
	else if (u.ch[MAIL].now == CARRY_FOLLOWUP)
		add_followup(ob, c, &s, &f);
	ALLOC_GROW(ob->ch, ob->nch + 1, ob->ch_alloc);
	ob->ch[ob->nch++] = u;
	ret = 0;
out:
	found_release(&f);
	return ret;
}

/*
 * A message of channel delivered what it carried (a mask of enum carried):
 * recorded for each change, with the follow-up a change told before its
 * bisection ended now owes, in one transaction.
 */
static int delivered(struct outbox *ob, enum channel ch, unsigned carried)
{
	struct store *st = &ob->nt->ctx->st;

	if (store_begin(st))
		return -1;
	for (size_t i = 0; i < ob->nch; i++) {
		struct untold *u = &ob->ch[i];

		if (!(u->ch[ch].now & carried))
			continue;
		if (u->ch[ch].now == CARRY_CHANGE) {
			if (store_nightly_notice_add(st, u->id, channel_name[ch]) ||
			    (u->pending && store_nightly_followup_owe(st, u->id, channel_name[ch])))
				goto fail;
			u->ch[ch].told = 1;
			u->ch[ch].owed |= u->pending;
		} else {
			if (store_nightly_followup_sent(st, u->id, channel_name[ch]))
				goto fail;
			u->ch[ch].followed = 1;
		}
		u->ch[ch].now = 0;
	}
	return store_commit(st);
fail:
	store_rollback(st);
	return -1;
}

/* Told on every channel that should tell it, with the follow-ups it owes. */
static int all_told(const struct untold *u)
{
	for (int ch = 0; ch < NCHANNELS; ch++)
		if (u->ch[ch].should && (!u->ch[ch].told || (u->ch[ch].owed && !u->ch[ch].followed)))
			return 0;
	return 1;
}

/* Where the nightly's mail and POST go; who names it in messages ("nightly 'mm'"). */
static struct notify_to notify_to_of(const struct lab_nightly *n, struct strbuf *who)
{
	strbuf_addf(who, "nightly '%s'", n->name);
	return (struct notify_to){ who->buf, n->smtp, n->mail_from, n->mail_to, n->webhook };
}

/*
 * Mail subject and body (the footer added here) of what carried; a mail
 * that could not be sent is the night's infrastructure failure, and is
 * tried again next night.
 */
static int send_mail(struct outbox *ob, const struct notify_creds *creds, const char *subject,
		     struct strbuf *body, enum carried carried)
{
	struct night *nt = ob->nt;
	const struct lab_nightly *n = nt->n;
	const char *what = carried == CARRY_FOLLOWUP ? "follow-up" : "regression";
	struct strbuf safe = STRBUF_INIT, who = STRBUF_INIT;
	struct notify_to to;
	int failed;

	strbuf_addf(body, "-- \nlab nightly %s, night %lld: branch %s of %s at %.12s\n", n->name,
		    nt->id, n->branch, url_redacted(n->repository), nt->head);
	/* a culprit's subject or a command line is read in a terminal's mail reader too */
	escape_term(&safe, body->buf, ESCAPE_TERM_LINES);
	to = notify_to_of(n, &who);
	failed = notify_mail(&to, creds, term_safe(subject), safe.buf);
	strbuf_release_all(&safe, &who);
	if (failed) {
		night_infra(nt, "the %s mail to %s was not sent", what, n->mail_to);
		return 0;
	}
	say_to(nt->out, "mail: %ssent to %s", carried == CARRY_FOLLOWUP ? "follow-up " : "",
		n->mail_to);
	return delivered(ob, MAIL, carried);
}

/*
 * One mail for the confirmed regressions the mail has not told, one for
 * the bisections that ended after their regression was mailed, one POST
 * for every confirmed change and follow-up the webhook has not told (this
 * night's, and those a killed or failed night left). Each channel's
 * delivery is recorded on its own, so that a channel that failed is tried
 * again the next night without the other sending twice; a change is
 * marked once every configured channel took it and its follow-up.
 */
int night_notify(struct night *nt, const struct series_copy *sc)
{
	const struct lab_nightly *n = nt->n;
	struct notify_creds creds;
	struct outbox ob;
	int ret = -1;

	memset(&ob, 0, sizeof(ob));
	ob.nt = nt;
	ob.sc = sc;
	notify_creds_init(&creds);
	json_writer_init_sb(&ob.jw, &ob.json, JSON_WRITER_COMPACT);
	json_object_begin(&ob.jw, NULL);
	json_string(&ob.jw, "nightly", n->name);
	json_string(&ob.jw, "repository", url_redacted(n->repository));
	json_string(&ob.jw, "branch", n->branch);
	json_string(&ob.jw, "head", nt->head);
	json_int(&ob.jw, "night", nt->id);
	json_array_begin(&ob.jw, "changes");
	if (store_nightly_changes_unnotified(&nt->ctx->st, n->name, outbox_add, &ob))
		goto out;
	json_array_end(&ob.jw);
	json_object_end(&ob.jw);
	if ((ob.npost || ob.nmail || ob.nfollowup) && notify_creds_read(&creds, n->credentials)) {
		night_infra(nt, "notifications not sent: the credentials file was refused");
		ret = 0;
		goto out;
	}
	if (ob.nmail > 1)
		strbuf_addf(&ob.subject, ", +%zu other regression%s", ob.nmail - 1,
			    ob.nmail > 2 ? "s" : "");
	if ((ob.nmail && send_mail(&ob, &creds, ob.subject.buf, &ob.mail, CARRY_CHANGE)) ||
	    (ob.nfollowup && send_mail(&ob, &creds, ob.followup_subject.buf, &ob.followup,
				       CARRY_FOLLOWUP)))
		goto out;
	if (ob.npost) {
		struct strbuf who = STRBUF_INIT;
		struct notify_to to = notify_to_of(n, &who);
		int failed = notify_webhook(&to, &creds, ob.json.buf);

		strbuf_release(&who);
		if (failed) {
			night_infra(nt, "the webhook POST was not sent");
		} else {
			say_to(nt->out, "webhook: posted %zu change%s", ob.npost,
				ob.npost == 1 ? "" : "s");
			if (delivered(&ob, WEBHOOK, CARRY_CHANGE | CARRY_FOLLOWUP))
				goto out;
		}
	}
	for (size_t i = 0; i < ob.nch; i++)
		if (all_told(&ob.ch[i]) && store_nightly_change_notified(&nt->ctx->st, ob.ch[i].id))
			goto out;
	ret = 0;
out:
	free(ob.ch);
	free(ob.tables);
	strbuf_release_all(&ob.mail, &ob.subject, &ob.followup, &ob.followup_subject, &ob.json);
	notify_creds_release(&creds);
	return ret;
}
