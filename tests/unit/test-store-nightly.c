/*
 * A nightly change's notices and follow-ups on a real database: a
 * follow-up is owed once per change and channel, stays owed until it is
 * delivered, and is delivered once; a change owing a follow-up is still
 * read as not notified until store_nightly_change_notified() says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-experiment.h"
#include "store-fixture.h"
#include "store-nightly.h"
#include "tap.h"

struct seen {
	long long id;
	int n;
};

static int seen_change(const struct nightly_change *c, const char *series, void *data)
{
	struct seen *s = data;

	(void)series;
	s->id = c->id;
	s->n++;
	return 0;
}

int main(void)
{
	const struct store_variant_spec spec[2] = { { 0, "a=1", NULL }, { 0, "b=1", NULL } };
	struct nightly_change c;
	struct seen seen;
	struct store_fixture fx;
	struct store st;
	long long night = 0, ab = 0, bis = 0, vid[2];
	int interrupted = -1, owed = -1, sent = -1;

	/* two experiments, for the change's A/B and bisection to refer to */
	if (store_fixture_open(&fx, &st) ||
	    store_nightly_night_begin(&st, &night, &interrupted, "mm") ||
	    store_experiment_create_ab(&st, &ab, vid, "lab ab", "zeroing", spec) ||
	    store_experiment_create_ab(&st, &bis, vid, "lab ab", "zeroing", spec))
		return 1;
	memset(&c, 0, sizeof(c));
	snprintf(c.before, sizeof(c.before), "%040d", 1);
	snprintf(c.after, sizeof(c.after), "%040d", 2);
	snprintf(c.kind, sizeof(c.kind), "SUSPECT");
	c.ratio = 1.1;
	ok(store_nightly_change_add(&st, &c, "mm", "zeroing.t", night) == 0 && c.id > 0,
	   "a change recorded");
	ok(store_nightly_change_confirmed(&st, c.id, ab, "REGRESSION") == 0, "and confirmed");

	ok(store_nightly_followup_state(&st, &owed, &sent, c.id, "mail") == 0 && !owed && !sent,
	   "no follow-up owed at first");
	ok(store_nightly_notice_add(&st, c.id, "mail") == 0 &&
	   store_nightly_followup_owe(&st, c.id, "mail") == 0, "mailed before its bisection ended");
	ok(store_nightly_followup_owe(&st, c.id, "mail") == 0, "owed twice is owed once");
	ok(store_nightly_followup_state(&st, &owed, &sent, c.id, "mail") == 0 && owed && !sent,
	   "a follow-up owed to the mail");
	ok(store_nightly_followup_state(&st, &owed, &sent, c.id, "webhook") == 0 && !owed && !sent,
	   "none to the webhook");

	memset(&seen, 0, sizeof(seen));
	ok(store_nightly_changes_unnotified(&st, "mm", seen_change, &seen) == 0 && seen.n == 1 &&
	   seen.id == c.id, "the change is read as not notified");

	ok(store_nightly_change_bisected(&st, c.id, bis, "", "NO_REGRESSION") == 0 &&
	   store_nightly_followup_sent(&st, c.id, "mail") == 0, "the follow-up delivered");
	ok(store_nightly_followup_state(&st, &owed, &sent, c.id, "mail") == 0 && owed && sent,
	   "and recorded");
	ok(store_nightly_followup_sent(&st, c.id, "webhook") == 0 &&
	   store_nightly_followup_state(&st, &owed, &sent, c.id, "webhook") == 0 && !owed && !sent,
	   "a follow-up never owed is not recorded as sent");

	ok(store_nightly_change_notified(&st, c.id) == 0, "the change notified");
	memset(&seen, 0, sizeof(seen));
	ok(store_nightly_changes_unnotified(&st, "mm", seen_change, &seen) == 0 && seen.n == 0,
	   "and no longer read");

	store_close(&st);
	if (store_fixture_remove(&fx))
		return 1;
	return done_testing();
}
