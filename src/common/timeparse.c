/*
 * timeparse.c - parsing jump expressions (see timeparse.h). Fractions of a
 * second are read digit by digit into nanoseconds, never through a double,
 * so "1500000003.0000003" is exact. Sums are formed in 128 bits from
 * operands that cannot overflow them (whole seconds saturate at WHOLE_MAX)
 * and clamped into int64 once, at the end.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/timeparse.h"

#define NS 1000000000LL

/* Whole seconds beyond this (some 300,000 years) are all the same to us. */
#define WHOLE_MAX 10000000000000LL

typedef __int128 wide;

static int64_t clamp(wide v)
{
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* Digits [.digits] at *s: whole seconds (at most WHOLE_MAX) and nanoseconds. */
static void read_number(const char **s, int64_t *whole, int64_t *frac_ns, bool *had_digits)
{
	const char *p = *s;
	int64_t w = 0, f = 0;
	int fd = 0;

	*had_digits = false;
	while (isdigit((unsigned char)*p)) {
		w = w * 10 + (*p++ - '0');
		if (w > WHOLE_MAX)
			w = WHOLE_MAX;
		*had_digits = true;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			if (fd < 9) {
				f = f * 10 + (*p - '0');
				fd++;
			}
			p++;
			*had_digits = true;
		}
	}
	for (; fd < 9; fd++)
		f *= 10;
	*whole = w;
	*frac_ns = f;
	*s = p;
}

/* "1h2m3.5s", "200ms", "12.5" (seconds) as nanoseconds; *unit: a unit appeared. */
static int read_duration(const char *s, wide *ns, bool *unit)
{
	static const struct { const char *name; int64_t mul; } units[] = {
		{ "ms", 1000000 }, { "us", 1000 }, { "ns", 1 }, { "h", 3600 * NS }, { "m", 60 * NS }, { "s", NS },
	};
	wide total = 0;

	*unit = false;
	if (*s == '\0')
		return -1;
	while (*s) {
		int64_t w, f, mul = 0;
		bool digits;
		read_number(&s, &w, &f, &digits);
		if (!digits)
			return -1;
		if (*s == '\0' && !*unit)
			mul = NS;
		for (size_t i = 0; mul == 0 && i < sizeof units / sizeof *units; i++) {
			size_t n = strlen(units[i].name);
			if (strncmp(s, units[i].name, n) == 0) {
				mul = units[i].mul;
				s += n;
				*unit = true;
			}
		}
		if (mul == 0)
			return -1;
		total += (wide)w * mul + (wide)f * mul / NS;
	}
	*ns = total;
	return 0;
}

/*
 * "2020-09-13 12:26:52.5" in the zone asked for (utc, else local), or with a
 * trailing 'Z' in UTC; "12:26:52.5" alone is that time on day_ns's date in
 * that zone.
 */
static int read_date(const char *s, wide *ns, bool utc_default, int64_t day_ns)
{
	struct tm tm;
	const char *p;
	int64_t w, f;
	bool digits, utc, tod = false;
	time_t t;

	memset(&tm, 0, sizeof tm);
	p = strptime(s, "%Y-%m-%d", &tm);
	if (p == NULL && strchr(s, ':') != NULL) {
		tod = true;
		time_t day = (time_t)(day_ns / NS - (day_ns % NS < 0));
		if (utc_default ? gmtime_r(&day, &tm) == NULL : localtime_r(&day, &tm) == NULL)
			return -1;
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		p = s;
	}
	if (p == NULL)
		return -1;
	if (tod || *p == ' ' || *p == 'T') {
		p = strptime(tod ? p : p + 1, "%H:%M", &tm);
		if (p == NULL)
			return -1;
		if (*p == ':') {
			p++;
			read_number(&p, &w, &f, &digits);
			if (!digits || w > 60)
				return -1;
			tm.tm_sec = (int)w;
		} else {
			f = 0;
		}
	} else {
		f = 0;
	}
	utc = *p == 'Z' || *p == 'z';
	if (utc)
		p++;
	utc = utc || utc_default;
	if (*p != '\0')
		return -1;
	tm.tm_isdst = -1;
	t = utc ? timegm(&tm) : mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	*ns = (wide)t * NS + f;
	return 0;
}

/*
 * The one offset rule: +X after the bag's start, -X before its end, >X and
 * <X forward and back from the selected message (current_ns; none when it
 * is JUMP_NO_CURSOR, as on the command line).
 */
static int read_offset(const char *s, int64_t start_ns, int64_t end_ns, int64_t current_ns, struct jump *out,
                       const char **why)
{
	wide ns;
	bool unit;

	if ((*s == '<' || *s == '>') && current_ns == JUMP_NO_CURSOR) {
		*why = ">X and <X move from the selected message, in the browser only";
		return -1;
	}
	if (read_duration(s + 1, &ns, &unit) != 0) {
		*why = "an offset is +12.5 or +5s (after the start), -30s (before the end), >5s or <200ms (from here)";
		return -1;
	}
	switch (*s) {
	case '+': out->time_ns = clamp(start_ns + ns); out->from = JUMP_FROM_START; break;
	case '-': out->time_ns = clamp(end_ns - ns); out->from = JUMP_FROM_END; break;
	case '>': out->time_ns = clamp(current_ns + ns); out->from = JUMP_FROM_HERE; break;
	default: out->time_ns = clamp(current_ns - ns); out->from = JUMP_FROM_HERE; break;
	}
	return 0;
}

int jump_parse(const char *s, int64_t start_ns, int64_t end_ns, int64_t current_ns,
               struct jump *out, const char **why)
{
	return jump_parse_zone(s, start_ns, end_ns, current_ns, false, out, why);
}

int jump_parse_zone(const char *s, int64_t start_ns, int64_t end_ns, int64_t current_ns, bool utc,
                    struct jump *out, const char **why)
{
	int64_t w, f;
	wide ns;
	bool unit, digits;
	size_t len;

	while (isspace((unsigned char)*s))
		s++;
	len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	char buf[128];
	if (len == 0 || len >= sizeof buf) {
		*why = "empty or too long";
		return -1;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	s = buf;
	out->kind = JUMP_TIME;
	if (*s == '#') {
		const char *p = s + 1;
		read_number(&p, &w, &f, &digits);
		if (!digits || *p || f || w < 1) {
			*why = "a row is #N, N from 1";
			return -1;
		}
		out->kind = JUMP_ROW;
		out->from = JUMP_FROM_ROW;
		out->row = (uint64_t)w - 1;
		return 0;
	}
	if (s[len - 1] == '%') {
		const char *p = s;
		buf[len - 1] = '\0';
		read_number(&p, &w, &f, &digits);
		if (!digits || *p || w > 100) {
			*why = "a percentage is 0% to 100%";
			return -1;
		}
		/* w.f percent of the duration */
		wide span = (wide)end_ns - start_ns;
		out->time_ns = clamp(start_ns + span * (w * NS + f) / (100 * NS));
		out->from = JUMP_FROM_SPAN;
		return 0;
	}
	if ((strchr(s, '-') != NULL || strchr(s, ':') != NULL) && strchr("+-<>", s[0]) == NULL) {
		if (read_date(s, &ns, utc, start_ns) == 0) {
			out->time_ns = clamp(ns);
			out->from = JUMP_FROM_DATE;
			return 0;
		}
		*why = "a date is YYYY-MM-DD HH:MM:SS[.frac][Z], or HH:MM[:SS] on the bag's first day";
		return -1;
	}
	if (*s == '+' || *s == '-' || *s == '<' || *s == '>')
		return read_offset(s, start_ns, end_ns, current_ns, out, why);
	if (read_duration(s, &ns, &unit) != 0) {
		*why = "not a time: try 1600000012.5, 2020-09-13 12:26:52Z, +12.5, 1m30s, -30s, >5s, 50% or #100";
		return -1;
	}
	/* a bare number is epoch seconds; a duration with units, an offset from the start */
	out->time_ns = clamp(unit ? start_ns + ns : ns);
	out->from = unit ? JUMP_FROM_START : JUMP_FROM_EPOCH;
	return 0;
}

void span_text(char *buf, size_t len, double secs)
{
	if (secs < 120)
		snprintf(buf, len, "%.1f s", secs);
	else if (secs < 7200)
		snprintf(buf, len, "%.1f min", secs / 60);
	else if (secs < 172800)
		snprintf(buf, len, "%.1f h", secs / 3600);
	else
		snprintf(buf, len, "%.1f days", secs / 86400);
}

void rate_text(char *buf, size_t len, double hz)
{
	double period = hz > 0 ? 1.0 / hz : 0;
	char span[32];

	if (!(hz > 0))
		snprintf(buf, len, "-");
	else if (hz >= 999.95e6)
		snprintf(buf, len, "%.1f GHz", hz / 1e9);
	else if (hz >= 999.95e3)
		snprintf(buf, len, "%.1f MHz", hz / 1e6);
	else if (hz >= 999.95)
		snprintf(buf, len, "%.1f kHz", hz / 1e3);
	else if (hz >= 0.99995)
		snprintf(buf, len, "%.1f Hz", hz);
	else if (period <= 10)
		snprintf(buf, len, "%.0f mHz", hz * 1e3);
	else if (period < 120)
		snprintf(buf, len, "every %.0f s", period);
	else {
		span_text(span, sizeof span, period);
		snprintf(buf, len, "every %s", span);
	}
}
