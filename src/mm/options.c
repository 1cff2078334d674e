// SPDX-License-Identifier: MIT
/*
 * options.c - USLAB_OPTIONS, parsed the way the kernel parses its command line.
 *
 * 1. Overview.  USLAB_OPTIONS holds items separated by whitespace, e.g.
 *      USLAB_OPTIONS='slub_debug=FZ,kmalloc-64;P,dentry* slab_nomerge'
 *    A value may contain anything but unquoted whitespace (',', ';', '*',
 *    '=' included); double quotes protect whitespace and are removed
 *    (`name="a b"` gives the value `a b`).  parse_early_options() reads the
 *    variable once, at initialisation; parse_option_string() parses any
 *    string the same way (tests, and programs that set options themselves
 *    before the library's first use).
 *
 * 2. Data structures.  Each file registers the items it understands with
 *    __setup("name=", fn) or __setup("name", fn) (internal.h).  The macro
 *    puts a struct obs_kernel_param in the linker section "uslab_setup";
 *    the linker brackets the section with __start_uslab_setup and
 *    __stop_uslab_setup, so the table needs no central list.  This file
 *    registers uslab_verbose, so the section always exists.
 *
 * 3. Matching (the kernel's rules).  An entry "name=" takes an item that
 *    starts with "name=" and gets the text after '=' (possibly empty); an
 *    entry "name" takes exactly the bare item "name" and gets "".  Setup
 *    functions return 0 to accept, -1 to reject the value.
 *
 * 4. Reports.  Nothing is silently ignored; each rejected item gives one
 *    line on stderr and counts in parse_option_string()'s result:
 *      uslab: unknown option 'ITEM' ignored
 *      uslab: bad value for option 'NAME': 'VALUE'
 *      uslab: option 'NAME' needs a value (NAME=...)
 *      uslab: unterminated quote in option 'ITEM' ignored
 *      uslab: option 'BEGINNING...' longer than 1023 characters ignored
 *    "name=value" for a flag registered only as bare "name" is a bad value.
 *
 * 5. The option of this file.
 *      uslab_verbose        same as uslab_verbose=1
 *      uslab_verbose=0|1    1: also report every accepted item, as
 *                           "uslab: option 'ITEM' accepted" (items are
 *                           handled in order: put it first to see them all)
 *
 * 6. No malloc and no stdio streams: this runs inside the malloc drop-in's
 *    first call.  Items are copied into a fixed buffer on the stack, and
 *    reports are formatted with snprintf (%s and %d only: no allocation)
 *    and written with os_write_all().  Lock: parse_early_options() runs its
 *    body under a pthread_once; parse_option_string() takes no lock and
 *    must not run concurrently with itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "os/os.h"

#define OPTION_MAX_LEN		1024	/* longest item kept, NUL included */
#define OPTION_SHOW_LEN		64	/* characters of an over-long item shown */

/* The table: every __setup entry of the program, placed by the linker. */
extern const struct obs_kernel_param __start_uslab_setup[] __attribute__((visibility("hidden")));
extern const struct obs_kernel_param __stop_uslab_setup[] __attribute__((visibility("hidden")));

/* One whitespace-separated item, dequoted. */
struct option_item {
	char text[OPTION_MAX_LEN];	/* the item, NUL-terminated */
	bool truncated;			/* the item did not fit in text */
	bool open_quote;		/* a double quote was never closed */
};

static unsigned int uslab_verbose;	/* uslab_verbose level (written while parsing) */
static pthread_once_t early_options_once = PTHREAD_ONCE_INIT;	/* USLAB_OPTIONS parsed */

/* ---- reports ---- */

static __printf(1, 2) void option_report(const char *fmt, ...)
{
	char buf[2 * OPTION_MAX_LEN + 128];	/* two quoted item parts and the words */
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		os_write_all(2, buf, min((size_t)n, sizeof(buf) - 1));
}

/* Length of the name part of an item: up to its first '=' or its end. */
static int option_name_len(const char *item)
{
	return (int)strcspn(item, "=");
}

/* ---- numbers ---- */

static bool digit_value(char c, unsigned long base, unsigned long *digit)
{
	if (c >= '0' && c <= '9')
		*digit = (unsigned long)(c - '0');
	else if (base == 16 && c >= 'a' && c <= 'f')
		*digit = (unsigned long)(c - 'a' + 10);
	else if (base == 16 && c >= 'A' && c <= 'F')
		*digit = (unsigned long)(c - 'A' + 10);
	else
		return false;
	return true;
}

/* Binary shift of a size suffix (K, M, G, either case); 0 if c is none. */
static unsigned int suffix_shift(char c)
{
	switch (c) {
	case 'K': case 'k': return 10;
	case 'M': case 'm': return 20;
	case 'G': case 'g': return 30;
	default: return 0;
	}
}

/**
 * kstrtoul_opt - parse an option's number: decimal or 0x hex, then an
 * optional K/M/G suffix (binary: 2^10, 2^20, 2^30).
 * @s:   the text, nothing else around it (no sign, no spaces)
 * @res: set to the value on success, untouched on failure
 *
 * Return: 0, -EINVAL for junk (no digits, trailing characters), or
 * -ERANGE if the value does not fit an unsigned long.
 */
int kstrtoul_opt(const char *s, unsigned long *res)
{
	unsigned long v = 0, base = 10, digit;
	unsigned int shift;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!digit_value(*s, base, &digit))
		return -EINVAL;
	for (; digit_value(*s, base, &digit); s++) {
		if (v > (ULONG_MAX - digit) / base)
			return -ERANGE;
		v = v * base + digit;
	}
	shift = suffix_shift(*s);
	if (shift)
		s++;
	if (*s)
		return -EINVAL;
	if (v > (ULONG_MAX >> shift))
		return -ERANGE;
	*res = v << shift;
	return 0;
}

/* ---- this file's option ---- */

static int setup_uslab_verbose(const char *val)
{
	(void)val;
	uslab_verbose = 1;
	return 0;
}
__setup("uslab_verbose", setup_uslab_verbose);

static int setup_uslab_verbose_level(const char *val)
{
	unsigned long level;

	if (kstrtoul_opt(val, &level) || level > 1)
		return -1;
	uslab_verbose = (unsigned int)level;
	return 0;
}
__setup("uslab_verbose=", setup_uslab_verbose_level);

/* ---- matching ---- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Does entry p take item?  If so, *val is the text the setup function gets. */
static bool option_matches(const struct obs_kernel_param *p, const char *item, const char **val)
{
	size_t n = strlen(p->str);

	if (!n || !p->setup_func)
		return false;
	if (p->str[n - 1] == '=' ? strncmp(item, p->str, n) != 0 : strcmp(item, p->str) != 0)
		return false;
	*val = item + n;
	return true;
}

static const struct obs_kernel_param *option_lookup(const char *item, const char **val)
{
	const struct obs_kernel_param *p;

	for (p = __start_uslab_setup; p < __stop_uslab_setup; p++)
		if (option_matches(p, item, val))
			return p;
	return NULL;
}

/* Is there an entry named by the first len characters of item, with or without '='? */
static const struct obs_kernel_param *option_lookup_name(const char *item, int len, bool with_eq)
{
	const struct obs_kernel_param *p;

	for (p = __start_uslab_setup; p < __stop_uslab_setup; p++)
		if (strlen(p->str) == (size_t)len + with_eq && !strncmp(p->str, item, (size_t)len) &&
		    (p->str[len] == '=') == with_eq)
			return p;
	return NULL;
}

/* Report an item no entry takes; says why as precisely as it can. */
static void option_report_unmatched(const char *item)
{
	int len = option_name_len(item);

	if (item[len] == '=' && option_lookup_name(item, len, false))
		option_report("uslab: bad value for option '%.*s': '%s'\n", len, item, item + len + 1);
	else if (!item[len] && option_lookup_name(item, len, true))
		option_report("uslab: option '%s' needs a value (%s=...)\n", item, item);
	else
		option_report("uslab: unknown option '%s' ignored\n", item);
}

/* Hand one item to its setup function; false (after a report) if rejected. */
static bool option_apply(const struct option_item *it)
{
	const struct obs_kernel_param *p;
	const char *val;

	if (it->truncated) {
		option_report("uslab: option '%.*s...' longer than %d characters ignored\n",
			      OPTION_SHOW_LEN, it->text, OPTION_MAX_LEN - 1);
		return false;
	}
	if (it->open_quote) {
		option_report("uslab: unterminated quote in option '%s' ignored\n", it->text);
		return false;
	}
	p = option_lookup(it->text, &val);
	if (!p) {
		option_report_unmatched(it->text);
		return false;
	}
	if (p->setup_func(val) != 0) {
		option_report("uslab: bad value for option '%.*s': '%s'\n",
			      option_name_len(it->text), it->text, val);
		return false;
	}
	if (uslab_verbose)
		option_report("uslab: option '%s' accepted\n", it->text);
	return true;
}

/* ---- splitting ---- */

/* Copy the item starting at s into it, dequoted; returns the end of the item. */
static const char *option_next_item(const char *s, struct option_item *it)
{
	bool in_quote = false;
	size_t n = 0;

	it->truncated = false;
	for (; *s && (in_quote || !is_space(*s)); s++) {
		if (*s == '"')
			in_quote = !in_quote;
		else if (n < sizeof(it->text) - 1)
			it->text[n++] = *s;
		else
			it->truncated = true;
	}
	it->text[n] = '\0';
	it->open_quote = in_quote;
	return s;
}

int parse_option_string(const char *opts)
{
	struct option_item it;
	int rejected = 0;

	if (!opts)
		return 0;
	for (;;) {
		while (is_space(*opts))
			opts++;
		if (!*opts)
			return rejected;
		opts = option_next_item(opts, &it);
		if (!option_apply(&it))
			rejected++;
	}
}

static void parse_early_options_once(void)
{
	parse_option_string(getenv("USLAB_OPTIONS"));
}

void parse_early_options(void)
{
	pthread_once(&early_options_once, parse_early_options_once);
}
