/* What a night tells: one mail for its confirmed regressions, one webhook POST (nightly-night.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "escape.h"
#include "log.h"
#include "nightly-night.h"
#include "notify.h"
#include "store-nightly.h"
#include "strbuf.h"
#include "xalloc.h"

/* A change not yet told on every channel that should tell it. */
struct untold {
	long long id;
	int mail, post;		/* the channel should tell it */
	int mailed, posted;	/* it has, on an earlier night or now */
};

/* What the notifications carry, gathered before anything is sent. */
struct outbox {
	struct night *nt;
	const struct series_copy *sc;
	struct strbuf mail, subject;
	FILE *json;
	char *json_buf;
	size_t json_len;
	struct untold *ch;
	size_t nch, nmail, npost;
	long long *tables;	/* the A/Bs whose table the mail has */
	size_t ntables;
};

static void json_str(FILE *f, const char *key, const char *value)
{
	fprintf(f, ",\"%s\":", key);
	escape_json(f, value);
}

/* The change as the POST's JSON carries it. */
static void add_json(struct outbox *ob, const struct nightly_change *c, const char *series,
		     const struct nightly_series *s, const struct strbuf *subject,
		     const struct strbuf *author)
{
	const struct lab_nightly *n = ob->nt->n;
	const char *base = n->base_url && *n->base_url ? n->base_url : NULL;

	fprintf(ob->json, "%s{\"series\":", ob->npost++ ? "," : "");
	escape_json(ob->json, series);
	json_str(ob->json, "workload", s->workload);
	json_str(ob->json, "metric", s->metric);
	fprintf(ob->json, ",\"mem_mib\":%ld", s->mem_mib);
	json_str(ob->json, "cmdline", s->cmdline);
	json_str(ob->json, "clock", s->clock);
	json_str(ob->json, "verdict", c->verdict);
	json_str(ob->json, "before", c->before);
	json_str(ob->json, "after", c->after);
	fprintf(ob->json, ",\"ab_experiment\":%lld", c->ab_experiment);
	if (c->bisection)
		fprintf(ob->json, ",\"bisection\":%lld", c->bisection);
	if (*c->outcome)
		json_str(ob->json, "outcome", c->outcome);
	if (*c->culprit) {
		json_str(ob->json, "culprit", c->culprit);
		json_str(ob->json, "subject", strbuf_str(subject));
		json_str(ob->json, "author", strbuf_str(author));
	}
	if (base) {
		struct strbuf url = STRBUF_INIT;

		strbuf_addf(&url, "%s/e%lld.html", base, c->ab_experiment);
		json_str(ob->json, "ab_url", url.buf);
		if (c->bisection) {
			strbuf_reset(&url);
			strbuf_addf(&url, "%s/b%lld.html", base, c->bisection);
			json_str(ob->json, "bisection_url", url.buf);
		}
		strbuf_release(&url);
	}
	fputc('}', ob->json);
}

/* The regression as the mail tells it: the A/B table, the culprit, the links. */
static void add_mail(struct outbox *ob, const struct nightly_change *c,
		     const struct nightly_series *s, const struct strbuf *subject,
		     const struct strbuf *author)
{
	struct night *nt = ob->nt;
	const struct lab_nightly *n = nt->n;
	const char *base = n->base_url && *n->base_url ? n->base_url : NULL;
	char *table = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&table, &len);

	ob->nmail++;
	if (!ob->subject.len) {
		strbuf_addf(&ob->subject, "[lab nightly %s] REGRESSION in %s.%s", n->name,
			    s->workload, s->metric);
		if (*c->culprit)
			strbuf_addf(&ob->subject, ": %.12s (\"%s\")", c->culprit, strbuf_str(subject));
	}
	strbuf_addf(&ob->mail, "%s.%s (%s, %ldM, %s, cmdline '%s') got worse between %.12s and "
		    "%.12s.\nConfirmed by an interleaved A/B of the two commits on one host "
		    "(E%lld):\n\n", s->workload, s->metric, s->target, s->mem_mib, s->clock,
		    s->cmdline, c->before, c->after, c->ab_experiment);
	for (size_t i = 0; i < ob->ntables; i++)
		if (ob->tables[i] == c->ab_experiment) {
			/* the A/B measured every metric of the workload: its table is above */
			strbuf_addf(&ob->mail, "  (the table of E%lld above)\n", c->ab_experiment);
			if (f)
				fclose(f);
			f = NULL;
			break;
		}
	if (f) {
		ab_report(f, &nt->ctx->st, c->ab_experiment, AB_TEXT);
		fclose(f);
		strbuf_addstr(&ob->mail, table ? table : "");
		ob->tables = xrealloc(ob->tables, (ob->ntables + 1) * sizeof(*ob->tables));
		ob->tables[ob->ntables++] = c->ab_experiment;
	}
	free(table);
	if (*c->culprit)
		strbuf_addf(&ob->mail, "\nculprit: %s\nsubject: %s\nauthor: %s\nbisection: E%lld, "
			    "%s\n", c->culprit, strbuf_str(subject), strbuf_str(author),
			    c->bisection, c->outcome);
	else if (c->bisection)
		strbuf_addf(&ob->mail, "\nbisection: E%lld, %s: no single culprit\n",
			    c->bisection, c->outcome);
	if (base) {
		strbuf_addf(&ob->mail, "\nA/B: %s/e%lld.html\n", base, c->ab_experiment);
		if (c->bisection)
			strbuf_addf(&ob->mail, "bisection: %s/b%lld.html\n", base, c->bisection);
	}
	strbuf_addstr(&ob->mail, "\n");
}

/*
 * A confirmed change not yet told everywhere: into the mail when it is a
 * regression the mail has not told, into the POST when the webhook has not.
 */
static int outbox_add(const struct nightly_change *c, const char *series, void *data)
{
	struct outbox *ob = data;
	struct night *nt = ob->nt;
	const struct lab_nightly *n = nt->n;
	struct strbuf subject = STRBUF_INIT, author = STRBUF_INIT;
	struct nightly_series s = { series, "", "", "", "", "", "", 0 };
	struct untold u = { c->id, !strcmp(c->verdict, "REGRESSION") && n->mail_to,
			    n->webhook != NULL, 0, 0 };
	int ret = -1;

	for (size_t i = 0; i < ob->sc->nr; i++)
		if (!strcmp(ob->sc->key.v[i], series))
			s = series_at(ob->sc, i);
	if ((u.mail && store_nightly_notice_sent(&nt->ctx->st, &u.mailed, c->id, "mail")) ||
	    (u.post && store_nightly_notice_sent(&nt->ctx->st, &u.posted, c->id, "webhook")) ||
	    (*c->culprit && store_nightly_commit_info(&nt->ctx->st, &subject, &author, c->culprit)))
		goto out;
	ob->ch = xrealloc(ob->ch, (ob->nch + 1) * sizeof(*ob->ch));
	ob->ch[ob->nch++] = u;
	if (u.post && !u.posted)
		add_json(ob, c, series, &s, &subject, &author);
	if (u.mail && !u.mailed)
		add_mail(ob, c, &s, &subject, &author);
	ret = 0;
out:
	strbuf_release(&subject);
	strbuf_release(&author);
	return ret;
}

/* Channel delivered what it carried: recorded for each change it told. */
static int delivered(struct outbox *ob, const char *channel)
{
	int mail = !strcmp(channel, "mail");

	for (size_t i = 0; i < ob->nch; i++) {
		struct untold *u = &ob->ch[i];
		int *done = mail ? &u->mailed : &u->posted;

		if (!(mail ? u->mail : u->post) || *done)
			continue;
		if (store_nightly_notice_add(&ob->nt->ctx->st, u->id, channel))
			return -1;
		*done = 1;
	}
	return 0;
}

/*
 * One mail for the confirmed regressions the mail has not told, one POST
 * for every confirmed change the webhook has not (this night's, and those
 * a killed or failed night left). Each channel's delivery is recorded on
 * its own, so that a channel that failed is tried again the next night
 * without the other sending twice; a change is marked once every
 * configured channel took it.
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
	ob.json = open_memstream(&ob.json_buf, &ob.json_len);
	if (!ob.json) {
		error("out of memory");
		goto out;
	}
	fprintf(ob.json, "{\"nightly\":");
	escape_json(ob.json, n->name);
	json_str(ob.json, "repository", n->repository);
	json_str(ob.json, "branch", n->branch);
	json_str(ob.json, "head", nt->head);
	fprintf(ob.json, ",\"night\":%lld,\"changes\":[", nt->id);
	if (store_nightly_changes_unnotified(&nt->ctx->st, n->name, outbox_add, &ob))
		goto out;
	fprintf(ob.json, "]}");
	fclose(ob.json);
	ob.json = NULL;
	if ((ob.npost || ob.nmail) && notify_creds_read(&creds, n->credentials)) {
		night_infra(nt, "notifications not sent: the credentials file was refused");
		ret = 0;
		goto out;
	}
	if (ob.nmail) {
		strbuf_addf(&ob.mail, "-- \nlab nightly %s, night %lld: branch %s of %s at %.12s\n",
			    n->name, nt->id, n->branch, n->repository, nt->head);
		if (notify_mail(n, &creds, ob.subject.buf, ob.mail.buf)) {
			night_infra(nt, "the regression mail to %s was not sent", n->mail_to);
		} else {
			fprintf(nt->out, "mail: sent to %s\n", n->mail_to);
			if (delivered(&ob, "mail"))
				goto out;
		}
	}
	if (ob.npost) {
		if (notify_webhook(n, &creds, ob.json_buf)) {
			night_infra(nt, "the webhook POST was not sent");
		} else {
			fprintf(nt->out, "webhook: posted %zu change%s\n", ob.npost,
				ob.npost == 1 ? "" : "s");
			if (delivered(&ob, "webhook"))
				goto out;
		}
	}
	for (size_t i = 0; i < ob.nch; i++) {
		const struct untold *u = &ob.ch[i];

		if ((!u->mail || u->mailed) && (!u->post || u->posted) &&
		    store_nightly_change_notified(&nt->ctx->st, u->id))
			goto out;
	}
	ret = 0;
out:
	if (ob.json)
		fclose(ob.json);
	free(ob.json_buf);
	free(ob.ch);
	free(ob.tables);
	strbuf_release(&ob.mail);
	strbuf_release(&ob.subject);
	notify_creds_release(&creds);
	return ret;
}
