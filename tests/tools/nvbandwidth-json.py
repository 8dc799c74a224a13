#!/usr/bin/env python3
"""Write nvbandwidth's text output as the JSON nvbandwidth --json prints for the same run:
an "nvbandwidth" object with version and testcases (name, status, bandwidth_description,
bandwidth_matrix of strings, sum), keys sorted and laid out as its JSON writer lays them out
(three-space indent, "key" : value, short arrays on one line). Used by the tests to judge one
run in both forms.

    nvbandwidth-json.py TEXT > JSON
"""
import json
import sys

PAD = "   "


def styled(v, ind=0):
    if isinstance(v, dict):
        body = ",\n".join(PAD * (ind + 1) + json.dumps(k) + " : " + styled(x, ind + 1)
                          for k, x in sorted(v.items()))
        return "{\n" + body + "\n" + PAD * ind + "}"
    if isinstance(v, list):
        flat = [styled(x) for x in v]
        if not any(isinstance(x, (list, dict)) for x in v) and len(", ".join(flat)) + 4 < 74:
            return "[ " + ", ".join(flat) + " ]"
        body = ",\n".join(PAD * (ind + 1) + styled(x, ind + 1) for x in v)
        return "[\n" + body + "\n" + PAD * ind + "]"
    return json.dumps(v)


def main(path):
    root = {"testcases": []}
    cur, matrix = None, None
    for raw in open(path):
        s = raw.strip()
        if s.startswith("nvbandwidth Version:"):
            root["version"] = s.split(":", 1)[1].strip()
            root["git_version"] = root["version"]
        elif s.startswith("Running ") and s.endswith("."):
            cur = {"name": s[len("Running "):-1], "status": "Passed"}
            root["testcases"].append(cur)
            matrix = None
        elif s.startswith("Waiving ") and s.endswith("."):
            name = s[len("Waiving "):-1]
            if not (cur and cur["name"] == name):
                cur = {"name": name}
                root["testcases"].append(cur)
            cur["status"] = "Waived"
        elif s.endswith("(GB/s)") or s.endswith("(ns)"):
            if cur is None or "bandwidth_matrix" in cur:
                # a matrix whose 'Running' line the paste left out: its SUM line names it
                cur = {"status": "Passed"}
                root["testcases"].append(cur)
            cur["bandwidth_description"] = s
            matrix = []
            cur["bandwidth_matrix"] = matrix
        elif matrix is not None and s and s.split()[0].isdigit():
            cells = s.split()
            if cells == [str(i) for i in range(len(cells))]:
                continue  # the column header
            matrix.append(cells[1:])
        elif s.startswith("SUM ") and cur is not None:
            cur.setdefault("name", s.split()[1])
            cur["sum"] = float(s.split()[-1])
            matrix = None
        elif not s:
            matrix = None
    print(styled({"nvbandwidth": root}))


if __name__ == "__main__":
    main(sys.argv[1])
