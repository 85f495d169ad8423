/* Client names: kept as sent, shown safely, compared for look-alikes. */
#include "oauth-name.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xmalloc.h"

#define OAUTH_NAME_REPLACEMENT	0xfffd

/* A range of code points, inclusive. */
struct oauth_name_range {
	uint32_t	first, last;
};

/*
 * The control and format characters (Unicode 15: Cc and Cf) and the line
 * and paragraph separators (Zl, Zp): none of them is shown as itself.
 */
static const struct oauth_name_range oauth_name_hidden[] = {
	{ 0x0000, 0x001f }, { 0x007f, 0x009f }, { 0x00ad, 0x00ad },
	{ 0x0600, 0x0605 }, { 0x061c, 0x061c }, { 0x06dd, 0x06dd },
	{ 0x070f, 0x070f }, { 0x0890, 0x0891 }, { 0x08e2, 0x08e2 },
	{ 0x180e, 0x180e }, { 0x200b, 0x200f }, { 0x2028, 0x202e },
	{ 0x2060, 0x2064 }, { 0x2066, 0x206f }, { 0xfeff, 0xfeff },
	{ 0xfff9, 0xfffb }, { 0x110bd, 0x110bd }, { 0x110cd, 0x110cd },
	{ 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a },
	{ 0xe0001, 0xe0001 }, { 0xe0020, 0xe007f },
};

/* The space characters (Zs) besides U+0020, ignored when comparing. */
static const struct oauth_name_range oauth_name_spaces[] = {
	{ 0x00a0, 0x00a0 }, { 0x1680, 0x1680 }, { 0x2000, 0x200a },
	{ 0x202f, 0x202f }, { 0x205f, 0x205f }, { 0x3000, 0x3000 },
};

/* Says whether a code point is in one of n ranges. */
static bool
oauth_name_in(uint32_t c, const struct oauth_name_range *ranges, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (c >= ranges[i].first && c <= ranges[i].last)
			return true;
	}
	return false;
}

/* Says whether a code point is never shown as itself. */
static bool
oauth_name_is_hidden(uint32_t c)
{
	return oauth_name_in(c, oauth_name_hidden, sizeof oauth_name_hidden /
	    sizeof *oauth_name_hidden);
}

/*
 * Reads the UTF-8 character at *p and moves past it; a byte that starts
 * no valid character reads as U+FFFD, one byte long.
 */
static uint32_t
oauth_name_next(const char **p)
{
	const unsigned char	*s = (const unsigned char *)*p;
	uint32_t		 c, min;
	size_t			 len, i;

	if (s[0] < 0x80) {
		*p += 1;
		return s[0];
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		*p += 1;
		return OAUTH_NAME_REPLACEMENT;
	}
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*p += 1;
			return OAUTH_NAME_REPLACEMENT;
		}
		c = c << 6 | (s[i] & 0x3f);
	}
	*p += len;
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return OAUTH_NAME_REPLACEMENT;
	return c;
}

/* Writes a code point as UTF-8 at out; returns the bytes written. */
static size_t
oauth_name_put(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* Returns a name as the store keeps it: as sent, at most 400 characters. */
char *
oauth_name_stored(const char *name)
{
	const char	*p = name;
	size_t		 chars;

	for (chars = 0; *p != '\0' && chars < OAUTH_NAME_STORED_MAX; chars++)
		(void)oauth_name_next(&p);
	return xstrndup(name, (size_t)(p - name));
}

/*
 * Returns a name fit to show anywhere: each control or format character
 * replaced by U+FFFD, at most OAUTH_NAME_SHOWN_MAX characters.
 */
char *
oauth_name_shown(const char *name)
{
	char		*shown = xmalloc(4 * OAUTH_NAME_SHOWN_MAX + 1);
	size_t		 len = 0, chars;
	uint32_t	 c;

	for (chars = 0; *name != '\0' && chars < OAUTH_NAME_SHOWN_MAX;
	    chars++) {
		c = oauth_name_next(&name);
		len += oauth_name_put(shown + len, oauth_name_is_hidden(c) ?
		    OAUTH_NAME_REPLACEMENT : c);
	}
	shown[len] = '\0';
	return shown;
}

/*
 * Returns the next character of a name that counts when comparing names,
 * folded (0 at the end): spaces and hidden characters skipped, full-width
 * forms as ASCII, ASCII letters in lower case, 0 as o and 1, i and | as l.
 */
static uint32_t
oauth_name_next_folded(const char **p)
{
	uint32_t	c;

	while (**p != '\0') {
		c = oauth_name_next(p);
		if (c == ' ' || oauth_name_is_hidden(c) || oauth_name_in(c,
		    oauth_name_spaces, sizeof oauth_name_spaces /
		    sizeof *oauth_name_spaces))
			continue;
		if (c >= 0xff01 && c <= 0xff5e)	/* full-width ASCII */
			c -= 0xff01 - 0x21;
		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (c == '0')
			return 'o';
		if (c == '1' || c == 'i' || c == '|')
			return 'l';
		return c;
	}
	return 0;
}

/*
 * Says whether two names look alike to a person: the same once folded
 * (oauth_name_next_folded), and not empty.
 */
bool
oauth_name_resembles(const char *a, const char *b)
{
	uint32_t	ca, cb;
	bool		empty = true;

	do {
		ca = oauth_name_next_folded(&a);
		cb = oauth_name_next_folded(&b);
		if (ca != cb)
			return false;
		if (ca != 0)
			empty = false;
	} while (ca != 0);
	return !empty;
}
