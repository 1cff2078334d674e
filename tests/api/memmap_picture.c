/* SPDX-License-Identifier: MIT */
/*
 * memmap_picture.c - uslab_memmap_picture_write() draws the memory map as
 * SVG, HTML or PNG, and the counts it embeds (JSON in the element with id
 * "uslab-summary", or the PNG's iTXt chunk of that name) match the
 * allocator's own statistics:
 *   - free pages == uslab_memmap_stats().pages_free (nr_free_pages());
 *   - per cache (SLUB, SLAB): slabs == slabinfo num_slabs, pages ==
 *     num_slabs * pagesperslab; SLOB: the pages of each list ==
 *     uslab_slob_get_info();
 *   - large kmalloc folios and other allocated pages grow by exactly what
 *     the test allocated; every category adds up to the pages online;
 *   - the cell of a known object's page names its cache (or list), and the
 *     cells of a large kmalloc and of alloc_pages() blocks say so;
 *   - the SVG and HTML are well formed (elements nest, one root, entities
 *     valid); the PNG's chunks, CRCs, zlib stream and Adler-32 are right,
 *     and the pixels of those pages have the colour the legend gives them;
 *   - bad paths are refused and create nothing; map_at_exit= writes one
 *     picture at exit, with %p expanded, and rejects bad values;
 *   - drawing while other threads allocate still counts free pages exactly.
 */
/* uslab-test: threaded */
#include "api.h"
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <uslab/gfp.h>
#include <uslab/slobinfo.h>

#define NR_OBJS		3000
#define NR_PAGE_OBJS	30
#define NR_LARGE	5
#define LARGE_SIZE	65536		/* order 4 */
#define NR_KMALLOC	500

/* ---- files ---- */

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void make_temp_dir(char *dir, size_t len)
{
	snprintf(dir, len, "%s/uslab-picture.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Files in dir (not . or ..); their names into names[] if given. */
static int dir_entries(const char *dir, char names[][256], int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			if (names && n < max)
				snprintf(names[n], 256, "%s", e->d_name);
			n++;
		}
	closedir(d);
	return n;
}

static void remove_dir(const char *dir)
{
	char names[64][256], path[512];
	int i, n = dir_entries(dir, names, 64);

	for (i = 0; i < n && i < 64; i++) {
		snprintf(path, sizeof(path), "%.250s/%.255s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* ---- well-formedness: elements nest, one root, entities valid ---- */

static const char *tag_end(const char *p)
{
	char quote = 0;

	for (; *p; p++)
		if (quote && *p == quote)
			quote = 0;
		else if (!quote && (*p == '"' || *p == '\''))
			quote = *p;
		else if (!quote && *p == '>')
			return p;
	return NULL;
}

static const char *skip_special(const char *p)
{
	const char *e = NULL;

	if (!strncmp(p, "<?", 2))
		e = strstr(p, "?>");
	else if (!strncmp(p, "<!--", 4))
		e = strstr(p, "-->");
	else if (!strncmp(p, "<!", 2))
		e = strchr(p, '>');
	else
		return NULL;
	ck_assert_msg(e != NULL, "unterminated <? or <! at: %.60s", p);
	return e + 1;
}

static void check_entities(const char *doc)
{
	static const char *const ok[] = { "lt;", "gt;", "amp;", "quot;", "apos;" };
	const char *p;
	unsigned int i;
	bool good;

	for (p = strchr(doc, '&'); p; p = strchr(p + 1, '&')) {
		good = p[1] == '#';
		for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			good |= !strncmp(p + 1, ok[i], strlen(ok[i]));
		ck_assert_msg(good, "bare '&' at: %.40s", p);
	}
}

static void assert_well_formed(const char *doc, const char *what)
{
	char stack[64][32], name[32];
	const char *p = doc, *end, *special;
	int depth = 0, roots = 0;
	bool closing;

	while ((p = strchr(p, '<'))) {
		if ((special = skip_special(p))) {
			p = special;
			continue;
		}
		end = tag_end(p);
		ck_assert_msg(end != NULL, "%s: unterminated tag at: %.60s", what, p);
		closing = p[1] == '/';
		ck_assert_int_eq(sscanf(p + 1 + closing, "%31[A-Za-z0-9:-]", name), 1);
		if (closing) {
			ck_assert_msg(depth > 0 && !strcmp(stack[depth - 1], name),
				      "%s: </%s> closes <%s>", what, name, depth ? stack[depth - 1] : "");
			depth--;
		} else if (end[-1] != '/') {
			ck_assert_int_lt(depth, 64);
			roots += depth == 0;
			snprintf(stack[depth++], 32, "%s", name);
		} else {
			roots += depth == 0;
		}
		p = end + 1;
	}
	ck_assert_msg(depth == 0, "%s: %d element(s) never closed", what, depth);
	ck_assert_msg(roots == 1, "%s: %d root elements", what, roots);
	check_entities(doc);
}

/* ---- the embedded summary ---- */

/* The JSON text of the element with id uslab-summary (a copy). */
static char *summary_of(const char *doc)
{
	const char *start = strstr(doc, "id=\"uslab-summary\">"), *end;
	char *json;

	ck_assert_msg(start != NULL, "no uslab-summary element");
	start += strlen("id=\"uslab-summary\">");
	end = strstr(start, "</");
	ck_assert_ptr_nonnull(end);
	json = strndup(start, (size_t)(end - start));
	ck_assert_ptr_nonnull(json);
	return json;
}

/* The number after "key": in json (the first occurrence at or after from). */
static unsigned long json_num(const char *from, const char *key)
{
	char pat[96];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(from, pat);
	ck_assert_msg(p != NULL, "summary lacks %s", key);
	return strtoul(p + strlen(pat), NULL, 10);
}

static unsigned long json_array_sum(const char *json, const char *key)
{
	char pat[96], *p, *q;
	unsigned long sum = 0;

	snprintf(pat, sizeof(pat), "\"%s\": [", key);
	p = strstr(json, pat);
	ck_assert_msg(p != NULL, "summary lacks %s", key);
	for (p += strlen(pat); *p != ']'; p = q + (*q == ',')) {
		sum += strtoul(p, &q, 10);
		ck_assert_msg(q != p, "bad array %s", key);
		while (*q == ' ')
			q++;
	}
	return sum;
}

struct pic_cache_entry {
	bool found;
	unsigned long pages, slabs, num_slabs, order;
};

static struct pic_cache_entry json_cache(const char *json, const char *name)
{
	struct pic_cache_entry c = { false, 0, 0, 0, 0 };
	char pat[128];
	const char *p;

	snprintf(pat, sizeof(pat), "{\"name\": \"%.100s\", ", name);
	p = strstr(json, pat);
	if (!p)
		return c;
	c.found = true;
	c.pages = json_num(p, "pages");
	c.slabs = json_num(p, "slabs");
	c.num_slabs = json_num(p, "num_slabs");
	c.order = json_num(p, "order");
	return c;
}

/* ---- slabinfo through the public API ---- */

struct slab_row {
	char name[64];
	unsigned long num_slabs;
	int pagesperslab;
};

static int read_slabinfo(struct slab_row *rows, int max)
{
	char *buf = NULL, *line, *next;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned long skip[6];
	unsigned int u[5];
	int n = 0;

	ck_assert_ptr_nonnull(f);
	uslab_show_slabinfo(f);
	fclose(f);
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (n < max && sscanf(line, "%63s %lu %lu %u %u %d : tunables %u %u %u : slabdata "
				      "%lu %lu %lu", rows[n].name, &skip[0], &skip[1], &u[0], &u[1],
				      &rows[n].pagesperslab, &u[2], &u[3], &u[4], &skip[2],
				      &rows[n].num_slabs, &skip[3]) == 12)
			n++;
	}
	free(buf);
	return n;
}

/* ---- what a cell says ---- */

/* The title of the run of cells holding pfn, or NULL. */
static char *title_of_pfn(const char *doc, unsigned long pfn)
{
	const char *p, *end;
	unsigned long a, b;
	char *q;

	for (p = strstr(doc, "<title>pfn "); p; p = strstr(p + 1, "<title>pfn ")) {
		a = strtoul(p + strlen("<title>pfn "), &q, 0);
		b = *q == '-' ? strtoul(q + 1, NULL, 0) : a;
		if (pfn >= a && pfn <= b) {
			end = strstr(p, "</title>");
			return strndup(p + strlen("<title>"), (size_t)(end - p) - strlen("<title>"));
		}
	}
	return NULL;
}

static void assert_cell_says(const char *doc, const void *addr, const char *want)
{
	unsigned long pfn = uslab_page_to_pfn(uslab_virt_to_page(addr));
	char *title = title_of_pfn(doc, pfn);

	ck_assert_msg(title != NULL, "no cell for pfn %#lx", pfn);
	ck_assert_msg(strstr(title, want) != NULL, "cell of pfn %#lx says \"%s\", not \"%s\"",
		      pfn, title, want);
	free(title);
}

/* ---- the PNG: chunks, CRCs, stored zlib blocks, pixels ---- */

struct png_image {
	unsigned long w, h;	/* IHDR */
	char *summary;		/* the text of iTXt "uslab-summary" */
	unsigned char *raw;	/* the rows, each a filter byte and w RGB pixels */
	size_t raw_len;
};

static unsigned char *read_bytes(const char *path, size_t *len)
{
	char *text = read_text(path);	/* NUL-terminated, but PNGs hold NULs */
	FILE *f = fopen(path, "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	*len = (size_t)ftell(f);
	fclose(f);
	return (unsigned char *)text;
}

static unsigned long be32(const unsigned char *p)
{
	return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

static unsigned long crc32_of(const unsigned char *p, size_t n)
{
	unsigned long c = 0xffffffffUL;
	int k;

	for (; n; n--, p++)
		for (c ^= *p, k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320UL ^ (c >> 1) : c >> 1;
	return c ^ 0xffffffffUL;
}

/* Inflate a zlib stream of stored blocks only (what uslab writes). */
static void png_inflate(struct png_image *img, const unsigned char *z, size_t n)
{
	size_t at = 2, len, out = 0;
	unsigned long a = 1, b = 0, i;
	bool final = false;

	ck_assert_msg(n >= 6 && z[0] == 0x78 && (z[0] * 256 + z[1]) % 31 == 0, "bad zlib header");
	img->raw = malloc(n);
	ck_assert_ptr_nonnull(img->raw);
	while (!final) {
		ck_assert_msg(at + 5 <= n && (z[at] & 6) == 0, "not a stored block at %zu", at);
		final = z[at] & 1;
		len = z[at + 1] | (size_t)z[at + 2] << 8;
		ck_assert_msg((len ^ (z[at + 3] | (size_t)z[at + 4] << 8)) == 0xffff, "LEN != ~NLEN");
		ck_assert(at + 5 + len <= n);
		memcpy(img->raw + out, z + at + 5, len);
		out += len;
		at += 5 + len;
	}
	for (i = 0; i < out; i++) {
		a = (a + img->raw[i]) % 65521;
		b = (b + a) % 65521;
	}
	ck_assert_msg(at + 4 == n && be32(z + at) == (b << 16 | a), "bad Adler-32 or trailing bytes");
	img->raw_len = out;
}

static void png_chunk(struct png_image *img, const unsigned char *type, const unsigned char *d,
		      unsigned long n)
{
	static const char kw[] = "uslab-summary\0\0\0\0\0";

	if (!memcmp(type, "IHDR", 4)) {
		ck_assert_uint_eq(n, 13);
		img->w = be32(d);
		img->h = be32(d + 4);
		ck_assert_msg(d[8] == 8 && d[9] == 2 && !d[10] && !d[11] && !d[12], "not 8-bit RGB");
	} else if (!memcmp(type, "iTXt", 4)) {
		ck_assert_msg(n > sizeof(kw) - 1 && !memcmp(d, kw, sizeof(kw) - 1),
			      "iTXt is not uslab-summary");
		img->summary = strndup((const char *)d + sizeof(kw) - 1, n - (sizeof(kw) - 1));
	} else if (!memcmp(type, "IDAT", 4)) {
		png_inflate(img, d, n);
	}
}

static void png_read(const char *path, struct png_image *img)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	size_t len, at = 8;
	unsigned char *d = read_bytes(path, &len);
	unsigned long n;

	memset(img, 0, sizeof(*img));
	ck_assert_msg(len > 8 && !memcmp(d, sig, 8), "%s: no PNG signature", path);
	while (at + 12 <= len) {
		n = be32(d + at);
		ck_assert_msg(at + 12 + n <= len, "chunk past the end");
		ck_assert_msg(crc32_of(d + at + 4, 4 + n) == be32(d + at + 8 + n), "bad CRC of %.4s",
			      (const char *)d + at + 4);
		png_chunk(img, d + at + 4, d + at + 8, n);
		if (!memcmp(d + at + 4, "IEND", 4))
			break;
		at += 12 + n;
	}
	ck_assert_msg(at + 12 == len, "IEND missing or not last");
	ck_assert_msg(img->w && img->summary && img->raw, "IHDR, iTXt or IDAT missing");
	ck_assert_uint_eq(img->raw_len, img->h * (1 + img->w * 3));
	free(d);
}

/* "#rrggbb" of the pixel of page pfn (sections of equal size). */
static void png_pixel_of_pfn(const struct png_image *img, const char *json, unsigned long pfn,
			     char *out)
{
	unsigned long cell = json_num(json, "png_cell_px"), gap = json_num(json, "png_section_gap_px");
	unsigned long per_row = json_num(json, "pages_per_row");
	unsigned long section = json_num(json, "pages"), rows = (section + per_row - 1) / per_row;
	unsigned long y = (pfn / section) * (gap + rows * cell) + gap + (pfn % section) / per_row * cell;
	const unsigned char *px = img->raw + y * (1 + img->w * 3);

	ck_assert_msg(y < img->h && px[0] == 0, "row %lu: outside, or filtered", y);
	px += 1 + (pfn % per_row) * cell * 3;
	snprintf(out, 8, "#%02x%02x%02x", px[0], px[1], px[2]);
}

/* The colour the summary gives cache name, or (cache false) the first
 * legend entry whose label starts with name. */
static void summary_colour(const char *json, const char *name, bool cache, char *out)
{
	char pat[128];
	const char *p;

	snprintf(pat, sizeof(pat), cache ? "{\"name\": \"%.100s\", " : "{\"label\": \"%.100s", name);
	p = strstr(json, pat);
	ck_assert_msg(p != NULL, "summary lacks %s", pat);
	p = strstr(p, "\"colour\": \"#");
	ck_assert_ptr_nonnull(p);
	snprintf(out, 8, "%.7s", p + strlen("\"colour\": \""));
}

static void assert_pixel(const struct png_image *img, const char *json, const void *addr,
			 const char *name, bool cache)
{
	char got[8], want[8];
	unsigned long pfn = uslab_page_to_pfn(uslab_virt_to_page(addr));

	png_pixel_of_pfn(img, json, pfn, got);
	summary_colour(json, name, cache, want);
	ck_assert_msg(!strcmp(got, want), "pixel of pfn %#lx is %s, %s is %s", pfn, got, name, want);
}

static void png_free(struct png_image *img)
{
	free(img->summary);
	free(img->raw);
}

/* ---- drawing ---- */


struct drawn {
	char *svg, *html;	/* the files' text */
	char *json;		/* the SVG's summary */
};

/* Write name.svg and name.html; quiet: nothing else runs meanwhile, so
 * both must carry the same summary. */
static void draw(const char *dir, const char *name, struct drawn *d, bool quiet)
{
	char svg[512], html[512];
	char *json_html;

	snprintf(svg, sizeof(svg), "%s/%s.svg", dir, name);
	snprintf(html, sizeof(html), "%s/%s.html", dir, name);
	ck_assert_int_eq(uslab_memmap_picture_write(svg), 0);
	ck_assert_int_eq(uslab_memmap_picture_write(html), 0);
	d->svg = read_text(svg);
	d->html = read_text(html);
	assert_well_formed(d->svg, svg);
	assert_well_formed(d->html, html);
	d->json = summary_of(d->svg);
	json_html = summary_of(d->html);
	ck_assert_msg(!quiet || !strcmp(d->json, json_html),
		      "the SVG and HTML summaries of one state differ");
	free(json_html);
}

static void drawn_free(struct drawn *d)
{
	free(d->svg);
	free(d->html);
	free(d->json);
}

/* Free pages and every category add up, and match the page allocator. */
static void assert_totals(const char *json)
{
	struct uslab_memmap_stats st;
	unsigned long online = json_num(json, "pages_online"), free = json_num(json, "pages_free");

	uslab_memmap_stats(&st);
	ck_assert_uint_eq(online, st.pages_online);
	ck_assert_uint_eq(free, st.pages_free);
	ck_assert_uint_eq(free, json_num(json, "nr_free_pages"));
	ck_assert_uint_eq(free, json_num(json, "pages_buddy") + json_num(json, "pages_pcp"));
	ck_assert_uint_eq(json_num(json, "pages_buddy"), json_array_sum(json, "free_pages_by_order"));
	ck_assert_uint_eq(online, free + json_num(json, "pages_slab") +
			  json_num(json, "pages_large_kmalloc") + json_num(json, "pages_other"));
}

/* Every slabinfo row against the map; returns the pages of all caches. */
static unsigned long assert_caches_match_slabinfo(const char *json)
{
	struct slab_row rows[512];
	struct pic_cache_entry c;
	unsigned long sum = 0;
	int i, n = read_slabinfo(rows, 512);

	ck_assert_int_gt(n, 0);
	for (i = 0; i < n; i++) {
		c = json_cache(json, rows[i].name);
		ck_assert_msg(c.found, "cache %s is not in the summary", rows[i].name);
		ck_assert_msg(c.slabs == rows[i].num_slabs && c.num_slabs == rows[i].num_slabs,
			      "%s: %lu slabs on the map, slabinfo says %lu", rows[i].name, c.slabs,
			      rows[i].num_slabs);
		ck_assert_msg(c.pages == rows[i].num_slabs * (unsigned long)rows[i].pagesperslab,
			      "%s: %lu pages on the map, slabinfo says %lu slabs of %d pages",
			      rows[i].name, c.pages, rows[i].num_slabs, rows[i].pagesperslab);
		sum += c.pages;
	}
	ck_assert_uint_eq(json_num(json, "pages_slab_unlisted"), 0);
	return sum;
}

/* SLOB's pages on the map, by list. */
static unsigned long slob_pages(const char *json)
{
	return json_num(json, "small") + json_num(json, "medium") + json_num(json, "large") +
	       json_num(json, "full");
}

/* ... are what SLOB's own report says now. */
static unsigned long assert_slob_pages_match(const char *json)
{
	struct uslab_slob_info info;

	ck_assert(uslab_slob_get_info != NULL);
	uslab_slob_get_info(&info);
	ck_assert_uint_eq(json_num(json, "small"), info.list[USLAB_SLOB_SMALL].pages);
	ck_assert_uint_eq(json_num(json, "medium"), info.list[USLAB_SLOB_MEDIUM].pages);
	ck_assert_uint_eq(json_num(json, "large"), info.list[USLAB_SLOB_LARGE].pages);
	ck_assert_uint_eq(json_num(json, "full"), info.full_pages);
	ck_assert_uint_eq(slob_pages(json), info.pages);
	return info.pages;
}

/* Slab pages: the caches' (SLOB: its objects of a page or more) and SLOB's own. */
static void assert_slabs_match(const char *json)
{
	unsigned long pages = assert_caches_match_slabinfo(json);

	if (allocator_is("slob"))
		pages += assert_slob_pages_match(json);
	ck_assert_uint_eq(json_num(json, "pages_slab"), pages);
}

/* ---- the known mix ---- */

static void pic_ctor(void *obj)
{
	memset(obj, 0x5a, 8);	/* a constructor: the cache is never merged */
}

struct mix {
	struct kmem_cache *objs, *page_objs;
	void *obj[NR_OBJS], *page_obj[NR_PAGE_OBJS], *large[NR_LARGE], *km[NR_KMALLOC];
	struct page *pages[3];
	struct folio *folios[2];
};

static void mix_alloc(struct mix *m)
{
	int i;

	for (i = 0; i < NR_OBJS; i++)
		ck_assert_ptr_nonnull(m->obj[i] = kmem_cache_alloc(m->objs, GFP_KERNEL));
	for (i = 0; i < NR_PAGE_OBJS; i++)
		ck_assert_ptr_nonnull(m->page_obj[i] = kmem_cache_alloc(m->page_objs, GFP_KERNEL));
	for (i = 0; i < NR_LARGE; i++)
		ck_assert_ptr_nonnull(m->large[i] = kmalloc_large(LARGE_SIZE, GFP_KERNEL));
	for (i = 0; i < NR_KMALLOC; i++)
		ck_assert_ptr_nonnull(m->km[i] = kmalloc(8 + (size_t)i * 4, GFP_KERNEL));
	for (i = 0; i < 3; i++)
		ck_assert_ptr_nonnull(m->pages[i] = alloc_pages(GFP_KERNEL, 2));
	for (i = 0; i < 2; i++)
		ck_assert_ptr_nonnull(m->folios[i] = folio_alloc(GFP_KERNEL, 3));
	for (i = 0; i < NR_OBJS; i += 3) {	/* leave holes */
		kmem_cache_free(m->objs, m->obj[i]);
		m->obj[i] = NULL;
	}
	for (i = 0; i < NR_KMALLOC; i += 2)
		kfree(m->km[i]);
}

/* Pages outside slabs and large kmallocs grew by exactly the mix's
 * alloc_pages() and folio_alloc() blocks (SLOB's page-sized objects are
 * their cache's, and its object maps live outside the arena). */
static void assert_other_pages(const char *before, const char *after)
{
	ck_assert_uint_eq(json_num(after, "pages_other") - json_num(before, "pages_other"),
			  3 * 4 + 2 * 8);
}

/* The PNG of the same state: its summary, and the pixels of known pages. */
static void check_png(const char *dir, const struct mix *m, const char *json)
{
	struct png_image img;
	char path[512];

	snprintf(path, sizeof(path), "%s/after.png", dir);
	ck_assert_int_eq(uslab_memmap_picture_write(path), 0);
	png_read(path, &img);
	ck_assert_str_eq(img.summary, json);
	ck_assert_uint_eq(img.w, json_num(json, "pages_per_row") * json_num(json, "png_cell_px"));
	if (allocator_is("slob"))
		assert_pixel(&img, json, m->obj[1], "SLOB page", false);
	else
		assert_pixel(&img, json, m->obj[1], "pic_obj", true);
	assert_pixel(&img, json, m->large[0], "large kmalloc", false);
	assert_pixel(&img, json, folio_address(m->folios[0]), "other allocated pages", false);
	png_free(&img);
}

START_TEST(test_counts_match_statistics)
{
	struct drawn before, after;
	struct mix *m = calloc(1, sizeof(*m));
	char dir[256];

	make_temp_dir(dir, sizeof(dir));
	ck_assert_ptr_nonnull(m);
	m->objs = kmem_cache_create("pic_obj", 200, 0, 0, pic_ctor);
	m->page_objs = kmem_cache_create("pic_page", 5000, 0, 0, pic_ctor);
	ck_assert_ptr_nonnull(m->objs);
	ck_assert_ptr_nonnull(m->page_objs);
	draw(dir, "before", &before, true);
	assert_totals(before.json);
	assert_slabs_match(before.json);

	mix_alloc(m);
	draw(dir, "after", &after, true);
	assert_totals(after.json);
	assert_slabs_match(after.json);
	ck_assert_uint_eq(json_num(after.json, "large_kmalloc_folios") -
			  json_num(before.json, "large_kmalloc_folios"), NR_LARGE);
	ck_assert_uint_eq(json_num(after.json, "pages_large_kmalloc") -
			  json_num(before.json, "pages_large_kmalloc"), NR_LARGE * 16);
	assert_other_pages(before.json, after.json);

	assert_cell_says(after.svg, m->obj[1], allocator_is("slob") ? "SLOB page" : "slab of pic_obj");
	assert_cell_says(after.html, m->obj[1], allocator_is("slob") ? "SLOB page" : "slab of pic_obj");
	assert_cell_says(after.svg, m->page_obj[0],
			 allocator_is("slob") ? "object of pic_page, order 1" : "slab of pic_page");
	assert_cell_says(after.svg, m->large[0], "large kmalloc, order 4");
	assert_cell_says(after.svg, page_address(m->pages[0]), "other allocated pages");
	assert_cell_says(after.svg, folio_address(m->folios[1]), "other allocated pages (alloc_pages), order 3");
	ck_assert_ptr_nonnull(strstr(after.svg, "free, order"));
	check_png(dir, m, after.json);
	drawn_free(&before);
	drawn_free(&after);
	remove_dir(dir);
	free(m);
}
END_TEST

START_TEST(test_bad_paths_are_refused)
{
	static const char *const bad[] = { "picture.jpg", "picture", "x.svg/picture", "x.svgz",
					   ".png/x" };
	char dir[256], path[512], *text;
	unsigned int i;

	make_temp_dir(dir, sizeof(dir));
	ck_assert_int_eq(uslab_memmap_picture_write(NULL), -EINVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, bad[i]);
		ck_assert_int_eq(uslab_memmap_picture_write(path), -EINVAL);
	}
	snprintf(path, sizeof(path), "%s/no/such/dir/x.svg", dir);
	ck_assert_int_eq(uslab_memmap_picture_write(path), -ENOENT);
	ck_assert_int_eq(dir_entries(dir, NULL, 0), 0);

	/* an existing file is replaced whole, and no temporary file stays */
	snprintf(path, sizeof(path), "%s/Map.HTML", dir);
	text = NULL;
	ck_assert_int_eq(uslab_memmap_picture_write(path), 0);
	ck_assert_int_eq(uslab_memmap_picture_write(path), 0);
	text = read_text(path);
	assert_well_formed(text, path);
	ck_assert_int_eq(dir_entries(dir, NULL, 0), 1);
	free(text);
	remove_dir(dir);
}
END_TEST

/* ---- map_at_exit= (scenarios run in a fresh process) ---- */

static int scenario_allocate_and_exit(void)
{
	void *p = kmalloc(100, GFP_KERNEL);

	SCENARIO_CHECK(p != NULL);
	return 0;	/* exit(): the destructor draws the map */
}

static const struct api_scenario scenarios[] = {
	{ "allocate_and_exit", scenario_allocate_and_exit },
};

START_TEST(test_map_at_exit_writes_one)
{
	char dir[256], opts[512], names[4][256], path[600], *text, *json, out[4096];
	const char *options = opts;
	int pid = 0;

	make_temp_dir(dir, sizeof(dir));
	snprintf(opts, sizeof(opts), "map_at_exit=%s/exit-%%p-100%%%%.svg", dir);
	ck_assert_scenario("allocate_and_exit", options);
	ck_assert_int_eq(dir_entries(dir, names, 4), 1);
	ck_assert_msg(sscanf(names[0], "exit-%d-100%%.svg", &pid) == 1 && pid > 0,
		      "unexpected file %s", names[0]);
	snprintf(path, sizeof(path), "%s/%s", dir, names[0]);
	text = read_text(path);
	assert_well_formed(text, path);
	json = summary_of(text);
	ck_assert_uint_eq(json_num(json, "pid"), (unsigned long)pid);
	ck_assert_uint_gt(json_num(json, "pages_online"), 0);
	free(json);
	free(text);
	unlink(path);

	snprintf(opts, sizeof(opts), "map_at_exit=%s/exit.gif", dir);
	ck_assert_int_eq(run_scenario("allocate_and_exit", opts, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "map_at_exit") && strstr(out, "bad value"), "stderr: %s", out);
	snprintf(opts, sizeof(opts), "map_at_exit=%s/exit-%%d.svg", dir);
	ck_assert_int_eq(run_scenario("allocate_and_exit", opts, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "map_at_exit") && strstr(out, "bad value"), "stderr: %s", out);
	ck_assert_int_eq(dir_entries(dir, NULL, 0), 0);
	remove_dir(dir);
}
END_TEST

/* ---- drawing while other threads allocate ---- */

static volatile int churn_stop;

static void *churn(void *arg)
{
	void *p[64];
	unsigned int seed = (unsigned int)(unsigned long)arg, i;

	while (!__atomic_load_n(&churn_stop, __ATOMIC_RELAXED)) {
		for (i = 0; i < 64; i++)
			p[i] = kmalloc(1 + rand_r(&seed) % 9000, GFP_KERNEL);
		for (i = 0; i < 64; i++)
			kfree(p[i]);
	}
	return NULL;
}

/* Counted under the page allocator's locks: exact even while others allocate. */
static void assert_adds_up(const char *json)
{
	ck_assert_uint_eq(json_num(json, "pages_free"), json_num(json, "nr_free_pages"));
	ck_assert_uint_eq(json_num(json, "pages_online"),
			  json_num(json, "pages_free") + json_num(json, "pages_slab") +
			  json_num(json, "pages_large_kmalloc") + json_num(json, "pages_other"));
}

START_TEST(test_draw_while_others_allocate)
{
	pthread_t t[2];
	struct drawn d;
	char dir[256], *json;
	int i;

	make_temp_dir(dir, sizeof(dir));
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, churn, (void *)(long)(i + 1)), 0);
	for (i = 0; i < 4; i++) {
		draw(dir, "busy", &d, false);
		assert_adds_up(d.json);
		json = summary_of(d.html);
		assert_adds_up(json);
		free(json);
		drawn_free(&d);
	}
	__atomic_store_n(&churn_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	remove_dir(dir);
}
END_TEST

static Suite *memmap_picture_suite(void)
{
	Suite *s = suite_create("memmap_picture");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_counts_match_statistics);
	tcase_add_test(tc, test_bad_paths_are_refused);
	tcase_add_test(tc, test_map_at_exit_writes_one);
	tcase_add_test(tc, test_draw_while_others_allocate);
	suite_add_tcase(s, tc);
	return s;
}

API_TEST_MAIN(memmap_picture_suite, scenarios)
