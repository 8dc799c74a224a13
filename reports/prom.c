#include "config.h"

#include "reports/prom.h"

void ry_prom_label(FILE *fp, const char *name, const char *v, int first)
{
    fprintf(fp, "%s%s=\"", first ? "" : ",", name);
    for (; v && *v; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == '\\' || c == '"')
            fprintf(fp, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", fp);
        else if (c >= 0x20 && c != 0x7f)
            fputc(c, fp);
    }
    fputc('"', fp);
}

void ry_prom_help(FILE *fp, const char *name, const char *type, const char *text)
{
    fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}
