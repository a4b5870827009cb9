#ifndef LOCK_H
#define LOCK_H
/*
 * Lock files shared by the labs of one state root: an exclusive
 * flock, which the kernel drops when its holder dies, however it dies, and
 * the holder's pid written into the file so that a lab finding the lock
 * taken can name who has it.
 */

/*
 * The lock file at path, opened above stdin so that 0 can mean none; -1
 * after saying why.
 */
int lock_open(const char *path);
/* Locked: write our pid for the labs that find the lock taken. */
int lock_claim(int fd, const char *path);
/* The holder of a lock we could not take (it writes its pid just after it locks); 0: unknown. */
long lock_wait_holder(int fd);

/*
 * Try once for an exclusive flock on the file at path: 0 with *fd locked
 * and claimed, 1 when another lab holds it (*holder its pid, 0 when
 * unknown; nothing printed), -1 after saying why.
 */
int lock_try(const char *path, int *fd, long *holder);

/*
 * An exclusive flock on the file at path, waiting (after saying so, with
 * what) while another lab holds it. Returns the fd to close to unlock, or
 * -1 after saying why.
 */
int lock_wait(const char *path, const char *what);

#endif
