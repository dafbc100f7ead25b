#!/usr/bin/env python3
"""Checks META.json, the PGXN distribution metadata, against the fields PGXN requires
(META spec 1.0.0, https://pgxn.org/spec/) and against the extension itself: it parses as
JSON; name, abstract, version, maintainer, license and provides are there; the version is
pg_gsu.control's default_version (and the Makefile's EXTVERSION); the licence is
"postgresql", as LICENSE says; every provided extension names an existing file and the
same version; meta-spec gives version 1.0.0 and its URL.

Usage: python3 test/meta_json.py [META.json [pg_gsu.control]]
(defaults: the files of the repository this script is in). Prints one line per check and
`meta_json: N passed, M failed`; exit status 1 when a check failed.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
META = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "META.json")
CONTROL = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "pg_gsu.control")
SEMVER = re.compile(r"^\d+\.\d+\.\d+$")

passed = 0
failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok      %s" % what)
    else:
        failed += 1
        print("FAILED  %s" % what)


def nonempty_string(v):
    return isinstance(v, str) and v.strip() != ""


def control_default_version(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*default_version\s*=\s*'([^']*)'", line)
            if m:
                return m.group(1)
    return None


def makefile_extversion(path):
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"\s*EXTVERSION\s*[:?]?=\s*(\S+)", line)
                if m:
                    return m.group(1)
    except OSError:
        pass
    return None


def main():
    try:
        with open(META, encoding="utf-8") as f:
            meta = json.load(f)
        check(isinstance(meta, dict), "%s parses as a JSON object" % os.path.basename(META))
    except (OSError, ValueError) as e:
        check(False, "%s parses as JSON (%s)" % (META, e))
        meta = {}
    if not isinstance(meta, dict):
        meta = {}

    control_version = control_default_version(CONTROL)
    check(control_version is not None, "%s has a default_version" % os.path.basename(CONTROL))
    ext_name = os.path.basename(CONTROL)[: -len(".control")] if CONTROL.endswith(".control") else None

    check(meta.get("name") == ext_name and nonempty_string(ext_name),
          "name is the extension's, %r (got %r)" % (ext_name, meta.get("name")))
    check(nonempty_string(meta.get("abstract")), "abstract is a non-empty string")
    version = meta.get("version")
    check(isinstance(version, str) and SEMVER.match(version) is not None,
          "version is a semantic version (got %r)" % (version,))
    check(version == control_version,
          "version %r is pg_gsu.control's default_version %r" % (version, control_version))
    if len(sys.argv) <= 1:  # the repository's own files: the Makefile builds that version too
        ev = makefile_extversion(os.path.join(ROOT, "Makefile"))
        check(ev == control_version, "the Makefile's EXTVERSION %r is the default_version" % (ev,))
    maint = meta.get("maintainer")
    check(nonempty_string(maint) or (isinstance(maint, list) and len(maint) > 0
                                     and all(nonempty_string(m) for m in maint)),
          "maintainer is a string or a non-empty list of strings")
    check(meta.get("license") == "postgresql",
          "license is \"postgresql\" (got %r)" % (meta.get("license"),))

    provides = meta.get("provides")
    check(isinstance(provides, dict) and len(provides) > 0, "provides is a non-empty object")
    if isinstance(provides, dict):
        check(ext_name in provides, "provides names the extension %r" % ext_name)
        for name, p in sorted(provides.items()):
            if not isinstance(p, dict):
                check(False, "provides.%s is an object" % name)
                continue
            f = p.get("file")
            check(nonempty_string(f) and os.path.isfile(os.path.join(ROOT, f)),
                  "provides.%s.file names a file of the distribution (got %r)" % (name, f))
            check(p.get("version") == control_version,
                  "provides.%s.version is the default_version (got %r)" % (name, p.get("version")))
            if "docfile" in p:
                d = p.get("docfile")
                check(nonempty_string(d) and os.path.isfile(os.path.join(ROOT, d)),
                      "provides.%s.docfile names a file (got %r)" % (name, d))

    spec = meta.get("meta-spec")
    check(isinstance(spec, dict) and spec.get("version") == "1.0.0",
          "meta-spec.version is \"1.0.0\" (got %r)" % (spec.get("version") if isinstance(spec, dict) else spec,))
    check(isinstance(spec, dict) and spec.get("url") == "https://pgxn.org/meta/spec.txt",
          "meta-spec.url is the spec's")

    print("meta_json: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
