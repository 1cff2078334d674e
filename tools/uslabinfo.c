// SPDX-License-Identifier: MIT
/*
 * uslabinfo - the kernel's slab tools for a running uslab process:
 * /proc/slabinfo, /proc/buddyinfo, the slabinfo tool (tools/mm/slabinfo.c)
 * and a /sys/kernel/slab tree, all of one process, read through its
 * statistics area (src/mm/stats.c, protocol src/mm/stats_proto.h).
 *
 * 1. Overview.  Every mode takes one snapshot of the process (or sends one
 *    request: shrink, validate, map), prints it and exits.  The listing and
 *    the report follow the kernel's slabinfo tool: the same columns, the
 *    same flag letters, the same loss and efficiency arithmetic, computed
 *    from the same attributes (objects, slabs, partial, cpu_slabs, order,
 *    object_size, slab_size, ...).  --slabinfo and --buddyinfo print the
 *    text the process itself prints (uslab_show_slabinfo,
 *    uslab_show_buddyinfo), byte for byte.
 * 2. The sysfs tree (--sysfs) is shaped as the kernel's: one directory per
 *    cache holding one file per attribute, in the kernel's formats; a cache
 *    that others may merge into is a directory named by its unique id
 *    (":[flags-]<size>", as the kernel's create_unique_id) with its own
 *    name and every alias as symbolic links to it.  It is a snapshot:
 *    writing its files changes nothing (use --shrink and --validate).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <getopt.h>
#include <regex.h>
#include <uslab/uslab.h>

#define TOOL_NAME "uslabinfo"
#include "stats_client.h"

#define USLABINFO_VERSION	"uslabinfo 0.1 (statistics protocol 1)"

enum mode {
	MODE_LIST, MODE_REPORT, MODE_ALIASES, MODE_SLABINFO, MODE_BUDDYINFO,
	MODE_SHRINK, MODE_VALIDATE, MODE_SYSFS, MODE_MAP, MODE_PROCS,
};

struct options {
	enum mode mode;			/* what to print or do */
	int pid;			/* the process */
	const char *arg;		/* regex, cache, folder or file after the pid */
	char sort;			/* 'n' name, 'S' size, 'L' loss, 'P' partial slabs */
	bool inverted;			/* reverse the sort */
	bool zero;			/* list caches without objects or slabs too */
	bool bytes;			/* sizes in bytes, not K/M/G */
	int lines;			/* list at most this many caches; -1 all */
	double timeout;			/* seconds to wait for the process */
};

/* One cache of a snapshot, with what the listing derives from it. */
struct cache_view {
	const struct uslab_cache_rec *r;	/* the record */
	const char *name;		/* its name */
	unsigned long objects;		/* allocated objects */
	unsigned long slabs, partial, cpu_slabs;	/* slabs; of those, partial / held by CPUs */
	unsigned long slab_bytes;	/* bytes of one slab */
	unsigned long total_bytes;	/* slabs * slab_bytes */
	long loss;			/* total_bytes - objects * object_size */
};

static const struct uslab_snapshot *snap;	/* the snapshot being printed */
static unsigned long page_size;			/* the process's PAGE_SIZE */

static void usage(FILE *f)
{
	fputs("usage: uslabinfo [OPTION]... PID [REGEX]\n"
	      "       uslabinfo --slabinfo | --buddyinfo | --aliases PID\n"
	      "       uslabinfo --report PID [REGEX]\n"
	      "       uslabinfo --shrink | --validate PID CACHE\n"
	      "       uslabinfo --sysfs PID DIR\n"
	      "       uslabinfo --map PID FILE\n"
	      "       uslabinfo --list\n"
	      "\n"
	      "Show the slab caches of a running process that uses uslab (linked with it, or\n"
	      "with the malloc drop-in preloaded), the way the Linux kernel shows its own.\n"
	      "With only a PID: one line per cache, like the kernel's slabinfo tool\n"
	      "(tools/mm/slabinfo.c): objects, object size, memory, slabs/partial/cpu slabs,\n"
	      "objects per slab, order, % of slabs partial, % efficiency, flags.  REGEX\n"
	      "(POSIX extended, case-insensitive) selects caches by name.\n"
	      "\n"
	      "Modes:\n"
	      "      --slabinfo       print the process's /proc/slabinfo (version 2.1)\n"
	      "      --buddyinfo      print the process's /proc/buddyinfo (its page allocator)\n"
	      "  -r, --report         a detailed report per cache (sizes, slabs, debug, memory)\n"
	      "  -a, --aliases        the names merged into each cache\n"
	      "      --shrink         shrink CACHE (kmem_cache_shrink) and show slabs before/after\n"
	      "      --validate       check every object of CACHE (kmem_cache_validate, SLUB with\n"
	      "                       debugging); damage is reported on the process's stderr, and\n"
	      "                       with the default slab_error=abort the process then aborts\n"
	      "      --sysfs          write the caches' attributes into DIR (new or empty) as a\n"
	      "                       tree shaped like /sys/kernel/slab: a directory per cache,\n"
	      "                       aliases as symbolic links; the kernel's slabinfo tool reads it\n"
	      "      --map            have the process draw its memory map into FILE (.svg or .html)\n"
	      "      --list           list the processes that have a statistics area, removing\n"
	      "                       the stale files of processes that are gone\n"
	      "\n"
	      "Listing options (as the kernel's slabinfo tool):\n"
	      "  -z, --zero           include caches with no objects and no slabs\n"
	      "  -S, --Size           sort by memory used        -L, --Loss     sort by memory lost\n"
	      "  -P, --partial        sort by partial slabs      -i, --inverted reverse the order\n"
	      "  -N, --lines=K        show the first K caches    -B, --Bytes    sizes in bytes\n"
	      "\n"
	      "Other options:\n"
	      "  -t, --timeout=SEC    wait at most SEC seconds for the process (default 10)\n"
	      "  -h, --help           this text\n"
	      "  -V, --version        the version\n"
	      "\n"
	      "Flags column: * aliases, d DMA, A cache-line aligned, P poison, a reclaim\n"
	      "accounting, Z red zone, F consistency checks, U owner tracking, T trace.\n"
	      "SLAB has no cpu slabs (CPUs hold objects, not slabs); a SLOB cache has no slabs\n"
	      "of its own unless its objects are a page or more (a '-' marks what the\n"
	      "allocator does not have).\n"
	      "\n"
	      "The process answers through /dev/shm/uslab-PID and its thread \"uslab-stats\"\n"
	      "(USLAB_OPTIONS=stats=off turns both off).  Run as the process's user or root.\n"
	      "Exit status: 0 done; 1 the process could not be read, or the request failed\n"
	      "(--validate: errors were found); 2 bad usage.\n", f);
}

/* ======================= small helpers ======================= */

static bool known(uint64_t v)
{
	return v != USLAB_STATS_NONE;
}

static unsigned long val0(uint64_t v)
{
	return known(v) ? (unsigned long)v : 0;
}

/* The kernel tool's sizes: 123, 1.2K, 12.3M (one decimal above 1000). */
static const char *size_str(char *buf, size_t len, long value, bool bytes)
{
	static const struct { long above; long div; char unit; } units[] = {
		{ 1000000000L, 100000000L, 'G' }, { 1000000L, 100000L, 'M' }, { 1000L, 100L, 'K' },
	};
	size_t i;

	for (i = 0; !bytes && i < sizeof(units) / sizeof(units[0]); i++) {
		if (labs(value) > units[i].above) {
			long v = value / units[i].div;

			snprintf(buf, len, "%ld.%ld%c", v / 10, labs(v % 10), units[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%ld", value);
	return buf;
}

static void cache_view_init(struct cache_view *v, const struct uslab_cache_rec *r)
{
	v->r = r;
	v->name = snapshot_string(snap, r->name_off);
	v->objects = known(r->objects) ? (unsigned long)r->objects : r->active_objs;
	v->slabs = val0(r->slabs);
	v->partial = val0(r->partial);
	v->cpu_slabs = val0(r->cpu_slabs);
	v->slab_bytes = page_size << val0(r->order);
	v->total_bytes = v->slabs * v->slab_bytes;
	v->loss = (long)v->total_bytes - (long)(v->objects * r->object_size);
}

static int cmp_name(const struct cache_view *a, const struct cache_view *b)
{
	return strcasecmp(a->name, b->name);
}

static int cmp_number(unsigned long a, unsigned long b)
{
	return a < b ? 1 : a > b ? -1 : 0;	/* largest first */
}

static int cache_view_cmp(const void *pa, const void *pb, void *arg)
{
	const struct cache_view *a = pa, *b = pb;
	const struct options *o = arg;
	int r = 0;

	if (o->sort == 'S')
		r = cmp_number(a->total_bytes, b->total_bytes);
	else if (o->sort == 'L')
		r = cmp_number((unsigned long)a->loss, (unsigned long)b->loss);
	else if (o->sort == 'P')
		r = cmp_number(a->partial, b->partial);
	if (!r)
		r = cmp_name(a, b);
	return o->inverted ? -r : r;
}

/* ======================= the listing (slabinfo -l) ======================= */

static void flags_str(char *p, const struct cache_view *v)
{
	static const struct { uint32_t flag; char c; } letters[] = {
		{ USLAB_SLAB_CACHE_DMA, 'd' }, { USLAB_SLAB_HWCACHE_ALIGN, 'A' },
		{ USLAB_SLAB_POISON, 'P' }, { USLAB_SLAB_RECLAIM_ACCOUNT, 'a' },
		{ USLAB_SLAB_RED_ZONE, 'Z' }, { USLAB_SLAB_CONSISTENCY_CHECKS, 'F' },
		{ USLAB_SLAB_STORE_USER, 'U' }, { USLAB_SLAB_TRACE, 'T' },
	};
	size_t i;

	if (v->r->aliases)
		*p++ = '*';
	for (i = 0; i < sizeof(letters) / sizeof(letters[0]); i++)
		if (v->r->flags & letters[i].flag)
			*p++ = letters[i].c;
	*p = '\0';
}

static void list_header(const struct options *o)
{
	printf("Name                   Objects Objsize           %s Slabs/Part/Cpu  O/S O %%Fr %%Ef Flg\n",
	       o->sort == 'L' ? " Loss" : "Space");
}

static void list_line(const struct cache_view *v, const struct options *o)
{
	char size[32], dist[64], flags[16];
	unsigned long fr = v->slabs ? v->partial * 100 / v->slabs : 100;
	unsigned long ef = v->total_bytes ?
		v->objects * v->r->object_size * 100 / v->total_bytes : 100;

	size_str(size, sizeof(size), o->sort == 'L' ? v->loss : (long)v->total_bytes, o->bytes);
	snprintf(dist, sizeof(dist), "%lu/%lu/%lu", v->slabs - v->cpu_slabs, v->partial,
		 v->cpu_slabs);
	flags_str(flags, v);
	printf("%-21s %8lu %7llu %15s %14s %4llu %1llu %3lu %3lu %s\n", v->name, v->objects,
	       (unsigned long long)v->r->object_size, size, dist,
	       (unsigned long long)val0(v->r->objs_per_slab), (unsigned long long)val0(v->r->order),
	       fr, ef, flags);
}

static bool list_wanted(const struct cache_view *v, const struct options *o, const regex_t *re)
{
	if (re && regexec(re, v->name, 0, NULL, 0))
		return false;
	return o->zero || v->slabs || v->objects;
}

/* ======================= the report (slabinfo -r) ======================= */

static const char *onoff(uint32_t flags, uint32_t flag)
{
	return flags & flag ? "On " : "Off";
}

static void report_aliases(uint32_t index)
{
	const struct uslab_alias_rec *a = snapshot_aliases(snap);
	uint32_t i;
	bool any = false;

	for (i = 0; i < snap->nr_aliases; i++) {
		if (a[i].cache != index)
			continue;
		printf("%s%s", any ? " " : "Alias names: ", snapshot_string(snap, a[i].name_off));
		any = true;
	}
	if (any)
		putchar('\n');
}

static void report_head(const struct cache_view *v, uint32_t index)
{
	uint32_t f = v->r->flags;

	printf("\nSlabcache: %-15s  Aliases: %2llu Order : %2llu Objects: %lu\n", v->name,
	       (unsigned long long)v->r->aliases, (unsigned long long)val0(v->r->order), v->objects);
	if (f & USLAB_SLAB_HWCACHE_ALIGN)
		printf("** Hardware cacheline aligned\n");
	if (f & USLAB_SLAB_CACHE_DMA)
		printf("** Memory is allocated in a special DMA zone\n");
	if (f & USLAB_SLAB_TYPESAFE_BY_RCU)
		printf("** Slabs are destroyed via RCU\n");
	if (f & USLAB_SLAB_RECLAIM_ACCOUNT)
		printf("** Reclaim accounting active\n");
	if (v->r->ctor)
		printf("** Constructor at 0x%llx\n", (unsigned long long)v->r->ctor);
	report_aliases(index);
}

static void report_table(const struct cache_view *v)
{
	const struct uslab_cache_rec *r = v->r;
	long used = (long)(v->objects * r->object_size);
	long objloss = (long)r->slab_size - (long)r->object_size;
	long pad = ((long)v->slab_bytes - (long)(val0(r->objs_per_slab) * r->slab_size)) * (long)v->slabs;

	printf("\nSizes (bytes)     Slabs              Debug                Memory\n");
	printf("------------------------------------------------------------------------\n");
	printf("Object : %7llu  Total  : %7lu   Sanity Checks : %s  Total: %7lu\n",
	       (unsigned long long)r->object_size, v->slabs,
	       onoff(r->flags, USLAB_SLAB_CONSISTENCY_CHECKS), v->total_bytes);
	printf("SlabObj: %7llu  Full   : %7ld   Redzoning     : %s  Used : %7ld\n",
	       (unsigned long long)r->slab_size, (long)(v->slabs - v->partial - v->cpu_slabs),
	       onoff(r->flags, USLAB_SLAB_RED_ZONE), used);
	printf("SlabSiz: %7lu  Partial: %7lu   Poisoning     : %s  Loss : %7ld\n",
	       v->slab_bytes, v->partial, onoff(r->flags, USLAB_SLAB_POISON), v->loss);
	printf("Loss   : %7ld  CpuSlab: %7lu   Tracking      : %s  Lalig: %7ld\n",
	       objloss, v->cpu_slabs, onoff(r->flags, USLAB_SLAB_STORE_USER),
	       objloss * (long)v->objects);
	printf("Align  : %7llu  Objects: %7llu   Tracing       : %s  Lpadd: %7ld\n",
	       (unsigned long long)r->align, (unsigned long long)val0(r->objs_per_slab),
	       onoff(r->flags, USLAB_SLAB_TRACE), pad);
}

/* ======================= views of a snapshot ======================= */

/* Every cache of the snapshot, sorted as asked. */
static struct cache_view *snapshot_views(const struct options *o)
{
	const struct uslab_cache_rec *r = snapshot_caches(snap);
	struct cache_view *v = calloc(snap->nr_caches + 1, sizeof(*v));
	uint32_t i;

	if (!v) {
		perror("uslabinfo");
		exit(1);
	}
	for (i = 0; i < snap->nr_caches; i++)
		cache_view_init(&v[i], &r[i]);
	qsort_r(v, snap->nr_caches, sizeof(*v), cache_view_cmp, (void *)o);
	return v;
}

static void print_list(const struct options *o, const regex_t *re)
{
	struct cache_view *v = snapshot_views(o);
	int shown = 0;
	uint32_t i;

	for (i = 0; i < snap->nr_caches && shown != o->lines; i++) {
		if (!list_wanted(&v[i], o, re))
			continue;
		if (!shown++)
			list_header(o);
		list_line(&v[i], o);
	}
	free(v);
}

static void print_report(const struct options *o, const regex_t *re)
{
	const struct uslab_cache_rec *r = snapshot_caches(snap);
	struct cache_view v;
	int shown = 0;
	uint32_t i;

	for (i = 0; i < snap->nr_caches && shown != o->lines; i++) {
		cache_view_init(&v, &r[i]);
		if (!list_wanted(&v, o, re))
			continue;
		shown++;
		report_head(&v, i);
		report_table(&v);
	}
}

/* The kernel tool's -a: each cache with the names merged into it. */
static void print_aliases(void)
{
	const struct uslab_cache_rec *r = snapshot_caches(snap);
	const struct uslab_alias_rec *a = snapshot_aliases(snap);
	uint32_t i, j;

	for (i = 0; i < snap->nr_caches; i++) {
		bool any = false;

		for (j = 0; j < snap->nr_aliases; j++) {
			if (a[j].cache != i)
				continue;
			if (!any)
				printf("%-20s <-", snapshot_string(snap, r[i].name_off));
			printf(" %s", snapshot_string(snap, a[j].name_off));
			any = true;
		}
		if (any)
			putchar('\n');
	}
}

static void print_text(uint32_t off, uint32_t len)
{
	fwrite((const char *)snap + off, 1, len, stdout);
}

/* ======================= the sysfs tree ======================= */

/* The kernel's create_unique_id: ":" [d][D][a][F][A] "-" size, or ":" size. */
static void unique_id(char *buf, size_t len, const struct uslab_cache_rec *r)
{
	static const struct { uint32_t flag; char c; } letters[] = {
		{ USLAB_SLAB_CACHE_DMA, 'd' }, { USLAB_SLAB_CACHE_DMA32, 'D' },
		{ USLAB_SLAB_RECLAIM_ACCOUNT, 'a' }, { USLAB_SLAB_CONSISTENCY_CHECKS, 'F' },
		{ USLAB_SLAB_ACCOUNT, 'A' },
	};
	char flags[8], *p = flags;
	size_t i;

	for (i = 0; i < sizeof(letters) / sizeof(letters[0]); i++)
		if (r->flags & letters[i].flag)
			*p++ = letters[i].c;
	*p = '\0';
	snprintf(buf, len, ":%s%s%07u", flags, flags[0] ? "-" : "", r->size);
}

/* A file name for a cache name ('/' cannot be in one). */
static void file_name(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s", name);
	for (; *buf; buf++)
		if (*buf == '/')
			*buf = '!';
}

static int write_attr(int dir, const char *attr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int write_attr(int dir, const char *attr, const char *fmt, ...)
{
	int fd = openat(dir, attr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
	FILE *f;
	va_list ap;
	int err;

	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -1;
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	err = ferror(f);
	return fclose(f) || err ? -1 : 0;
}

/* The kernel's show_slab_objects layout: "total N0=total" (one node). */
static int write_count(int dir, const char *attr, uint64_t v)
{
	if (!known(v))
		return 0;
	if (v)
		return write_attr(dir, attr, "%llu N0=%llu\n", (unsigned long long)v,
				  (unsigned long long)v);
	return write_attr(dir, attr, "0\n");
}

static int write_number(int dir, const char *attr, uint64_t v)
{
	if (!known(v))
		return 0;	/* the allocator has no such attribute */
	return write_attr(dir, attr, "%llu\n", (unsigned long long)v);
}

static int write_flag(int dir, const char *attr, const struct uslab_cache_rec *r, uint32_t flag)
{
	return write_attr(dir, attr, "%d\n", (r->flags & flag) ? 1 : 0);
}

static int write_flags(int dir, const struct uslab_cache_rec *r)
{
	return write_flag(dir, "reclaim_account", r, USLAB_SLAB_RECLAIM_ACCOUNT) |
	       write_flag(dir, "hwcache_align", r, USLAB_SLAB_HWCACHE_ALIGN) |
	       write_flag(dir, "cache_dma", r, USLAB_SLAB_CACHE_DMA) |
	       write_flag(dir, "destroy_by_rcu", r, USLAB_SLAB_TYPESAFE_BY_RCU) |
	       write_flag(dir, "sanity_checks", r, USLAB_SLAB_CONSISTENCY_CHECKS) |
	       write_flag(dir, "trace", r, USLAB_SLAB_TRACE) |
	       write_flag(dir, "red_zone", r, USLAB_SLAB_RED_ZONE) |
	       write_flag(dir, "poison", r, USLAB_SLAB_POISON) |
	       write_flag(dir, "store_user", r, USLAB_SLAB_STORE_USER) |
	       write_flag(dir, "failslab", r, USLAB_SLAB_FAILSLAB);
}

static int write_sizes(int dir, const struct uslab_cache_rec *r)
{
	return write_number(dir, "object_size", r->object_size) |
	       write_number(dir, "slab_size", r->slab_size) |
	       write_number(dir, "align", r->align) |
	       write_number(dir, "objs_per_slab", r->objs_per_slab) |
	       write_number(dir, "order", r->order) |
	       write_number(dir, "min_partial", r->min_partial) |
	       write_number(dir, "cpu_partial", r->cpu_partial) |
	       write_number(dir, "usersize", r->usersize) |
	       write_attr(dir, "aliases", "%llu\n", (unsigned long long)r->aliases);
}

static int write_counts(int dir, const struct uslab_cache_rec *r)
{
	int err = write_count(dir, "objects", r->objects) |
		  write_count(dir, "objects_partial", r->objects_partial) |
		  write_count(dir, "partial", r->partial) |
		  write_count(dir, "cpu_slabs", r->cpu_slabs) |
		  write_count(dir, "slabs", r->slabs) |
		  write_count(dir, "total_objects", r->total_objects);

	if (known(r->slabs_cpu_partial))
		err |= write_attr(dir, "slabs_cpu_partial", "%llu(%llu)\n",
				  (unsigned long long)(r->slabs_cpu_partial * val0(r->objs_per_slab) / 2),
				  (unsigned long long)r->slabs_cpu_partial);
	if (r->ctor)
		err |= write_attr(dir, "ctor", "0x%llx\n", (unsigned long long)r->ctor);
	else
		err |= write_attr(dir, "ctor", "%s", "");
	return err;
}

/* One cache's directory under root, named dirname. */
static int sysfs_cache(int root, const char *dirname, const struct uslab_cache_rec *r)
{
	int dir, err;

	if (mkdirat(root, dirname, 0755))
		return -1;
	dir = openat(root, dirname, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	err = write_sizes(dir, r) | write_counts(dir, r) | write_flags(dir, r);
	close(dir);
	return err ? -1 : 0;
}

/* Where a cache's attributes go: its unique id if others may merge into it. */
static void sysfs_dirname(char *buf, size_t len, const struct uslab_cache_rec *r)
{
	if (r->mergeable)
		unique_id(buf, len, r);
	else
		file_name(buf, len, snapshot_string(snap, r->name_off));
}

/* name -> target, unless name is taken (two caches of one name). */
static int sysfs_link(int root, const char *name, const char *target)
{
	char file[PATH_MAX];

	file_name(file, sizeof(file), name);
	if (!strcmp(file, target))
		return 0;
	if (symlinkat(target, root, file) == 0 || errno == EEXIST)
		return 0;
	return -1;
}

static int sysfs_write_caches(int root, const char *path)
{
	const struct uslab_cache_rec *r = snapshot_caches(snap);
	char dirname[PATH_MAX];
	uint32_t i;

	for (i = 0; i < snap->nr_caches; i++) {
		sysfs_dirname(dirname, sizeof(dirname), &r[i]);
		if (sysfs_cache(root, dirname, &r[i]) == 0)
			continue;
		if (errno != EEXIST)
			return fprintf(stderr, "uslabinfo: %s/%s: %s\n", path, dirname,
				       strerror(errno)), -1;
		/* why: the kernel would refuse a second cache of that name or id too */
		fprintf(stderr, "uslabinfo: %s/%s exists already: cache %s left out\n", path,
			dirname, snapshot_string(snap, r[i].name_off));
	}
	return 0;
}

static int sysfs_write_links(int root)
{
	const struct uslab_cache_rec *r = snapshot_caches(snap);
	const struct uslab_alias_rec *a = snapshot_aliases(snap);
	char dirname[PATH_MAX];
	uint32_t i;
	int err = 0;

	for (i = 0; i < snap->nr_caches; i++) {
		if (!r[i].mergeable)
			continue;
		sysfs_dirname(dirname, sizeof(dirname), &r[i]);
		err |= sysfs_link(root, snapshot_string(snap, r[i].name_off), dirname);
	}
	for (i = 0; i < snap->nr_aliases; i++) {
		sysfs_dirname(dirname, sizeof(dirname), &r[a[i].cache]);
		err |= sysfs_link(root, snapshot_string(snap, a[i].name_off), dirname);
	}
	return err;
}

/* DIR must be new or empty: a tree over an older one would mix two snapshots. */
static int sysfs_open_root(const char *path)
{
	struct dirent *de;
	DIR *d;
	int fd;

	if (mkdir(path, 0755) && errno != EEXIST)
		return fprintf(stderr, "uslabinfo: %s: %s\n", path, strerror(errno)), -1;
	d = opendir(path);
	if (!d)
		return fprintf(stderr, "uslabinfo: %s: %s\n", path, strerror(errno)), -1;
	while ((de = readdir(d)) && (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")))
		;
	if (de) {
		closedir(d);
		return fprintf(stderr, "uslabinfo: %s is not empty\n", path), -1;
	}
	fd = dup(dirfd(d));
	closedir(d);
	return fd;
}

static int write_sysfs(const char *path, int pid)
{
	int root = sysfs_open_root(path), err;

	if (root < 0)
		return 1;
	err = sysfs_write_caches(root, path);
	if (!err && sysfs_write_links(root)) {
		fprintf(stderr, "uslabinfo: %s: symlink: %s\n", path, strerror(errno));
		err = -1;
	}
	close(root);
	if (!err)
		printf("%s: %u caches, %u aliases of pid %d\n", path, snap->nr_caches,
		       snap->nr_aliases, pid);
	return err ? 1 : 0;
}

/* ======================= requests ======================= */

static int request(struct stats_client *c, uint32_t op, const char *arg)
{
	if (stats_client_request(c, op, arg))
		return tool_error(c->error);
	if (c->h->status < 0) {
		fprintf(stderr, "uslabinfo: pid %d: %s\n", c->pid, c->h->message);
		return 1;
	}
	printf("%s\n", c->h->message);
	return 0;
}

static int do_validate(struct stats_client *c, const char *cache)
{
	if (request(c, USLAB_OP_VALIDATE, cache))
		return 1;
	return c->h->status > 0;
}

/* The process writes the picture: give it an absolute path. */
static int do_map(struct stats_client *c, const char *file)
{
	char *copy = strdup(file), *slash, *real = NULL, path[PATH_MAX + 256];
	const char *dir = ".", *base;
	int ret = 1;

	if (!copy)
		return perror("uslabinfo"), 1;
	base = copy;
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = '\0';
		dir = copy[0] ? copy : "/";
		base = slash + 1;
	}
	if (!*base)
		fprintf(stderr, "uslabinfo: %s names a folder, not a file\n", file);
	else if (!(real = realpath(dir, NULL)))
		fprintf(stderr, "uslabinfo: %s: %s\n", dir, strerror(errno));
	else if ((size_t)snprintf(path, sizeof(path), "%s/%s", real, base) >= sizeof(path))
		fprintf(stderr, "uslabinfo: %s: path too long\n", file);
	else
		ret = request(c, USLAB_OP_MAP, path);
	free(real);
	free(copy);
	return ret;
}

/* ======================= the process list ======================= */

static void print_process(int pid)
{
	struct stats_client c = { .fd = -1, .timeout = 1 };
	char path[64], comm[64] = "?";
	FILE *f;

	if (stats_client_open(&c, pid)) {
		printf("%7d  (stale: %s)\n", pid, c.error);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			strcpy(comm, "?");
		fclose(f);
	}
	comm[strcspn(comm, "\n")] = '\0';
	printf("%7d  %-5.8s %7d  %s\n", pid, c.h->allocator, c.h->service_tid, comm);
	stats_client_close(&c);
}

static int list_processes(void)
{
	size_t plen = strlen(USLAB_STATS_PREFIX);
	struct dirent *de;
	DIR *d = opendir(USLAB_STATS_DIR);

	if (!d)
		return fprintf(stderr, "uslabinfo: %s: %s\n", USLAB_STATS_DIR, strerror(errno)), 1;
	printf("    PID  ALLOC SERVICE  COMMAND\n");
	while ((de = readdir(d))) {
		bool ours = !strncmp(de->d_name, USLAB_STATS_PREFIX, plen);
		int pid = ours ? pid_of(de->d_name + plen) : 0;

		if (pid)
			print_process(pid);
	}
	closedir(d);
	return 0;
}

/* ======================= command line ======================= */

static const struct option long_options[] = {
	{ "slabinfo", no_argument, NULL, 1 },
	{ "buddyinfo", no_argument, NULL, 2 },
	{ "shrink", no_argument, NULL, 3 },
	{ "validate", no_argument, NULL, 4 },
	{ "sysfs", no_argument, NULL, 5 },
	{ "map", no_argument, NULL, 6 },
	{ "list", no_argument, NULL, 7 },
	{ "report", no_argument, NULL, 'r' },
	{ "aliases", no_argument, NULL, 'a' },
	{ "zero", no_argument, NULL, 'z' },
	{ "Size", no_argument, NULL, 'S' },
	{ "Loss", no_argument, NULL, 'L' },
	{ "partial", no_argument, NULL, 'P' },
	{ "inverted", no_argument, NULL, 'i' },
	{ "lines", required_argument, NULL, 'N' },
	{ "Bytes", no_argument, NULL, 'B' },
	{ "timeout", required_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static void parse_option(struct options *o, int c)
{
	static const enum mode modes[] = { 0, MODE_SLABINFO, MODE_BUDDYINFO, MODE_SHRINK,
		MODE_VALIDATE, MODE_SYSFS, MODE_MAP, MODE_PROCS };

	if (c >= 1 && c <= 7)
		o->mode = modes[c];
	else if (c == 'r')
		o->mode = MODE_REPORT;
	else if (c == 'a')
		o->mode = MODE_ALIASES;
	else if (c == 'z')
		o->zero = true;
	else if (c == 'S' || c == 'L' || c == 'P')
		o->sort = (char)c;
	else if (c == 'i')
		o->inverted = true;
	else if (c == 'B')
		o->bytes = true;
	else if (c == 'N')
		o->lines = (int)parse_number(optarg, INT_MAX, "--lines needs a number above 0");
	else if (c == 't')
		o->timeout = parse_number(optarg, TOOL_MAX_SECONDS,
					  "--timeout needs a number of seconds above 0");
	else if (c == 'h')
		usage(stdout), exit(0);
	else if (c == 'V')
		puts(USLABINFO_VERSION), exit(0);
	else
		bad_usage("unknown option");
}

/* PID, then what the mode needs after it. */
static void parse_operands(struct options *o, int argc, char **argv)
{
	bool needs_arg = o->mode == MODE_SHRINK || o->mode == MODE_VALIDATE ||
			 o->mode == MODE_SYSFS || o->mode == MODE_MAP;
	bool may_have_arg = needs_arg || o->mode == MODE_LIST || o->mode == MODE_REPORT;
	int left = argc - optind;

	if (o->mode == MODE_PROCS) {
		if (left)
			bad_usage("--list takes no operand");
		return;
	}
	if (left < 1)
		bad_usage("a PID is needed");
	o->pid = parse_pid(argv[optind]);
	if ((needs_arg && left != 2) || (!may_have_arg && left != 1) || left > 2)
		bad_usage(needs_arg ? "this mode needs PID and one more operand" :
			  "too many operands");
	o->arg = left == 2 ? argv[optind + 1] : NULL;
}

static int show_snapshot(const struct options *o, const regex_t *re)
{
	if (o->mode == MODE_SLABINFO)
		print_text(snap->slabinfo_off, snap->slabinfo_len);
	else if (o->mode == MODE_BUDDYINFO)
		print_text(snap->buddyinfo_off, snap->buddyinfo_len);
	else if (o->mode == MODE_ALIASES)
		print_aliases();
	else if (o->mode == MODE_REPORT)
		print_report(o, re);
	else if (o->mode == MODE_SYSFS)
		return write_sysfs(o->arg, o->pid);
	else
		print_list(o, re);
	return 0;
}

static int run(const struct options *o, const regex_t *re)
{
	struct stats_client c = { .fd = -1, .timeout = o->timeout };
	int ret;

	if (stats_client_open(&c, o->pid))
		return tool_error(c.error);
	page_size = c.h->page_size;
	if (o->mode == MODE_SHRINK)
		ret = request(&c, USLAB_OP_SHRINK, o->arg);
	else if (o->mode == MODE_VALIDATE)
		ret = do_validate(&c, o->arg);
	else if (o->mode == MODE_MAP)
		ret = do_map(&c, o->arg);
	else if ((snap = stats_client_take_snapshot(&c)))
		ret = show_snapshot(o, re);
	else
		ret = tool_error(c.error);
	stats_client_close(&c);
	return ret;
}

int main(int argc, char **argv)
{
	struct options o = { .mode = MODE_LIST, .sort = 'n', .lines = -1,
			     .timeout = STATS_CLIENT_DEFAULT_TIMEOUT };
	regex_t re;
	bool use_re;
	int c, ret;

	while ((c = getopt_long(argc, argv, "razSLPiN:Bt:hV", long_options, NULL)) != -1)
		parse_option(&o, c);
	parse_operands(&o, argc, argv);
	if (o.mode == MODE_PROCS)
		return list_processes();
	use_re = o.arg && (o.mode == MODE_LIST || o.mode == MODE_REPORT);
	if (use_re && regcomp(&re, o.arg, REG_EXTENDED | REG_ICASE | REG_NOSUB))
		bad_usage("REGEX is not a valid regular expression");
	ret = run(&o, use_re ? &re : NULL);
	if (use_re)
		regfree(&re);
	return ret;
}
