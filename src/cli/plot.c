/*
 * plot.c - `bagscope plot`: message paths reduced over time (reduce.h) and
 * printed as a braille chart with axes, or with --csv as the reduced
 * columns themselves, one line per series and column:
 *   path,column,t_start_ns,t_end_ns,count,min,max
 *
 * Arguments that name an existing file (or end in .bag) are bags, the
 * others message paths. W columns split [start, end] (the bag's span by
 * default) as reduce.h says; the chart draws column c as dot column c, two
 * to a character.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/chart.h"

#define DEFAULT_CELLS 70
#define DEFAULT_HEIGHT 15
#define MAX_COLUMNS 100000
#define MAX_HEIGHT 1000

struct plot_opts {
	struct select sel;        /* --start, --end */
	size_t width;             /* columns; 0: from the terminal */
	int height;               /* chart rows; 0: default */
	bool csv;
	const char **paths;
	size_t npaths;
	char **bags;
	size_t nbags;
};

static void usage(FILE *out)
{
	fputs("usage: bagscope plot [--start S] [--end E] [--width W] [--height H] [--csv] PATH... BAG...\n"
	      "  PATH: a topic and a field, e.g. /imu/data.linear_acceleration.x (bagscope(1))\n"
	      "  W columns (braille dots across; default: the terminal's width), H rows\n"
	      "  --csv: path,column,t_start_ns,t_end_ns,count,min,max per series and column\n", out);
}

/* A positive count no larger than max, digits only. */
static int parse_count(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)s[0]))
		return -1;
	*out = strtoull(s, &end, 10);
	return *end != '\0' || errno == ERANGE || *out == 0 || *out > max ? -1 : 0;
}

static bool is_bag_arg(const char *s)
{
	size_t n = strlen(s);
	return access(s, F_OK) == 0 || (n > 4 && strcmp(s + n - 4, ".bag") == 0);
}

static int parse_args(int argc, char **argv, struct plot_opts *o)
{
	static const struct option longopts[] = {
		SELECT_OPT_START, SELECT_OPT_END,
		{ "width", required_argument, NULL, 'w' },
		{ "height", required_argument, NULL, 'H' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long n;
	int opt;

	memset(o, 0, sizeof *o);
	if (select_init(&o->sel, "plot", argc) != BAG_OK)
		return -1;
	while ((opt = getopt_long(argc, argv, "s:e:w:H:ch", longopts, NULL)) != -1) {
		if (select_option(&o->sel, opt, optarg))
			continue;
		switch (opt) {
		case 'c': o->csv = true; break;
		case 'w':
			if (parse_count(optarg, MAX_COLUMNS, &n) != 0) {
				cli_error("plot: --width needs a count of columns from 1 to %d, not '%s'", MAX_COLUMNS, optarg);
				return -1;
			}
			o->width = (size_t)n;
			break;
		case 'H':
			if (parse_count(optarg, MAX_HEIGHT, &n) != 0) {
				cli_error("plot: --height needs a count of rows from 1 to %d, not '%s'", MAX_HEIGHT, optarg);
				return -1;
			}
			o->height = (int)n;
			break;
		case 'h': usage(stdout); exit(EXIT_OK);
		default: cli_bad_option(argv); usage(stderr); return -1;
		}
	}
	o->paths = calloc((size_t)argc + 1, sizeof *o->paths);
	o->bags = calloc((size_t)argc + 1, sizeof *o->bags);
	if (o->paths == NULL || o->bags == NULL)
		return -1;
	for (int i = optind; i < argc; i++) {
		if (is_bag_arg(argv[i]))
			o->bags[o->nbags++] = argv[i];
		else
			o->paths[o->npaths++] = argv[i];
	}
	if (o->npaths == 0 || o->nbags == 0) {
		cli_error("plot: name %s", o->npaths == 0 ? "a message path such as /imu/data.linear_acceleration.x"
		                                          : "a bag file");
		usage(stderr);
		return -1;
	}
	return 0;
}

/* A refused path: the problem, and a caret under the place (both escaped). */
static void path_error(const bag_reduce_t *r, const char *path)
{
	struct bag_text before = { 0 };
	struct term_scratch sc = { 0 };
	size_t pos = bag_reduce_error(r)->offset;
	int lead = (int)strlen("bagscope: plot: ");

	if (pos > strlen(path))
		pos = strlen(path);
	term_escape(&before, path, pos);
	cli_error("plot: %s", bag_reduce_error(r)->message);
	fprintf(stderr, "%*s%s\n%*s^\n", lead, "", term_str(&sc, path), lead + (int)before.len, "");
	bag_text_free(&before);
	term_scratch_free(&sc);
}

/* The csv lines of series k. */
static void print_csv(const char *path, const struct bag_reduce_col *cols, size_t n, struct bag_text *t)
{
	struct bag_text cell = { 0 };

	if (strpbrk(path, ",\"\r\n") != NULL) {
		bag_text_append(&cell, "\"", 1);
		for (const char *p = path; *p; p++) {
			if (*p == '"')
				bag_text_append(&cell, "\"", 1);
			bag_text_append(&cell, p, 1);
		}
		bag_text_append(&cell, "\"", 1);
	} else {
		bag_text_append(&cell, path, strlen(path));
	}
	for (size_t c = 0; c < n; c++) {
		t->len = 0;
		term_escape(t, cell.p, cell.len);
		bag_text_printf(t, ",%zu,%lld,%lld,%llu,", c, (long long)cols[c].t_start_ns,
		                (long long)cols[c].t_end_ns, (unsigned long long)cols[c].count);
		if (cols[c].count > 0) {
			bag_text_double(t, cols[c].min);
			bag_text_append(t, ",", 1);
			bag_text_double(t, cols[c].max);
		} else {
			bag_text_append(t, ",", 1);
		}
		bag_text_append(t, "\n", 1);
		fwrite(t->p, 1, t->len, stdout);
	}
	bag_text_free(&cell);
}

/* Seconds with three decimals. */
static void fmt_secs(char *buf, size_t cap, int64_t ns)
{
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	snprintf(buf, cap, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000000000u),
	         (unsigned long long)(a % 1000000000u / 1000000u));
}

/* The chart: y labels, braille rows, x axis, one legend line per series. */
static void print_chart(bag_reduce_t *r, const struct plot_opts *o, struct bag_reduce_col *const *cols,
                        size_t W, int64_t t0, int64_t t1, bool colour)
{
	static const char *const sgr[] = { "\033[36m", "\033[33m", "\033[35m", "\033[32m", "\033[31m", "\033[34m" };
	double lo = INFINITY, hi = -INFINITY;
	char labels[3][32], cell[4];
	struct chart ch;
	struct term_scratch sc = { 0 };
	int lw = 0, rows = o->height ? o->height : DEFAULT_HEIGHT;

	for (size_t k = 0; k < o->npaths; k++)
		chart_extent(cols[k], W, &lo, &hi);
	chart_pad(&lo, &hi);
	if (chart_init(&ch, (int)((W + 1) / 2), rows) != 0) {
		cli_error("out of memory");
		return;
	}
	for (size_t k = 0; k < o->npaths; k++)
		chart_series(&ch, (int)k, cols[k], W, lo, hi);
	chart_label(hi, hi - lo, labels[0], sizeof labels[0]);
	chart_label((lo + hi) / 2, hi - lo, labels[1], sizeof labels[1]);
	chart_label(lo, hi - lo, labels[2], sizeof labels[2]);
	for (int i = 0; i < 3; i++)
		lw = (int)strlen(labels[i]) > lw ? (int)strlen(labels[i]) : lw;
	for (int y = 0; y < ch.h; y++) {
		const char *label = y == 0 ? labels[0] : y == ch.h - 1 ? labels[2] : y == ch.h / 2 && ch.h > 2 ? labels[1] : "";
		printf("%*s %s", lw, label, label[0] ? "\xE2\x94\xA4" : "\xE2\x94\x82");
		int last = 0;
		for (int x = 0; x < ch.w; x++) {
			int s = ch.series[y * ch.w + x];
			if (colour && s != last)
				fputs(s ? sgr[(s - 1) % 6] : "\033[0m", stdout);
			last = s;
			chart_cell_utf8(&ch, x, y, cell);
			fputs(cell, stdout);
		}
		if (colour && last)
			fputs("\033[0m", stdout);
		putchar('\n');
	}
	printf("%*s \xE2\x94\x94", lw, "");
	for (int x = 0; x < ch.w; x++)
		fputs("\xE2\x94\x80", stdout);
	char left[48], right[64], span[48];
	fmt_secs(left, sizeof left, t0);
	fmt_secs(span, sizeof span, t1 - t0);
	snprintf(right, sizeof right, "+%s s", span);
	int gap = ch.w + 1 - (int)strlen(left) - (int)strlen(right);
	printf("\n%*s %s%*s%s\n", lw, "", left, gap > 1 ? gap : 1, "", right);
	for (size_t k = 0; k < o->npaths; k++) {
		double mn = INFINITY, mx = -INFINITY;
		chart_extent(cols[k], W, &mn, &mx);
		char a[32] = "-", b[32] = "-";
		if (mn <= mx) {
			chart_label(mn, hi - lo, a, sizeof a);
			chart_label(mx, hi - lo, b, sizeof b);
		}
		printf("%*s %s%s\xE2\xA3\xBF%s %s  %llu sample%s, min %s, max %s\n", lw, "", "", colour ? sgr[k % 6] : "",
		       colour ? "\033[0m" : "", term_str(&sc, o->paths[k]),
		       (unsigned long long)bag_reduce_count(r, k), BAG_S(bag_reduce_count(r, k)), a, b);
	}
	chart_free(&ch);
	term_scratch_free(&sc);
}

/* Columns across the terminal (twice its cells less the axis), or the default. */
static size_t default_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 30)
		return 2 * (size_t)(ws.ws_col - 14);
	return 2 * DEFAULT_CELLS;
}

/* Each series in W columns over [t0, t1], printed as a chart or CSV. Returns 0 or -1 (said). */
static int plot_columns(bag_reduce_t *r, const struct plot_opts *o, int64_t t0, int64_t t1)
{
	size_t W = o->width ? o->width : default_width();
	struct bag_reduce_col **cols = calloc(o->npaths, sizeof *cols);
	struct bag_text line = { 0 };
	int rc = -1;

	if (cols == NULL)
		goto done;
	for (size_t k = 0; k < o->npaths; k++)
		if ((cols[k] = calloc(W, sizeof **cols)) == NULL ||
		    bag_reduce_columns(r, k, t0, t1, W, cols[k]) != BAG_OK) {
			cli_error("out of memory");
			goto done;
		}
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (o->csv)
		for (size_t k = 0; k < o->npaths; k++)
			print_csv(o->paths[k], cols[k], W, &line);
	else
		print_chart(r, o, cols, W, t0, t1, isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL);
	fflush(stdout);
	rc = 0;
done:
	for (size_t k = 0; cols != NULL && k < o->npaths; k++)
		free(cols[k]);
	free(cols);
	bag_text_free(&line);
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_opts o;
	struct bagset bs = { 0 };
	bag_reduce_t *r = NULL;
	struct bag_reduce_opts ro = BAG_REDUCE_OPTS_INIT;
	struct bag_query q;
	size_t warnings = 0;
	int status = EXIT_USAGE, rc;

	if (parse_args(argc, argv, &o) != 0)
		goto done;
	status = EXIT_BAD_INPUT;
	if (bagset_open(&bs, o.bags, o.nbags) != BAG_OK)
		goto done;
	int64_t t0 = bag_timeline_start(bs.tl), t1 = bag_timeline_end(bs.tl);
	if ((status = cli_select_query(&o.sel, bs.tl, &q)) != EXIT_OK)
		goto done;
	status = EXIT_BAD_INPUT;
	if (o.sel.start)
		t0 = q.start_ns;
	if (o.sel.end)
		t1 = q.end_ns;
	if (t0 > t1) {
		cli_error("plot: the start is after the end");
		status = EXIT_USAGE;
		goto done;
	}
	if ((rc = bag_reduce_open(&r, bs.tl, o.paths, o.npaths)) != BAG_OK) {
		if (rc == BAG_EEXPR) {
			path_error(r, o.paths[bag_reduce_errpath(r)]);
			status = EXIT_USAGE;
		} else {
			cli_error("plot: %s", bag_reduce_error(r)->message);
		}
		goto done;
	}
	ro.start_ns = t0;
	ro.end_ns = t1;
	if ((rc = bag_reduce_run(r, &ro)) != BAG_OK) {
		cli_error("%s", bag_reduce_error(r)->message);
		goto done;
	}
	cli_timeline_warnings(bs.tl, &warnings);
	if (plot_columns(r, &o, t0, t1) != 0)
		goto done;
	struct bag_error why;
	uint64_t failed = bag_reduce_failed(r, &why);
	status = EXIT_OK;
	if (failed > 0) {
		cli_error("%llu message%s could not be read; the first: %s", (unsigned long long)failed, BAG_S(failed), why.message);
		status = EXIT_BAD_INPUT;
	}
done:
	fflush(stdout);
	bag_reduce_free(r);
	bagset_close(&bs);
	free(o.paths);
	free(o.bags);
	select_free(&o.sel);
	return status;
}
