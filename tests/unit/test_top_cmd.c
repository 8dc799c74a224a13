/* railyard top's active test: the names substituted into --test-cmd come from the fabric and
 * from other machines, so the command given to sh -c refers to them through the environment,
 * quoted for where each {name} stands. Every template shape is run by /bin/sh with hostile
 * values: the command prints each value as it is, and nothing in a value runs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap/tap.h"
#include "top/test.h"

static char inj[256];

/* run tmpl's command with the node set to value; its output (last newline cut) in out */
static void run(const char *tmpl, const char *value, char *out, size_t len)
{
    char *cmd = top_test_command(tmpl);
    FILE *p;
    size_t n;

    setenv(TOP_TEST_ENV_NODE, value, 1);
    setenv(TOP_TEST_ENV_PEER, "peer-1", 1);
    setenv(TOP_TEST_ENV_RAIL, "3", 1);
    setenv(TOP_TEST_ENV_PAIRS, "/tmp/pairs file", 1);
    out[0] = '\0';
    if ((p = popen(cmd, "r"))) {
        n = fread(out, 1, len - 1, p);
        out[n] = '\0';
        pclose(p);
    }
    if ((n = strlen(out)) > 0 && out[n - 1] == '\n')
        out[n - 1] = '\0';
    free(cmd);
}

int main(void)
{
    char hostile[12][300], out[1024], want[1024];
    const char *tmpls[][2] = {
        { "printf '%s\\n' {node}", "%s" },
        { "printf '%s\\n' \"{node}\"", "%s" },
        { "printf '%s\\n' '{node}'", "%s" },
        { "printf '%s\\n' x{node}y", "x%sy" },
        { "printf '%s\\n' \"it's {node}\"", "it's %s" },
        { "printf '%s\\n' 'say \"{node}\"'", "say \"%s\"" },
    };
    int nh = 0;

    snprintf(inj, sizeof(inj), "%s/railyard-test-top-cmd.%ld",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
    unlink(inj);
    snprintf(hostile[nh++], 300, "node07");
    snprintf(hostile[nh++], 300, "a;touch %s", inj);
    snprintf(hostile[nh++], 300, "$(touch %s)", inj);
    snprintf(hostile[nh++], 300, "`touch %s`", inj);
    snprintf(hostile[nh++], 300, "' ; touch %s ; '", inj);
    snprintf(hostile[nh++], 300, "\" ; touch %s ; \"", inj);
    snprintf(hostile[nh++], 300, "\\\\' \\\" \\");
    snprintf(hostile[nh++], 300, "two  spaces and a * and ${HOME}");
    snprintf(hostile[nh++], 300, "a|touch %s&&b", inj);
    for (size_t t = 0; t < sizeof(tmpls) / sizeof(tmpls[0]); t++)
        for (int h = 0; h < nh; h++) {
            run(tmpls[t][0], hostile[h], out, sizeof(out));
            snprintf(want, sizeof(want), tmpls[t][1], hostile[h]);
            is_str(out, want, "template %s, node <%s>: printed as it is", tmpls[t][0], hostile[h]);
        }
    ok(access(inj, F_OK) != 0, "no value ran as a command (%s not created)", inj);
    unlink(inj);

    /* the other names, an escaped brace kept, and a template without names unchanged */
    run("printf '%s %s %s\\n' {peer} \"{rail}\" '{pairs}'", "n", out, sizeof(out));
    is_str(out, "peer-1 3 /tmp/pairs file", "{peer}, {rail} and {pairs} (a path with a blank)");
    run("printf '%s\\n' \\{node}", "n", out, sizeof(out));
    is_str(out, "{node}", "\\{node} outside quotes: kept as the text {node}");
    char *cmd = top_test_command("echo plain 'text'");
    is_str(cmd, "echo plain 'text'", "a template without names: the command is the template");
    free(cmd);
    cmd = top_test_command("x {node}");
    is_str(cmd, "x \"${" TOP_TEST_ENV_NODE "}\"",
           "{node} outside quotes: \"${" TOP_TEST_ENV_NODE "}\"");
    free(cmd);
    return done_testing();
}
