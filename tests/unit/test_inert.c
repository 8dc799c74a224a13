#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "tests/tap/tap.h"

/* UTF-8 at each edge of what is well formed (RFC 3629's table) and what is a C1 control: each
 * sequence kept whole, or its first byte escaped */
static const struct {
    const char *in;
    int kept;
    const char *what;
} edges[] = {
    { "\xc2\x9f", 0, "U+009F, the last C1 control" },
    { "\xc2\xa0", 1, "U+00A0, the first character after the C1 controls" },
    { "\xc2\xbf", 1, "C2 BF: the second byte's highest" },
    { "\xc2\xc0", 0, "C2 C0: a second byte past BF" },
    { "\xc1\xbf", 0, "C1 BF: an overlong two-byte form" },
    { "\xdf\xbf", 1, "U+07FF, the last two-byte character" },
    { "\xdf\x7f", 0, "DF 7F: a second byte under 80" },
    { "\xe0\xa0\x80", 1, "U+0800, the first three-byte character" },
    { "\xe0\x9f\xbf", 0, "E0 9F BF: an overlong three-byte form" },
    { "\xe1\x80\x80", 1, "U+1000: E1 with the lowest continuations" },
    { "\xe1\xbf\xbf", 1, "E1 BF BF: the highest continuations" },
    { "\xe1\x80\x7f", 0, "E1 80 7F: a third byte under 80" },
    { "\xe1\x80\xc0", 0, "E1 80 C0: a third byte past BF" },
    { "\xed\x9f\xbf", 1, "U+D7FF, the last before the surrogates" },
    { "\xed\xa0\x80", 0, "U+D800, a surrogate" },
    { "\xee\x80\x80", 1, "U+E000, the first after the surrogates (EE)" },
    { "\xef\xbf\xbf", 1, "U+FFFF, the last three-byte character" },
    { "\xf0\x90\x80\x80", 1, "U+10000, the first four-byte character" },
    { "\xf0\x8f\xbf\xbf", 0, "F0 8F BF BF: an overlong four-byte form" },
    { "\xf1\x80\x80\x80", 1, "U+40000: F1 with the lowest continuations" },
    { "\xf3\xbf\xbf\xbf", 1, "U+FFFFF: F3 with the highest" },
    { "\xf4\x8f\xbf\xbf", 1, "U+10FFFF, the last character" },
    { "\xf4\x90\x80\x80", 0, "F4 90: past U+10FFFF" },
    { "\xf5\x80\x80\x80", 0, "F5: no character starts so" },
    { "\xf1\x80\x80\xc0", 0, "F1 80 80 C0: a fourth byte past BF" },
};

/* ry_inert: what a terminal would act on comes out as \xHH, the rest as it was */
int main(void)
{
    char buf[256], small[8];
    ry_error_t err;
    char canary[2] = { 'x', 'y' };

    for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
        char want[32];
        if (edges[i].kept)
            snprintf(want, sizeof(want), "%s", edges[i].in);
        else
            snprintf(want, sizeof(want), "\\x%02x", (unsigned char)edges[i].in[0]);
        ry_inert(edges[i].in, buf, sizeof(buf));
        ok(strncmp(buf, want, strlen(want)) == 0, "%s: %s", edges[i].what,
           edges[i].kept ? "kept" : "escaped");
    }
    {
        struct {
            char b[8], after;
        } edge = { .after = 'z' };
        is_str(ry_inert("abcd\033", edge.b, sizeof(edge.b)), "abcd",
               "an escape that would end at the buffer's last byte is left out whole");
        ok(edge.after == 'z', "...and nothing is written past the buffer");
    }
    is_str(ry_inert("abc", canary, 0), "", "a buffer of no bytes: empty, nothing written");
    ok(canary[0] == 'x' && canary[1] == 'y', "...the buffer untouched");

    is_str(ry_inert("plain text, 100%", buf, sizeof(buf)), "plain text, 100%", "plain text as is");
    is_str(ry_inert("\033[2J\007", buf, sizeof(buf)), "\\x1b[2J\\x07", "ESC and BEL escaped");
    is_str(ry_inert("a\tb\nc\x7f", buf, sizeof(buf)), "a\\x09b\\x0ac\\x7f", "tab, newline, DEL");
    is_str(ry_inert("gr\xc3\xbc\xc3\x9f \xe2\x9c\x93 \xf0\x9f\x9a\x82", buf, sizeof(buf)),
           "gr\xc3\xbc\xc3\x9f \xe2\x9c\x93 \xf0\x9f\x9a\x82", "well-formed UTF-8 kept");
    is_str(ry_inert("\x9bH", buf, sizeof(buf)), "\\x9bH", "an 8-bit CSI escaped");
    is_str(ry_inert("\xc2\x9bJ", buf, sizeof(buf)), "\\xc2\\x9bJ", "a C1 control in UTF-8 escaped");
    is_str(ry_inert("\xc2\xa0", buf, sizeof(buf)), "\xc2\xa0", "U+00A0 is no control: kept");
    is_str(ry_inert("\xff\xfe", buf, sizeof(buf)), "\\xff\\xfe", "bytes that are no UTF-8");
    is_str(ry_inert("\xe2\x9c", buf, sizeof(buf)), "\\xe2\\x9c", "a cut sequence");
    is_str(ry_inert("\xc0\xaf", buf, sizeof(buf)), "\\xc0\\xaf", "an overlong encoding");
    is_str(ry_inert("\xed\xa0\x80", buf, sizeof(buf)), "\\xed\\xa0\\x80", "a surrogate");
    is_str(ry_inert("\xf4\x90\x80\x80", buf, sizeof(buf)), "\\xf4\\x90\\x80\\x80", "past U+10FFFF");
    is_str(ry_inert(NULL, buf, sizeof(buf)), "", "NULL is empty");
    is_str(ry_inert("abcdefghij", small, sizeof(small)), "abcdefg", "cut to the buffer");
    is_str(ry_inert("ab\033cd", small, sizeof(small)), "ab\\x1bc", "an escape fits whole");
    is_str(ry_inert("abcde\033", small, sizeof(small)), "abcde", "...nor left out half-written");
    is_str(ry_inert("\\x1b", buf, sizeof(buf)), "\\x1b", "escaped text passes again unchanged");
    ry_errorf(&err, "%s:%d: not ibstat output: '%s'", "f.txt", 1, "\033]0;title\007");
    is_str(err.text, "f.txt:1: not ibstat output: '\\x1b]0;title\\x07'",
           "ry_errorf makes it inert");
    ry_error_prefix(&err, "host %s", "n\0331");
    ok(strncmp(err.text, "host n\\x1b1: f.txt:1:", 21) == 0, "ry_error_prefix too: %s", err.text);
    return done_testing();
}
