#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/file.h"
#include "reports/eventlog.h"
#include "tests/tap/tap.h"

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    static char buf[1 << 20];
    size_t n;

    if (!fp)
        return NULL;
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

/* lines "event-0001" (10 bytes) ... numbered from..to */
static void events(const char *path, int from, int to, const struct ry_eventlog_limits *l)
{
    ry_error_t err;

    for (int i = from; i <= to; i++) {
        char line[16];
        snprintf(line, sizeof(line), "event-%04d", i);
        ry_eventlog_append(path, line, l, &err);
    }
}

static const char *text(const char *path)
{
    const char *s = slurp(path);
    return s ? s : "(none)";
}

int main(void)
{
    char dir[] = "/tmp/railyard-eventlog.XXXXXX", path[256], p1[300], p2[300], p3[300];
    struct ry_eventlog_limits l = { 0, 0 };
    ry_error_t err;

    if (!mkdtemp(dir))
        skip_all("cannot make a scratch folder");
    snprintf(path, sizeof(path), "%s/events.jsonl", dir);
    snprintf(p1, sizeof(p1), "%s.1", path);
    snprintf(p2, sizeof(p2), "%s.2", path);
    snprintf(p3, sizeof(p3), "%s.3", path);

    /* lines appended whole */
    ok(ry_eventlog_append(path, "{\"a\":1}", &l, &err) == 0 &&
           ry_eventlog_append(path, "{\"b\":2}", &l, &err) == 0,
       "two lines appended");
    is_str(text(path), "{\"a\":1}\n{\"b\":2}\n", "... each whole, in order");
    ok(ry_eventlog_append(path, "{\"c\":\n3}", &l, &err) < 0 && strstr(err.text, "newline"),
       "a line holding a newline: refused (%s)", err.text);
    is_str(text(path), "{\"a\":1}\n{\"b\":2}\n", "... and the log unchanged");

    /* rotation: at most 40 bytes a log, two rotated logs kept; lines of 10 bytes and their
     * newlines: three fit (33 bytes), the fourth begins a new log */
    unlink(path);
    l.max_bytes = 40;
    l.keep = 2;
    events(path, 1, 3, &l);
    ok(access(p1, F_OK) != 0, "33 bytes: not rotated yet");
    ry_eventlog_append(path, "event-0004", &l, &err);
    is_str(text(p1), "event-0001\nevent-0002\nevent-0003\n",
           "the fourth line: the log rotated whole to .1");
    is_str(text(path), "event-0004\n", "... and the fourth begins the new log");
    events(path, 5, 12, &l);
    is_str(text(path), "event-0010\nevent-0011\nevent-0012\n",
           "twelve lines: the newest three in the log");
    is_str(text(p1), "event-0007\nevent-0008\nevent-0009\n", "... the three before in .1");
    is_str(text(p2), "event-0004\nevent-0005\nevent-0006\n", "... the three before those in .2");
    ok(access(p3, F_OK) != 0, "... and no .3: the oldest dropped (keep 2)");
    /* keep 0: the log starts again */
    l.keep = 0;
    unlink(p1);
    unlink(p2);
    ry_eventlog_append(path, "event-0013", &l, &err);
    ok(!strcmp(text(path), "event-0013\n") && access(p1, F_OK) != 0,
       "keep 0, full: the log starts again, nothing rotated");
    ry_eventlog_append(path, "event-0014", &l, &err);
    is_str(text(path), "event-0013\nevent-0014\n", "... and grows again while there is room");

    /* the edge: four lines of 11 bytes fill a log of 44 exactly; the fifth rotates */
    unlink(path);
    l.max_bytes = 44;
    l.keep = 1;
    events(path, 1, 4, &l);
    ok(access(p1, F_OK) != 0, "44 bytes in a log of 44: not rotated");
    events(path, 5, 5, &l);
    ok(!strcmp(text(path), "event-0005\n") && access(p1, F_OK) == 0,
       "the fifth line, past 44: rotated");

    /* a full disk: the file may grow by 5 bytes more; a line of 20 fails, and the log is as it
     * was (the 5 bytes that went in are cut back) */
    l.max_bytes = 0;
    unlink(path);
    ry_eventlog_append(path, "first-line", &l, &err);
    {
        struct rlimit old, lim;
        struct stat st;
        int rc;
        signal(SIGXFSZ, SIG_IGN);
        getrlimit(RLIMIT_FSIZE, &old);
        stat(path, &st);
        lim = old;
        lim.rlim_cur = (rlim_t)st.st_size + 5;
        setrlimit(RLIMIT_FSIZE, &lim);
        rc = ry_eventlog_append(path, "a line of 20 bytes!", &l, &err);
        setrlimit(RLIMIT_FSIZE, &old);
        ok(rc < 0 && strstr(err.text, path) && strstr(err.text, "11 bytes before it are kept"),
           "a full disk: the event not written, said with the file (%s)", err.text);
        is_str(text(path), "first-line\n", "... and the log as it was: no half line");
        ok(ry_eventlog_append(path, "after-full", &l, &err) == 0 &&
               !strcmp(text(path), "first-line\nafter-full\n"),
           "... and once there is room again, the next line follows the last whole one");
    }
    {
        char nodir[300];
        snprintf(nodir, sizeof(nodir), "%s/no/such/events.jsonl", dir);
        ok(ry_eventlog_append(nodir, "x", &l, &err) < 0 && strstr(err.text, nodir),
           "a log in a folder that is not there: an error naming it (%s)", err.text);
    }

    /* SIGTERM while lines are written: every line in the log is whole */
    unlink(path);
    {
        pid_t pid = fork();
        if (pid == 0) {
            char line[256];
            memset(line, 'x', 200);
            for (int i = 0; i < 100000; i++) {
                snprintf(line + 200, sizeof(line) - 200, "%06d", i);
                if (ry_eventlog_append(path, line, &l, &err) < 0)
                    _exit(3);
            }
            _exit(0);
        }
        {
            struct timespec nap = { 0, 150000000 };
            int status = 0, bad = 0, lines = 0;
            const char *s, *e;
            nanosleep(&nap, NULL);
            kill(pid, SIGTERM);
            waitpid(pid, &status, 0);
            ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "the writer ended by SIGTERM");
            s = slurp(path);
            for (; s && *s; s = e + 1, lines++) {
                e = strchr(s, '\n');
                if (!e || e - s != 206 || strspn(s, "x") != 200) {
                    bad++;
                    break;
                }
            }
            ok(lines > 0 && !bad, "... and each of its %d lines is whole", lines);
        }
    }
    unlink(path);
    rmdir(dir);
    return done_testing();
}
