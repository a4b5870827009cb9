#ifndef RMTREE_H
#define RMTREE_H
/* Remove a test's temporary folder and everything in it: 0, or -1 with errno. */
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

static int rmtree_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline int rmtree(const char *dir)
{
	return nftw(dir, rmtree_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
