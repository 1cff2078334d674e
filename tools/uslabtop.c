// SPDX-License-Identifier: MIT
/*
 * uslabtop - procps slabtop for a running uslab process: its caches, live,
 * sorted, refreshed every few seconds, read through the process's
 * statistics area (src/mm/stats.c, protocol src/mm/stats_proto.h).
 *
 * 1. Overview.  Each refresh takes one snapshot (the cache records and the
 *    memory map's counts), sorts the caches by the chosen column and draws
 *    the screen with plain ANSI escapes: the summary lines of slabtop, then
 *    as many caches as the terminal has rows for.  Between refreshes it
 *    waits on the keyboard (select), so a key redraws at once.
 * 2. Columns and sort keys are slabtop's: OBJS (o), ACTIVE (a), USE (u),
 *    OBJ SIZE (s), SLABS (l), active slabs (v), OBJ/SLAB (b), pages per
 *    slab (p), CACHE SIZE (c), NAME (n); q quits.  The numbers are those of
 *    the process's /proc/slabinfo rows, as slabtop reads them.
 * 3. The terminal is put in non-canonical mode without echo while the view
 *    runs, and restored on every way out (q, end of the process, SIGINT,
 *    SIGTERM, SIGHUP).  With -o (or when stdout is not a terminal) it
 *    prints one snapshot and exits, as slabtop -o does.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>

#define TOOL_NAME		"uslabtop"
#include "stats_client.h"

#define USLABTOP_VERSION	"uslabtop 0.1 (statistics protocol 1)"
#define SORT_KEYS		"oauslvbpcn"	/* slabtop's sort criteria */

struct top_options {
	int pid;			/* the process */
	double delay;			/* seconds between refreshes */
	bool once;			/* one snapshot, then exit */
	char sort;			/* one of SORT_KEYS */
};

/* One cache of a snapshot, in slabtop's terms. */
struct top_row {
	const char *name;		/* cache name */
	unsigned long objs, active;	/* objects, of which allocated */
	unsigned long slabs, active_slabs;	/* slabs, of which in use */
	unsigned long obj_size;		/* bytes per object slot */
	unsigned long objs_per_slab, pages_per_slab;	/* slab geometry */
	unsigned long cache_size;	/* bytes of its slabs */
	double use;			/* active * 100 / objs */
};

static struct termios saved_termios;	/* the terminal as we found it */
static bool termios_saved;		/* saved_termios is to be restored */
static unsigned long page_size;		/* the process's PAGE_SIZE */

static void usage(FILE *f)
{
	fputs("usage: uslabtop [OPTION]... PID\n"
	      "       uslabtop [OPTION]... -p PID\n"
	      "\n"
	      "Show the slab caches of a running process that uses uslab (linked with it, or\n"
	      "with the malloc drop-in preloaded), live, the way procps slabtop shows the\n"
	      "kernel's: a summary, then one line per cache, refreshed every few seconds.\n"
	      "\n"
	      "Options:\n"
	      "  -p, --pid=PID        the process to watch (or give PID as the operand)\n"
	      "  -d, --delay=SECONDS  seconds between refreshes (default 3; fractions allowed)\n"
	      "  -o, --once           print one snapshot and exit (also when stdout is not a\n"
	      "                       terminal)\n"
	      "  -s, --sort=KEY       sort by KEY (default o), one of the keys below\n"
	      "  -t, --timeout=SEC    wait at most SEC seconds for each answer (default 10)\n"
	      "  -h, --help           this text\n"
	      "  -V, --version        the version\n"
	      "\n"
	      "Sort keys (also typed while it runs), as procps slabtop:\n"
	      "  o  number of objects          a  number of active objects\n"
	      "  u  utilisation (active/objs)  s  object size\n"
	      "  l  number of slabs            v  number of active slabs\n"
	      "  b  objects per slab           p  pages per slab\n"
	      "  c  cache size                 n  name\n"
	      "  q  quit                       space  refresh now\n"
	      "\n"
	      "Columns: OBJS ACTIVE USE OBJ SIZE SLABS OBJ/SLAB CACHE SIZE NAME, the numbers\n"
	      "of the process's /proc/slabinfo (uslabinfo --slabinfo PID).  Under SLOB a\n"
	      "cache has slabs only when its objects are a page or more.\n"
	      "\n"
	      "The process answers through /dev/shm/uslab-PID and its thread \"uslab-stats\"\n"
	      "(USLAB_OPTIONS=stats=off turns both off).  Run as the process's user or root.\n"
	      "Exit status: 0 quit by key or -o done; 1 the process could not be read (or\n"
	      "exited); 2 bad usage.\n", f);
}

/* ======================= rows and sorting ======================= */

static void top_row_init(struct top_row *t, const struct uslab_snapshot *snap,
			 const struct uslab_cache_rec *r)
{
	t->name = snapshot_string(snap, r->name_off);
	t->objs = r->num_objs;
	t->active = r->active_objs;
	t->slabs = r->num_slabs;
	t->active_slabs = r->active_slabs;
	t->obj_size = r->size;
	t->objs_per_slab = r->objects_per_slab;
	t->pages_per_slab = r->pages_per_slab;
	t->cache_size = r->num_slabs * r->pages_per_slab * page_size;
	t->use = t->objs ? (double)t->active * 100.0 / (double)t->objs : 0.0;
}

static unsigned long sort_value(const struct top_row *t, char key)
{
	switch (key) {
	case 'a': return t->active;
	case 'u': return (unsigned long)(t->use * 1000.0);
	case 's': return t->obj_size;
	case 'l': return t->slabs;
	case 'v': return t->active_slabs;
	case 'b': return t->objs_per_slab;
	case 'p': return t->pages_per_slab;
	case 'c': return t->cache_size;
	default: return t->objs;
	}
}

/* Largest first, as slabtop; by name alphabetically; ties by name. */
static int top_row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct top_row *a = pa, *b = pb;
	char key = *(const char *)arg;
	unsigned long va, vb;

	if (key == 'n')
		return strcmp(a->name, b->name);
	va = sort_value(a, key);
	vb = sort_value(b, key);
	if (va != vb)
		return va < vb ? 1 : -1;
	return strcmp(a->name, b->name);
}

static const char *sort_name(char key)
{
	static const char *const names[] = {
		"number of objects", "active objects", "utilisation", "object size",
		"number of slabs", "active slabs", "objects per slab", "pages per slab",
		"cache size", "name",
	};
	const char *p = strchr(SORT_KEYS, key);

	return p ? names[p - SORT_KEYS] : "?";
}

/* ======================= drawing ======================= */

struct top_totals {
	unsigned long objs, active, slabs, active_slabs, caches, active_caches;
	double size_k, active_k;	/* KiB in slabs, KiB of active objects */
	double min_k, max_k;		/* smallest and largest object, KiB */
};

static void top_totals(const struct top_row *rows, uint32_t n, struct top_totals *t)
{
	uint32_t i;

	memset(t, 0, sizeof(*t));
	t->min_k = n ? 1e30 : 0;
	for (i = 0; i < n; i++) {
		const struct top_row *r = &rows[i];
		double k = (double)r->obj_size / 1024.0;

		t->objs += r->objs;
		t->active += r->active;
		t->slabs += r->slabs;
		t->active_slabs += r->active_slabs;
		t->caches++;
		t->active_caches += r->active > 0;
		t->size_k += (double)r->objs * k;
		t->active_k += (double)r->active * k;
		t->min_k = k < t->min_k ? k : t->min_k;
		t->max_k = k > t->max_k ? k : t->max_k;
	}
}

static double pct(double part, double whole)
{
	return whole > 0 ? part * 100.0 / whole : 0.0;
}

static void draw_summary(FILE *out, const struct top_row *rows, uint32_t n)
{
	struct top_totals t;

	top_totals(rows, n, &t);
	fprintf(out, " Active / Total Objects (%% used)    : %lu / %lu (%.1f%%)\n", t.active, t.objs,
		pct((double)t.active, (double)t.objs));
	fprintf(out, " Active / Total Slabs (%% used)      : %lu / %lu (%.1f%%)\n", t.active_slabs,
		t.slabs, pct((double)t.active_slabs, (double)t.slabs));
	fprintf(out, " Active / Total Caches (%% used)     : %lu / %lu (%.1f%%)\n", t.active_caches,
		t.caches, pct((double)t.active_caches, (double)t.caches));
	fprintf(out, " Active / Total Size (%% used)       : %.2fK / %.2fK (%.1f%%)\n", t.active_k,
		t.size_k, pct(t.active_k, t.size_k));
	fprintf(out, " Minimum / Average / Maximum Object : %.2fK / %.2fK / %.2fK\n", t.min_k,
		t.objs ? t.size_k / (double)t.objs : 0.0, t.max_k);
}

static void draw_row(FILE *out, const struct top_row *r, const char *eol)
{
	fprintf(out, "%6lu %6lu %3.0f%% %7.2fK %6lu %8lu %9luK %s%s", r->objs, r->active, r->use,
		(double)r->obj_size / 1024.0, r->slabs, r->objs_per_slab, r->cache_size / 1024,
		r->name, eol);
}

/*
 * One screen: on a terminal a title line, then slabtop's summary, the
 * column heads and at most max_rows caches (all when max_rows < 0); without
 * a terminal exactly slabtop -o's layout.  "\033[K" clears what a longer
 * line of the previous screen left.
 */
static void draw(FILE *out, const struct uslab_stats_header *h, const struct top_row *rows,
		 uint32_t n, char sort, int max_rows, bool tty)
{
	const char *eol = tty ? "\033[K\n" : "\n";
	uint32_t i;

	if (tty)
		fprintf(out, "\033[H uslabtop - pid %d (%.8s), sorted by %s%s", h->pid, h->allocator,
			sort_name(sort), eol);
	draw_summary(out, rows, n);
	fprintf(out, "%s%s  OBJS ACTIVE  USE OBJ SIZE  SLABS OBJ/SLAB CACHE SIZE NAME%s%s", eol,
		tty ? "\033[7m" : "", tty ? "\033[0m" : "", eol);
	for (i = 0; i < n && (max_rows < 0 || (int)i < max_rows); i++)
		draw_row(out, &rows[i], eol);
	if (tty)
		fputs("\033[J", out);
	fflush(out);
}

/* ======================= one refresh ======================= */

/* The caches of a new snapshot, sorted; NULL (c->error set) on failure. */
static struct top_row *take_rows(struct stats_client *c, char sort, uint32_t *n)
{
	const struct uslab_snapshot *snap = stats_client_take_snapshot(c);
	const struct uslab_cache_rec *r;
	struct top_row *rows;
	uint32_t i;

	if (!snap)
		return NULL;
	r = snapshot_caches(snap);
	rows = calloc(snap->nr_caches + 1, sizeof(*rows));
	if (!rows) {
		stats_client_fail(c, "out of memory");
		return NULL;
	}
	for (i = 0; i < snap->nr_caches; i++)
		top_row_init(&rows[i], snap, &r[i]);
	qsort_r(rows, snap->nr_caches, sizeof(*rows), top_row_cmp, &sort);
	*n = snap->nr_caches;
	return rows;
}

static int terminal_rows(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || ws.ws_row < 10)
		return 24;
	return ws.ws_row;
}

/* Draw one refresh; 0, or -1 with c->error set. */
static int refresh(struct stats_client *c, char sort, bool tty)
{
	uint32_t n = 0;
	struct top_row *rows = take_rows(c, sort, &n);

	if (!rows)
		return -1;
	/* the title, 5 summary lines, a blank line and the heads take 8 rows */
	draw(stdout, c->h, rows, n, sort, tty ? terminal_rows() - 9 : -1, tty);
	free(rows);
	return 0;
}

/* ======================= the terminal ======================= */

static void terminal_restore(void)
{
	if (!termios_saved)
		return;
	tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
	termios_saved = false;
	fputs("\033[?25h\n", stdout);	/* the cursor back */
	fflush(stdout);
}

static void on_signal(int sig)
{
	terminal_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Keys without Enter and without echo; the screen cleared, the cursor hidden. */
static void terminal_setup(void)
{
	struct termios raw;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	size_t i;

	if (tcgetattr(STDIN_FILENO, &saved_termios) == 0) {
		raw = saved_termios;
		raw.c_lflag &= (tcflag_t)~(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		termios_saved = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
	}
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], on_signal);
	atexit(terminal_restore);
	fputs("\033[?25l\033[H\033[2J", stdout);
}

/* Wait up to delay seconds for a key: the key, 0 on timeout, -1 at end of input. */
static int wait_key(double delay)
{
	struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
	char key;
	int r = poll(&p, 1, (int)(delay * 1000));

	if (r <= 0)
		return 0;
	if (read(STDIN_FILENO, &key, 1) != 1)
		return -1;
	return (unsigned char)key;
}

/* The live view: returns the exit status. */
static int live(struct stats_client *c, struct top_options *o)
{
	int key;

	terminal_setup();
	for (;;) {
		if (refresh(c, o->sort, true)) {
			terminal_restore();
			return tool_error(c->error);
		}
		key = wait_key(o->delay);
		if (key == 'q' || key == 'Q' || key < 0)
			break;
		if (key && strchr(SORT_KEYS, key))
			o->sort = (char)key;
	}
	terminal_restore();
	return 0;
}

/* ======================= command line ======================= */

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "delay", required_argument, NULL, 'd' },
	{ "once", no_argument, NULL, 'o' },
	{ "sort", required_argument, NULL, 's' },
	{ "timeout", required_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static void parse_args(struct top_options *o, double *timeout, int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "p:d:os:t:hV", long_options, NULL)) != -1) {
		if (c == 'p')
			o->pid = parse_pid(optarg);
		else if (c == 'd')
			o->delay = parse_number(optarg, TOOL_MAX_SECONDS, "--delay needs seconds above 0");
		else if (c == 'o')
			o->once = true;
		else if (c == 's' && strlen(optarg) == 1 && strchr(SORT_KEYS, optarg[0]))
			o->sort = optarg[0];
		else if (c == 's')
			bad_usage("--sort takes one of the keys " SORT_KEYS);
		else if (c == 't')
			*timeout = parse_number(optarg, TOOL_MAX_SECONDS, "--timeout needs seconds above 0");
		else if (c == 'h')
			usage(stdout), exit(0);
		else if (c == 'V')
			puts(USLABTOP_VERSION), exit(0);
		else
			bad_usage("unknown option");
	}
	if (optind < argc && !o->pid && optind + 1 == argc)
		o->pid = parse_pid(argv[optind++]);
	if (optind < argc)
		bad_usage("too many operands");
	if (!o->pid)
		bad_usage("a PID is needed");
}

int main(int argc, char **argv)
{
	struct top_options o = { .delay = 3.0, .sort = 'o' };
	struct stats_client c = { .fd = -1 };
	double timeout = STATS_CLIENT_DEFAULT_TIMEOUT;
	int ret;

	parse_args(&o, &timeout, argc, argv);
	c.timeout = timeout;
	if (stats_client_open(&c, o.pid))
		return tool_error(c.error);
	page_size = c.h->page_size;
	if (o.once || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		ret = refresh(&c, o.sort, false) ? tool_error(c.error) : 0;
	else
		ret = live(&c, &o);
	stats_client_close(&c);
	return ret;
}
