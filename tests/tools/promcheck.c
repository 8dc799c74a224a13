/* promcheck FILE: check a Prometheus text exposition (the textfile collector's input) the way
 * promtool check metrics does for syntax: HELP/TYPE lines, metric and label names, label values
 * with only \\, \" and \n escapes, numeric values, TYPE before the samples of its metric and
 * given once, no series twice, no control characters. Prints each problem as FILE:LINE: and
 * exits 1 when there is one, 0 when the file is clean. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 4096

static char typed[MAXN][128], seen_sample[MAXN][128], series[MAXN * 4][512];
static int ntyped, nsample, nseries, bad;

static void problem(const char *f, int line, const char *what, const char *s)
{
    printf("%s:%d: %s: %.80s\n", f, line, what, s);
    bad = 1;
}

static int in(char (*v)[128], int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return 1;
    return 0;
}

static const char *name_end(const char *p, int metric)
{
    if (!(isalpha((unsigned char)*p) || *p == '_' || (metric && *p == ':')))
        return NULL;
    while (isalnum((unsigned char)*p) || *p == '_' || (metric && *p == ':'))
        p++;
    return p;
}

static int number(const char *s)
{
    char *end;
    if (!strcmp(s, "NaN") || !strcmp(s, "+Inf") || !strcmp(s, "-Inf"))
        return 1;
    strtod(s, &end);
    return end != s && *end == '\0';
}

int main(int argc, char **argv)
{
    char buf[8192];
    FILE *fp;
    int line = 0;

    if (argc != 2 || !(fp = fopen(argv[1], "r"))) {
        fprintf(stderr, "usage: promcheck FILE\n");
        return 2;
    }
    while (fgets(buf, sizeof(buf), fp)) {
        char name[128], key[512];
        const char *p = buf, *e;
        size_t len = strlen(buf);
        line++;
        if (len && buf[len - 1] == '\n')
            buf[--len] = '\0';
        else
            problem(argv[1], line, "line does not end with a newline", buf);
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)buf[i] < 0x20 && buf[i] != '\t')
                problem(argv[1], line, "control character", buf);
        if (!len)
            continue;
        if (buf[0] == '#') {
            char kind[16], type[32];
            if (sscanf(buf, "# %15s %127s", kind, name) == 2 && !strcmp(kind, "TYPE")) {
                if (sscanf(buf, "# TYPE %*s %31s", type) != 1 ||
                    (strcmp(type, "gauge") && strcmp(type, "counter") && strcmp(type, "untyped") &&
                     strcmp(type, "histogram") && strcmp(type, "summary")))
                    problem(argv[1], line, "bad TYPE", buf);
                if (in(typed, ntyped, name))
                    problem(argv[1], line, "second TYPE for the metric", name);
                if (in(seen_sample, nsample, name))
                    problem(argv[1], line, "TYPE after samples of the metric", name);
                if (ntyped < MAXN)
                    snprintf(typed[ntyped++], 128, "%s", name);
            } else if (sscanf(buf, "# %15s %127s", kind, name) == 2 && !strcmp(kind, "HELP")) {
                if (!name_end(name, 1) || *name_end(name, 1))
                    problem(argv[1], line, "bad metric name in HELP", name);
            }
            continue;
        }
        if (!(e = name_end(p, 1))) {
            problem(argv[1], line, "bad metric name", buf);
            continue;
        }
        snprintf(name, sizeof(name), "%.*s", (int)(e - p), p);
        snprintf(key, sizeof(key), "%s", name);
        p = e;
        if (*p == '{') {
            char labels[64][128];
            int nl = 0;
            p++;
            while (*p != '}') {
                const char *ln = p, *le = name_end(p, 0);
                if (!le || le[0] != '=' || le[1] != '"') {
                    problem(argv[1], line, "bad label", buf);
                    goto next;
                }
                for (int i = 0; i < nl; i++)
                    if ((size_t)(le - ln) == strlen(labels[i]) &&
                        !strncmp(labels[i], ln, (size_t)(le - ln)))
                        problem(argv[1], line, "label given twice", buf);
                if (nl < 64)
                    snprintf(labels[nl++], 128, "%.*s", (int)(le - ln), ln);
                p = le + 2;
                while (*p && *p != '"') {
                    if (*p == '\\') {
                        if (p[1] != '\\' && p[1] != '"' && p[1] != 'n') {
                            problem(argv[1], line, "bad escape in a label value", buf);
                            goto next;
                        }
                        p++;
                    }
                    p++;
                }
                if (*p != '"') {
                    problem(argv[1], line, "unterminated label value", buf);
                    goto next;
                }
                p++;
                if (*p == ',')
                    p++;
                else if (*p != '}') {
                    problem(argv[1], line, "expected ',' or '}'", buf);
                    goto next;
                }
            }
            snprintf(key, sizeof(key), "%.*s", (int)(p + 1 - buf), buf);
            p++;
        }
        if (*p != ' ') {
            problem(argv[1], line, "no value", buf);
            continue;
        }
        {
            char v[64] = "", ts[64] = "", extra[8] = "";
            int k = sscanf(p, " %63s %63s %7s", v, ts, extra);
            if (k < 1 || !number(v) || (k >= 2 && !number(ts)) || k > 2)
                problem(argv[1], line, "bad value", buf);
        }
        if (!in(typed, ntyped, name))
            problem(argv[1], line, "sample without a TYPE", name);
        for (int i = 0; i < nseries; i++)
            if (!strcmp(series[i], key))
                problem(argv[1], line, "series given twice", key);
        if (nseries < MAXN * 4)
            snprintf(series[nseries++], 512, "%s", key);
        if (!in(seen_sample, nsample, name) && nsample < MAXN)
            snprintf(seen_sample[nsample++], 128, "%s", name);
    next:;
    }
    fclose(fp);
    return bad;
}
