#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "gitutil.h"
#include "patch.h"
#include "regfile.h"
#include "strbuf.h"
#include "subprocess.h"
#include "capture.h"
#include "rmtree.h"
#include "tap.h"

/*
 * git format-patch --cover-letter output against a.txt = "one\ntwo\nthree\n",
 * with a UTF-8 author (RFC 2047 "q" encoded), a folded Subject, and a body
 * line starting with "From " that must not split the mbox.
 */
static const char series_mbox[] =
	"From 9dd716f90ea0589b52f9e48a108ae1d2e891fa72 Mon Sep 17 00:00:00 2001\n"
	"From: Seed Maintainers\n"
	" <maintainers@example.org>\n"
	"Date: Mon, 30 Nov 2026 09:26:34 +0000\n"
	"Subject: [PATCH 0/2] *** SUBJECT HERE ***\n"
	"\n"
	"*** BLURB HERE ***\n"
	"\n"
	" a.txt | 3 ++-\n"
	" 1 file changed, 2 insertions(+), 1 deletion(-)\n"
	"\n"
	"-- \n"
	"2.39.5\n"
	"\n"
	"From 6626bfae249def01ec41f0d6d79e9f618df6956f Mon Sep 17 00:00:00 2001\n"
	"From: =?UTF-8?q?J=C3=B6rg=20R=C3=B6del?= <joro@8bytes.org>\n"
	"Date: Tue, 18 Jun 2024 11:00:00 -0530\n"
	"Subject: [PATCH 1/2] mm: a rather long subject line that will certainly need\n"
	" folding in the mail header, so there\n"
	"MIME-Version: 1.0\n"
	"Content-Type: text/plain; charset=UTF-8\n"
	"Content-Transfer-Encoding: 8bit\n"
	"\n"
	"Body line one.\n"
	"From the list: this line starts with From 12:34:56 2024.\n"
	"\n"
	"Signed-off-by: J\xc3\xb6rg R\xc3\xb6" "del <joro@8bytes.org>\n"
	"---\n"
	" a.txt | 2 +-\n"
	" 1 file changed, 1 insertion(+), 1 deletion(-)\n"
	"\n"
	"diff --git a/a.txt b/a.txt\n"
	"index 4cb29ea..f04eb26 100644\n"
	"--- a/a.txt\n"
	"+++ b/a.txt\n"
	"@@ -1,3 +1,3 @@\n"
	" one\n"
	"-two\n"
	"+2\n"
	" three\n"
	"-- \n"
	"2.39.5\n"
	"\n"
	"\n"
	"From 9dd716f90ea0589b52f9e48a108ae1d2e891fa72 Mon Sep 17 00:00:00 2001\n"
	"From: Ada Lovelace <ada@example.org>\n"
	"Date: Wed, 19 Jun 2024 09:15:00 +0200\n"
	"Subject: [PATCH 2/2] lib: add four\n"
	"\n"
	"Short body.\n"
	"---\n"
	" a.txt | 1 +\n"
	" 1 file changed, 1 insertion(+)\n"
	"\n"
	"diff --git a/a.txt b/a.txt\n"
	"index f04eb26..ea14db2 100644\n"
	"--- a/a.txt\n"
	"+++ b/a.txt\n"
	"@@ -1,3 +1,4 @@\n"
	" one\n"
	" 2\n"
	" three\n"
	"+four\n"
	"-- \n"
	"2.39.5\n"
	"\n";

static const char diff1[] =
	"diff --git a/a.txt b/a.txt\n"
	"index 4cb29ea..f04eb26 100644\n"
	"--- a/a.txt\n"
	"+++ b/a.txt\n"
	"@@ -1,3 +1,3 @@\n"
	" one\n"
	"-two\n"
	"+2\n"
	" three\n";

/*
 * One mail as a mail client saves it: no From_ line, CRLF line ends, a
 * quoted-printable body with a soft line break, an in-body From: naming
 * the real author, no "---" line and no signature; the last hunk removes
 * a line that reads "- ", which looks like a signature separator.
 */
static const char single_mail[] =
	"Return-Path: <list@example.org>\r\n"
	"From: Mail Robot <robot@example.org>\r\n"
	"Subject: =?ISO-8859-1?B?W1JGQyBQQVRDSCB2MiAzLzddIGNhZuk=?=\r\n"
	"Date: Mon, 2 Jan 2023 03:04:05 GMT\r\n"
	"Content-Transfer-Encoding: quoted-printable\r\n"
	"\r\n"
	"From: \"Doe, Jane\" <jane@example.org>\r\n"
	"\r\n"
	"Caf=C3=A9 is spelled with an e-acute; this line is long enough to be wr=\r\n"
	"apped.\r\n"
	"diff --git a/m.txt b/m.txt\r\n"
	"--- a/m.txt\r\n"
	"+++ b/m.txt\r\n"
	"@@ -1,2 +1 @@\r\n"
	" keep\r\n"
	"-- \r\n";

static const char single_diff[] =
	"diff --git a/m.txt b/m.txt\n"
	"--- a/m.txt\n"
	"+++ b/m.txt\n"
	"@@ -1,2 +1 @@\n"
	" keep\n"
	"-- \n";

/* Error lines go to fd 2; tests read them back from a file. */

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Mails in other charsets than UTF-8 and Latin-1: subjects and messages come out in UTF-8. */
static void test_charsets(void)
{
	static const char koi8[] =
		"From: Ivan <ivan@example.org>\n"
		"Subject: =?KOI8-R?B?0NLJ18XU?= =?ISO-2022-JP?B?GyRCRnxLXBsoQg==?=\n"
		"Date: Mon, 2 Jan 2023 03:04:05 GMT\n"
		"Content-Type: text/plain; charset=\"iso-8859-15\"\n"
		"Content-Transfer-Encoding: 8bit\n"
		"\n"
		"Costs 5 \xa4.\n"
		"---\n"
		"diff --git a/m.txt b/m.txt\n"
		"--- a/m.txt\n"
		"+++ b/m.txt\n"
		"@@ -1 +1 @@\n"
		"-\xa4\n"
		"+x\n";
	static const char unknown[] =
		"From: A <a@example.org>\n"
		"Subject: =?x-no-such-charset?Q?caf=E9?= and =?KOI8-R?Q?=FF?=\n"
		"\n"
		"diff --git a/m.txt b/m.txt\n"
		"--- a/m.txt\n"
		"+++ b/m.txt\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n";
	struct patch_series s = PATCH_SERIES_INIT;
	struct strbuf why = STRBUF_INIT;

	is_int(patch_series_parse(&s, koi8, strlen(koi8), &why), 0, "a KOI8-R and ISO-2022-JP mail parses");
	if (s.nr == 1) {
		is_str(s.v[0].subject, "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82"
		       "\xe6\x97\xa5\xe6\x9c\xac", "KOI8-R and ISO-2022-JP encoded words in UTF-8");
		is_str(s.v[0].body, "Costs 5 \xe2\x82\xac.", "an ISO-8859-15 message in UTF-8: the euro");
		ok(strstr(s.v[0].diff, "-\xa4\n") != NULL, "the diff's bytes as they were");
	}
	patch_series_release(&s);
	is_int(patch_series_parse(&s, unknown, strlen(unknown), &why), 0, "an unknown charset parses");
	if (s.nr == 1)
		is_str(s.v[0].subject, "caf\xe9 and \xd0\xaa",
		       "its word as it was; KOI8-R 0xFF is a hard sign");
	patch_series_release(&s);
	strbuf_release(&why);
}

static void test_parse(void)
{
	struct patch_series s = PATCH_SERIES_INIT;
	struct strbuf why = STRBUF_INIT, mail = STRBUF_INIT;
	time_t t0;

	is_int(patch_series_parse(&s, series_mbox, strlen(series_mbox), &why), 0,
	       "a format-patch mbox parses");
	is_int(s.nr, 2, "the cover letter is skipped, two patches remain");
	if (s.nr == 2) {
		is_str(s.v[0].author_name, "J\xc3\xb6rg R\xc3\xb6" "del", "q-encoded author name");
		is_str(s.v[0].author_email, "joro@8bytes.org", "author email");
		is_int(s.v[0].date.time, 1718728200, "Date: 2024-06-18 11:00:00 -0530");
		is_int(s.v[0].date.offset, -330, "timezone -0530 is -330 minutes");
		is_str(s.v[0].subject, "mm: a rather long subject line that will certainly need "
		       "folding in the mail header, so there",
		       "folded subject joined, [PATCH 1/2] stripped");
		is_str(s.v[0].body, "Body line one.\n"
		       "From the list: this line starts with From 12:34:56 2024.\n\n"
		       "Signed-off-by: J\xc3\xb6rg R\xc3\xb6" "del <joro@8bytes.org>",
		       "body ends before ---");
		is_str(s.v[0].diff, diff1, "diff ends before the signature");
		is_int(s.v[0].diff_len, strlen(diff1), "diff_len");
		is_str(s.v[1].author_name, "Ada Lovelace", "second author");
		is_str(s.v[1].author_email, "ada@example.org", "second email");
		is_str(s.v[1].subject, "lib: add four", "second subject");
		is_str(s.v[1].body, "Short body.", "second body");
		is_int(s.v[1].date.time, 1718781300, "Date: 2024-06-19 09:15:00 +0200");
		is_int(s.v[1].date.offset, 120, "timezone +0200");
		ok(strstr(s.v[1].diff, "+four\n") && !strstr(s.v[1].diff, "2.39.5"),
		   "second diff, no signature");
	}
	patch_series_release(&s);
	is_int(s.nr, 0, "release empties the series");

	is_int(patch_series_parse(&s, single_mail, strlen(single_mail), &why), 0,
	       "a single mail without a From_ line parses");
	if (s.nr == 1) {
		is_str(s.v[0].author_name, "Doe, Jane", "in-body From: wins, quotes removed");
		is_str(s.v[0].author_email, "jane@example.org", "in-body email");
		is_str(s.v[0].subject, "caf\xc3\xa9", "B-encoded Latin-1 subject, [RFC PATCH v2 3/7] stripped");
		is_str(s.v[0].body, "Caf\xc3\xa9 is spelled with an e-acute; this line is long "
		       "enough to be wrapped.", "quoted-printable body decoded");
		is_str(s.v[0].diff, single_diff, "CRLF undone; a removed '- ' line is not a signature");
		is_int(s.v[0].date.time, 1672628645, "Date: in GMT");
	} else {
		ok(0, "one patch");
		printf("# %s\n", why.buf);
	}
	patch_series_release(&s);

	strbuf_reset(&why);
	is_int(patch_series_parse(&s, "Dear all,\nplease pull.\n", 23, &why), -1,
	       "plain text is rejected");
	is_str(why.buf, "no 'diff --git' line in it", "why: no diff");
	strbuf_reset(&why);
	is_int(patch_series_parse(&s, diff1, strlen(diff1), &why), -1, "a bare diff is rejected");
	ok(strstr(why.buf, "without mail headers"), "why: no headers");
	strbuf_reset(&mail);
	strbuf_addstr(&mail, "From: Ada Lovelace <ada@example.org>\n\nNo subject here.\n---\n");
	strbuf_addstr(&mail, diff1);
	strbuf_reset(&why);
	is_int(patch_series_parse(&s, mail.buf, mail.len, &why), -1, "a mail without Subject:");
	is_str(why.buf, "patch 1 has no subject", "why: no subject");

	strbuf_reset(&mail);
	strbuf_addstr(&mail, "From: ada@example.org\nSubject: [PATCH] undated\n\n");
	strbuf_addstr(&mail, diff1);
	t0 = time(NULL);
	is_int(patch_series_parse(&s, mail.buf, mail.len, &why), 0, "a mail without Date: parses");
	if (s.nr == 1) {
		ok(s.v[0].date.time >= t0 && s.v[0].date.time <= time(NULL) + 1,
		   "its date is the time of parsing");
		is_str(s.v[0].author_name, "ada@example.org", "a bare address is the name too");
		is_str(s.v[0].body, "", "an empty body");
	}
	patch_series_release(&s);

	/* a year whose seconds overflow a long long, found by make fuzz */
	strbuf_reset(&mail);
	strbuf_addstr(&mail, "From: ada@example.org\nDate: Thu, 6 Oct 20236666666666 00:00:00 "
		      "+0000\nSubject: [PATCH] far future\n\n");
	strbuf_addstr(&mail, diff1);
	t0 = time(NULL);
	is_int(patch_series_parse(&s, mail.buf, mail.len, &why), 0,
	       "a mail dated in the year 20236666666666 parses");
	if (s.nr == 1)
		ok(s.v[0].date.time >= t0 && s.v[0].date.time <= time(NULL) + 1,
		   "... its date is taken as missing: the time of parsing");
	patch_series_release(&s);

	strbuf_reset(&why);
	is_int(patch_series_parse(&s, "\n \n", 3, &why), -1, "blank text is rejected");
	is_str(why.buf, "it is empty", "why: empty");
	is_int(s.nr, 0, "nothing left after a rejection");
	strbuf_release(&why);
	strbuf_release(&mail);
}

/* ---- against a repository ---- */

static void die_git(const char *what)
{
	lab_git_error(what);
	exit(2);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

/* A commit of a.txt = text on parent (or none), moving no ref. */
static void make_commit(git_oid *out, git_repository *repo, const git_commit *parent,
			const char *text, const git_signature *who, const char *msg)
{
	git_treebuilder *tb;
	git_tree *tree;
	git_oid blob, tree_id;

	if (git_blob_create_from_buffer(&blob, repo, text, strlen(text)) ||
	    git_treebuilder_new(&tb, repo, NULL) ||
	    git_treebuilder_insert(NULL, tb, "a.txt", &blob, GIT_FILEMODE_BLOB) ||
	    git_treebuilder_write(&tree_id, tb) || git_tree_lookup(&tree, repo, &tree_id) ||
	    git_commit_create(out, repo, NULL, who, who, NULL, msg, tree, parent ? 1 : 0,
			      parent ? &parent : NULL))
		die_git("fixture commit");
	git_treebuilder_free(tb);
	git_tree_free(tree);
}

/* The base: a.txt committed through the index in a work tree, HEAD on its branch. */
static void make_base(git_oid *base, git_repository **repo, const char *dir)
{
	struct strbuf path = STRBUF_INIT;
	git_signature *who;
	git_index *index;
	git_tree *tree;
	git_oid tree_id;

	if (git_repository_init(repo, dir, 0))
		die_git("fixture repository");
	strbuf_addf(&path, "%s/a.txt", dir);
	write_file(path.buf, "one\ntwo\nthree\n");
	if (git_repository_index(&index, *repo) || git_index_add_bypath(index, "a.txt") ||
	    git_index_write(index) || git_index_write_tree(&tree_id, index) ||
	    git_tree_lookup(&tree, *repo, &tree_id) ||
	    git_signature_new(&who, "Base", "base@example.org", 1700000000, 60) ||
	    git_commit_create(base, *repo, "HEAD", who, who, NULL, "base\n", tree, 0, NULL))
		die_git("fixture base");
	git_signature_free(who);
	git_tree_free(tree);
	git_index_free(index);
	strbuf_release(&path);
}

static char *blob_text(git_repository *repo, const git_oid *commit_id, const char *path)
{
	git_commit *c;
	git_tree *tree;
	git_tree_entry *e;
	git_blob *blob;
	struct strbuf sb = STRBUF_INIT;

	if (git_commit_lookup(&c, repo, commit_id) || git_commit_tree(&tree, c) ||
	    git_tree_entry_bypath(&e, tree, path) ||
	    git_blob_lookup(&blob, repo, git_tree_entry_id(e)))
		return NULL;
	strbuf_add(&sb, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_commit_free(c);
	return strbuf_detach(&sb);
}

static size_t count_refs(git_repository *repo)
{
	git_strarray refs;
	size_t n;

	if (git_reference_list(&refs, repo))
		die_git("listing refs");
	n = refs.count;
	git_strarray_dispose(&refs);
	return n;
}

static void test_apply(git_repository *repo, const git_oid *base, const char *dir)
{
	git_oid out, again, first;
	git_commit *c2 = NULL, *c1 = NULL;
	git_reference *head = NULL, *branch = NULL;
	struct strbuf err = STRBUF_INIT, mbox = STRBUF_INIT, want = STRBUF_INIT, path = STRBUF_INIT;
	struct capture cap;
	size_t refs = count_refs(repo);
	const char *two;
	char hex[13], *text;

	is_int(patch_apply_series(&out, repo, base, series_mbox, strlen(series_mbox),
				  "series.mbox"), 0, "the series applies");
	if (git_commit_lookup(&c2, repo, &out) || git_commit_parent(&c1, c2, 0))
		die_git("reading the new commits");
	is_int(git_commit_parentcount(c2), 1, "second commit has one parent");
	ok(git_oid_equal(git_commit_parent_id(c1, 0), base), "first commit's parent is the base");
	is_str(git_commit_author(c1)->name, "J\xc3\xb6rg R\xc3\xb6" "del", "first author");
	is_str(git_commit_author(c1)->email, "joro@8bytes.org", "first author email");
	is_int(git_commit_author(c1)->when.time, 1718728200, "first author date");
	is_int(git_commit_author(c1)->when.offset, -330, "first author timezone");
	is_str(git_commit_committer(c1)->name, "lab", "committer is lab");
	is_int(git_commit_committer(c1)->when.time, 1718728200, "committer time is author time");
	is_str(git_commit_summary(c1), "mm: a rather long subject line that will certainly need "
	       "folding in the mail header, so there", "first subject");
	is_str(git_commit_message(c2), "lib: add four\n\nShort body.\n", "second message");
	is_str(git_commit_author(c2)->name, "Ada Lovelace", "second author");
	text = blob_text(repo, &out, "a.txt");
	is_str(text, "one\n2\nthree\nfour\n", "the result has both patches");
	free(text);

	if (git_repository_head(&head, repo) ||
	    git_reference_lookup(&branch, repo, git_reference_name(head)))
		die_git("reading HEAD");
	ok(git_oid_equal(git_reference_target(head), base), "HEAD still at the base");
	ok(!git_repository_head_detached(repo), "HEAD still on its branch");
	ok(git_oid_equal(git_reference_target(branch), base), "the branch still at the base");
	is_int(count_refs(repo), refs, "no ref was added");
	strbuf_addf(&path, "%s/a.txt", dir);
	text = NULL;
	{
		struct strbuf sb = STRBUF_INIT;
		strbuf_read_file(&sb, path.buf, 0);
		is_str(strbuf_str(&sb), "one\ntwo\nthree\n", "the work tree is untouched");
		strbuf_release(&sb);
	}

	is_int(patch_apply_series(&again, repo, base, series_mbox, strlen(series_mbox),
				  "series.mbox"), 0, "the series applies again");
	ok(git_oid_equal(&again, &out), "applying again gives the same commit id");

	/* Patch 2 repeats patch 1, which the tree no longer matches. */
	first = *git_commit_id(c1);
	git_oid_tostr(hex, sizeof(hex), &first);
	two = strstr(series_mbox, "\n\nFrom 9dd7") + 2;
	strbuf_add(&mbox, series_mbox, (size_t)(two - series_mbox));
	strbuf_addstr(&mbox, "From 6626bfae249def01ec41f0d6d79e9f618df6956f Mon Sep 17 00:00:00 2001\n"
		      "From: Ada Lovelace <ada@example.org>\n"
		      "Subject: [PATCH 2/2] mm: batch HVO work\n\n");
	strbuf_addstr(&mbox, diff1);
	capture_start(&cap);
	is_int(patch_apply_series(&again, repo, base, mbox.buf, mbox.len, "bad.mbox"), -1,
	       "a patch that does not apply fails");
	capture_end(&cap, &err);
	strbuf_addf(&want, "lab: patch 2/2 'mm: batch HVO work' does not apply to %s: ", hex);
	ok(!strncmp(err.buf, want.buf, want.len), "the error names the patch and the commit");
	if (strncmp(err.buf, want.buf, want.len))
		printf("# got: %s", err.buf);
	is_int(count_lines(err.buf), 1, "in one line");

	capture_start(&cap);
	is_int(patch_apply_series(&again, repo, base, "hello\n", 6, "notes.txt"), -1,
	       "a non-mbox fails");
	capture_end(&cap, &err);
	is_str(err.buf, "lab: 'notes.txt' is not an mbox or patch: no 'diff --git' line in it\n",
	       "and says why");

	git_reference_free(head);
	git_reference_free(branch);
	git_commit_free(c1);
	git_commit_free(c2);
	strbuf_release(&err);
	strbuf_release(&mbox);
	strbuf_release(&want);
	strbuf_release(&path);
}

/*
 * What real git writes: commits made here, exported by `git format-patch`,
 * applied back must give the same trees, authors and messages.
 */
static void test_format_patch_roundtrip(git_repository *repo, const git_oid *base,
					const char *dir)
{
	static const char msg1[] =
		"x86/mm: a subject long enough that git format-patch folds it, with \xc3\xa9\n\n"
		"From here on the body talks.\n\nSigned-off-by: Zo\xc3\xab <zoe@example.org>\n";
	char *version[] = { "git", "--version", NULL };
	struct strbuf mbox = STRBUF_INIT, range = STRBUF_INIT;
	git_commit *base_c, *c1, *c2, *n1, *n2;
	git_signature *zoe, *bob;
	git_oid o1, o2, out;
	char hex1[GIT_OID_HEXSZ + 1], hex2[GIT_OID_HEXSZ + 1];

	if (subprocess_run(version, NULL, NULL, 10) != 0) {
		skip("format-patch round trip: no git command");
		return;
	}
	if (git_commit_lookup(&base_c, repo, base) ||
	    git_signature_new(&zoe, "Zo\xc3\xab \"Z\" Quux", "zoe@example.org", 1710000000, -480) ||
	    git_signature_new(&bob, "Bob", "bob@example.org", 1710003600, 330))
		die_git("fixture signatures");
	make_commit(&o1, repo, base_c, "one\ntwo\nthree\nZo\xc3\xab\n", zoe, msg1);
	if (git_commit_lookup(&c1, repo, &o1))
		die_git("fixture commit");
	make_commit(&o2, repo, c1, "zero\none\ntwo\nthree\nZo\xc3\xab\n", bob, "Add zero\n");
	git_oid_tostr(hex1, sizeof(hex1), base);
	git_oid_tostr(hex2, sizeof(hex2), &o2);
	strbuf_addf(&range, "%s..%s", hex1, hex2);
	{
		char *argv[] = { "git", "-C", (char *)dir, "format-patch", "--stdout",
				 range.buf, NULL };
		is_int(subprocess_run(argv, NULL, &mbox, 30), 0, "git format-patch runs");
	}
	is_int(patch_apply_series(&out, repo, base, mbox.buf, mbox.len, "format-patch"), 0,
	       "its output applies");
	if (git_commit_lookup(&n2, repo, &out) || git_commit_parent(&n1, n2, 0))
		die_git("reading the new commits");
	c2 = NULL;
	if (git_commit_lookup(&c2, repo, &o2))
		die_git("fixture commit");
	ok(git_oid_equal(git_commit_tree_id(n1), git_commit_tree_id(c1)), "first tree matches");
	ok(git_oid_equal(git_commit_tree_id(n2), git_commit_tree_id(c2)), "second tree matches");
	is_str(git_commit_author(n1)->name, "Zo\xc3\xab \"Z\" Quux", "encoded author with quotes");
	is_int(git_commit_author(n1)->when.time, 1710000000, "author time");
	is_int(git_commit_author(n1)->when.offset, -480, "author timezone");
	is_str(git_commit_message(n1), msg1, "message with folded subject and From line");
	is_str(git_commit_message(n2), "Add zero\n", "message without body");
	is_int(git_commit_author(n2)->when.offset, 330, "second author timezone");

	git_commit_free(base_c);
	git_commit_free(c1);
	git_commit_free(c2);
	git_commit_free(n1);
	git_commit_free(n2);
	git_signature_free(zoe);
	git_signature_free(bob);
	strbuf_release(&mbox);
	strbuf_release(&range);
}

int main(void)
{
	char dir[] = "/tmp/lab-test-patch-XXXXXX";
	git_repository *repo;
	git_oid base;

	test_charsets();
	test_parse();

	if (!mkdtemp(dir) || lab_git_init())
		return 2;
	make_base(&base, &repo, dir);
	test_apply(repo, &base, dir);
	test_format_patch_roundtrip(repo, &base, dir);
	git_repository_free(repo);
	lab_git_shutdown();
	if (rmtree(dir) < 0)
		perror(dir);
	return done_testing();
}
