#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmu-sample.h"
#include "pmu.h"

/*
 * A sample every half million cycles: 2,000 a second of a 1 GHz CPU, far
 * below the kernel's default cap (perf_event_max_sample_rate, 100,000),
 * and 16 bytes each, so a ring of 1 MiB (256 pages of 4 KiB, 16 of 64
 * KiB) holds half a minute of one busy CPU at 1 GHz. The ring is read
 * after the workload: a longer one loses the rest, which the kernel
 * counts (PERF_RECORD_LOST) and the meta says.
 */
#define SAMPLE_PERIOD 500000ULL
#define RING_BYTES (1UL << 20)
#define SAMPLE_CPUS 64

static const struct {
	const char *name;
	unsigned long long config;
} events[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
};

struct ring {
	int fd;
	void *map;
	unsigned long long value, running;	/* counted over the workload */
};

static struct ring rings[SAMPLE_CPUS];
static int nrings, event;
static size_t page, ring;	/* the ring's data: a power of two pages */

/* Kernel text symbols by address, read once from /proc/kallsyms. */
struct sym {
	unsigned long long addr;
	size_t name;		/* offset in names */
};
static struct sym *syms;
static size_t nsyms;
static char *names;

static int open_one(int cpu, size_t e)
{
	struct perf_event_attr attr = {
		.sample_period = SAMPLE_PERIOD,
		.sample_type = PERF_SAMPLE_IP,
		/* before the guest's own counters (pmu.c), so that cycles get the cycle counter */
		.pinned = 1,
	};

	return pmu_open(&attr, PERF_TYPE_HARDWARE, events[e].config, -1, cpu);
}

static const char *errno_why(int err)
{
	if (err == ENOENT || err == ENODEV)
		return "no PMU the kernel drives";
	if (err == EOPNOTSUPP)
		return "the PMU counts but cannot interrupt to sample";
	return strerror(err);
}

static void close_all(void)
{
	for (int i = 0; i < nrings; i++) {
		if (rings[i].map)
			munmap(rings[i].map, ring + page);
		close(rings[i].fd);
	}
	nrings = 0;
}

int pmu_sample_begin(char *why, size_t whysize)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	int fd = -1, err = 0;

	page = (size_t)sysconf(_SC_PAGESIZE);
	ring = RING_BYTES > page ? RING_BYTES : page;
	if (cpus > SAMPLE_CPUS)
		cpus = SAMPLE_CPUS;
	for (event = 0; event < (int)(sizeof(events) / sizeof(events[0])); event++) {
		fd = open_one(0, (size_t)event);
		if (fd >= 0)
			break;
		if (!err)
			err = errno;
	}
	if (fd < 0) {
		snprintf(why, whysize, "perf_event_open: %s", errno_why(err));
		return -1;
	}
	for (int cpu = 0; cpu < cpus; cpu++) {
		struct ring *r = &rings[nrings];
		if (cpu && (fd = open_one(cpu, (size_t)event)) < 0)
			continue;	/* an offline CPU */
		r->fd = fd;
		r->map = mmap(NULL, ring + page, PROT_READ | PROT_WRITE, MAP_SHARED,
			      fd, 0);
		nrings++;
		if (r->map == MAP_FAILED) {
			r->map = NULL;
			snprintf(why, whysize, "mmap of CPU %d's sample buffer: %s", cpu,
				 strerror(errno));
			close_all();
			return -1;
		}
	}
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The kernel's functions (text symbols, t and T, weak ones too), sorted. */
static void load_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t alloc = 0, nlen = 0, nalloc = 0;
	char line[512], name[256], type;
	unsigned long long addr;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		size_t len;
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr ||
		    !strchr("tTwW", type))
			continue;
		len = strlen(name) + 1;
		if (nsyms == alloc) {
			alloc = alloc ? 2 * alloc : 65536;
			syms = realloc(syms, alloc * sizeof(*syms));
		}
		if (nlen + len > nalloc) {
			nalloc = nalloc ? 2 * nalloc : 1 << 21;
			names = realloc(names, nalloc);
		}
		if (!syms || !names)
			break;
		memcpy(names + nlen, name, len);
		syms[nsyms].addr = addr;
		syms[nsyms++].name = nlen;
		nlen += len;
	}
	fclose(f);
	if (!syms || !names) {
		free(syms);
		free(names);
		syms = NULL;
		names = NULL;
		nsyms = 0;
		return;
	}
	qsort(syms, nsyms, sizeof(*syms), by_addr);
}

/* The function at ip: the last symbol at or below it; user space below the kernel's first. */
static const char *resolve(unsigned long long ip)
{
	size_t lo = 0, hi = nsyms;

	if (!nsyms)
		return "[kernel]";
	if (ip < syms[0].addr)
		return "[user]";
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (syms[mid].addr <= ip)
			lo = mid;
		else
			hi = mid;
	}
	return names + syms[lo].name;
}

struct tally {
	unsigned long long samples, lost, throttled;
};

/* Copies len bytes at offset off of a ring of size bytes, across its end. */
static void ring_copy(void *out, const char *data, size_t size, uint64_t off, size_t len)
{
	size_t at = (size_t)(off & (size - 1)), first = size - at < len ? size - at : len;

	memcpy(out, data + at, first);
	memcpy((char *)out + first, data, len - first);
}

static void read_ring(struct ring *r, pmu_sample_fn *fn, struct tally *t)
{
	struct perf_event_mmap_page *meta = r->map;
	const char *data = (const char *)r->map + page;
	size_t size = ring;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	double ns = r->value ? (double)SAMPLE_PERIOD * (double)r->running / (double)r->value : 0;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t rec[4] = { 0 };

		ring_copy(&h, data, size, tail, sizeof(h));
		if (h.size < sizeof(h))
			break;
		ring_copy(rec, data, size, tail + sizeof(h),
			  h.size - sizeof(h) < sizeof(rec) ? h.size - sizeof(h) : sizeof(rec));
		if (h.type == PERF_RECORD_SAMPLE) {
			fn(resolve(rec[0]), 1, ns);
			t->samples++;
		} else if (h.type == PERF_RECORD_LOST) {
			t->lost += rec[1];	/* { id, lost } */
		} else if (h.type == PERF_RECORD_THROTTLE) {
			t->throttled++;
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

void pmu_sample_end(pmu_sample_fn *fn, char *what, size_t whatsize)
{
	struct tally t = { 0 };
	unsigned long long periods = 0;
	size_t n;

	for (int i = 0; i < nrings; i++) {
		unsigned long long v[3];
		ioctl(rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(rings[i].fd, v, sizeof(v)) == (ssize_t)sizeof(v)) {
			rings[i].value = v[0];
			rings[i].running = v[2];
			periods += v[0] / SAMPLE_PERIOD;
		}
	}
	if (!fn) {
		close_all();
		return;
	}
	if (!syms)
		load_kallsyms();
	for (int i = 0; i < nrings; i++)
		read_ring(&rings[i], fn, &t);
	n = (size_t)snprintf(what, whatsize, "sampled %s (PMU), a sample every %llu %s on %d CPU%s: "
			     "%llu samples of %llu periods counted, %llu lost",
			     events[event].name, SAMPLE_PERIOD, events[event].name, nrings,
			     nrings == 1 ? "" : "s", t.samples, periods, t.lost);
	if (t.throttled && n < whatsize)
		n += (size_t)snprintf(what + n, whatsize - n, ", throttled %llu times", t.throttled);
	if (!nsyms && n < whatsize)
		snprintf(what + n, whatsize - n, "; no /proc/kallsyms: kernel functions not named");
	close_all();
}
