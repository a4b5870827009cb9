#ifndef ARRAY_H
#define ARRAY_H
/*
 * Fixed arrays: how many elements one holds.
 */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
