#include "config.h"

#include <string.h>

#include "common/error.h"
#include "tests/tap/tap.h"

/* ry_inert: what a terminal would act on comes out as \xHH, the rest as it was */
int main(void)
{
    char buf[256], small[8];
    ry_error_t err;

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
