#!/bin/bash
# Runs every ```sql block of README.md and docs/*.md, so that the documentation
# cannot drift from the code.
#
#   PGHOST=... PGPORT=... PGUSER=... bash test/docs_examples.sh
#
# It uses the running server given by PGHOST/PGPORT/PGUSER (pg_gsu installed),
# works in a database of its own, gsu_docs_test, made anew for every page and
# dropped at the end, and touches no other database (it connects to the
# database postgres only to create and drop gsu_docs_test).
#
# Per page, the blocks run in file order in one session (so that a temporary
# view of one block is seen by the next) after CREATE EXTENSION pg_gsu (unless
# a block of the page creates it), with
# ON_ERROR_STOP. If a block fails, the rest of the page goes on in a new
# session. Markers in the markdown, on the line just before a fence:
#   <!-- not run: reason -->         the block is not run (a syntax fragment)
#   <!-- output of the block above --> the fenced block that follows is compared
#                                    with what the previous sql block printed
#                                    (unaligned, tuples only); JSON is compared
#                                    as JSON with "seconds" and a model history's
#                                    elapsed times masked and numbers to 1e-6
#                                    relative or absolute
# and anywhere in a page:
#   <!-- needs: wdbc -->             load the demo's table wdbc first (the
#                                    loading part of demo/breast_cancer.sql)
#
# Prints one line per block, `ok page:line` or `FAILED page:line`, and ends
# with `docs_examples: N passed, M failed`; exits 1 on any failure.
#
# ```python and ```js blocks run after the page's sql blocks, each as a program of its own
# against the page's database (PGDATABASE set; clients/python on PYTHONPATH, npm's pg on
# NODE_PATH, GSU_CLIENTS naming clients/), and must exit 0.
#
# The index check: every function, aggregate and type of the schema gsu, except
# support functions (*_in/_out/_recv/_send, transition/combine/serial/final
# functions, *_support, casts' *_to_jsonb/_from_jsonb), must be named in
# README.md's index (a row with `gsu.name` in its first column). Last, every
# relative link of these pages must lead to an existing file and heading.
set -u
cd "$(dirname "$0")/.."
PSQL=${PSQL:-$(command -v psql || echo /usr/lib/postgresql/15/bin/psql)}
DB=gsu_docs_test
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0

# --- extraction -------------------------------------------------------------
python3 - "$WORK" README.md docs/*.md <<'PY' || exit 1
import sys, os, json
work, files = sys.argv[1], sys.argv[2:]
pages = []
for f in files:
    lines = open(f, encoding='utf-8').read().split('\n')
    blocks = []            # {line, sql, expect}
    extras = []            # python and js blocks: {line, lang, code}
    needs = []
    i = 0
    prev = ''
    while i < len(lines):
        l = lines[i]
        if l.startswith('<!-- needs:'):
            needs += [w.strip() for w in l[len('<!-- needs:'):].split('-->')[0].split(',')]
        if l.startswith('```'):
            lang = l[3:].strip()
            j = i + 1
            while j < len(lines) and not lines[j].startswith('```'):
                j += 1
            body = '\n'.join(lines[i+1:j])
            marker = prev.strip()
            if marker.startswith('<!-- output of the block above'):
                if not blocks:
                    sys.exit('%s:%d: output marker without an earlier sql block' % (f, i + 1))
                blocks[-1]['expect'] = body
                blocks[-1]['expect_line'] = i + 1
            elif lang == 'sql' and not marker.startswith('<!-- not run'):
                blocks.append({'line': i + 1, 'sql': body, 'expect': None})
            elif lang in ('python', 'js') and not marker.startswith('<!-- not run'):
                extras.append({'line': i + 1, 'lang': lang, 'code': body})
            i = j + 1
            prev = ''
            continue
        prev = l
        i += 1
    if blocks or extras:
        pages.append({'file': f, 'needs': needs, 'blocks': blocks, 'extras': extras})
json.dump(pages, open(os.path.join(work, 'pages.json'), 'w'))
for p, page in enumerate(pages):
    with open(os.path.join(work, 'page%d.list' % p), 'w') as out:
        ext = 'own' if any('CREATE EXTENSION pg_gsu' in b['sql'] for b in page['blocks']) else 'create'
        out.write('%s %s %s\n' % (page['file'], ','.join(page['needs']) or '-', ext))
        for b, blk in enumerate(page['blocks']):
            open(os.path.join(work, 'p%d_b%d.sql' % (p, b)), 'w').write(blk['sql'] + '\n')
            if blk['expect'] is not None:
                open(os.path.join(work, 'p%d_b%d.expect' % (p, b)), 'w').write(blk['expect'] + '\n')
            out.write('%d %d\n' % (b, blk['line']))
    with open(os.path.join(work, 'page%d.extra' % p), 'w') as out:
        for x, blk in enumerate(page['extras']):
            name = 'p%d_x%d.%s' % (p, x, 'py' if blk['lang'] == 'python' else 'js')
            open(os.path.join(work, name), 'w').write(blk['code'] + '\n')
            out.write('%s %d %s\n' % (name, blk['line'], blk['lang']))
PY

# the loading part of the demo: from the raw table to ANALYZE wdbc
sed -n '/^CREATE TEMP TABLE wdbc_raw/,/^ANALYZE wdbc;/p' demo/breast_cancer.sql > "$WORK/wdbc.sql"

compare() {   # expected-file actual-file
    python3 - "$1" "$2" <<'PY'
import sys, json, math
exp = open(sys.argv[1], encoding='utf-8').read().strip()
act = open(sys.argv[2], encoding='utf-8').read().strip()
def mask(v):
    if isinstance(v, dict):
        # the times of a run: a model's seconds, its history's elapsed milliseconds
        return {k: ('<masked>' if k == 'seconds' else
                    [[e[:-1] + ['<masked>'] for e in vec] for vec in x] if k == 'history' and isinstance(x, list)
                    else mask(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [mask(x) for x in v]
    return v
def same(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) \
       and not isinstance(a, bool) and not isinstance(b, bool):
        return a == b or math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
    return a == b
try:
    e, a = json.loads(exp), json.loads(act)
    ok = same(mask(e), mask(a))
    if not ok:
        print('  expected (JSON):', json.dumps(mask(e)))
        print('  printed  (JSON):', json.dumps(mask(a)))
except ValueError:
    norm = lambda s: '\n'.join(l.rstrip() for l in s.split('\n'))
    ok = norm(exp) == norm(act)
    if not ok:
        print('  expected:\n' + exp + '\n  printed:\n' + act)
sys.exit(0 if ok else 1)
PY
}

admin() { "$PSQL" -X -q -v ON_ERROR_STOP=1 -d postgres -c "SET client_min_messages = warning" -c "$1" >/dev/null; }
start=$SECONDS

for list in "$WORK"/page*.list; do
    read -r page needs ext < "$list"
    p=$(basename "$list" .list); p=${p#page}
    mapfile -t entries < <(tail -n +2 "$list")
    admin "DROP DATABASE IF EXISTS $DB" || exit 1
    admin "CREATE DATABASE $DB" || exit 1
    prep="$WORK/prep$p.sql"
    { echo 'SET client_min_messages = warning;'
      [ "$ext" = own ] || echo 'CREATE EXTENSION pg_gsu;'
      case ",$needs," in *,wdbc,*) cat "$WORK/wdbc.sql";; esac
    } > "$prep"
    if ! "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$DB" -f "$prep" >"$WORK/prep.out" 2>&1; then
        echo "FAILED $page: preparing the page's database"; cat "$WORK/prep.out"
        failed=$((failed + ${#entries[@]})); continue
    fi
    k=0
    while [ "$k" -lt "${#entries[@]}" ]; do
        # one session for blocks k.. until the first failure
        script="$WORK/run$p.sql"
        { echo '\set ON_ERROR_STOP 1'
          echo 'SET client_min_messages = warning;'
          for ((i = k; i < ${#entries[@]}; i++)); do
              read -r b line <<<"${entries[$i]}"
              echo "\\o $WORK/p${p}_b$b.out"
              echo "\\echo @@BLOCK $i"
              cat "$WORK/p${p}_b$b.sql"
              echo ';'
              echo '\o'
              echo "\\echo @@DONE $i"
          done
        } > "$script"
        "$PSQL" -X -q -A -t -d "$DB" -f "$script" >"$WORK/session.out" 2>"$WORK/session.err"
        last=$(grep -o '^@@DONE [0-9]*' "$WORK/session.out" | tail -1 | cut -d' ' -f2)
        last=${last:-$((k - 1))}
        for ((i = k; i <= last; i++)); do
            read -r b line <<<"${entries[$i]}"
            if [ -f "$WORK/p${p}_b$b.expect" ]; then
                grep -v '^@@BLOCK' "$WORK/p${p}_b$b.out" > "$WORK/actual"
                if compare "$WORK/p${p}_b$b.expect" "$WORK/actual"; then
                    echo "ok $page:$line (output compared)"; passed=$((passed + 1))
                else
                    echo "FAILED $page:$line (its output differs from the one shown)"; failed=$((failed + 1))
                fi
            else
                echo "ok $page:$line"; passed=$((passed + 1))
            fi
        done
        k=$((last + 1))
        if [ "$k" -lt "${#entries[@]}" ]; then
            read -r b line <<<"${entries[$k]}"
            echo "FAILED $page:$line"
            sed 's/^/  /' "$WORK/session.err" | grep -v '^  psql:.*NOTICE' | tail -5
            failed=$((failed + 1))
            k=$((k + 1))
        fi
    done
    # python and js blocks, after the page's sql blocks, each a program of its own
    # against the page's database (clients/python and npm's pg on their paths)
    while read -r name line lang; do
        [ -n "$name" ] || continue
        if [ "$lang" = python ]; then
            run=(env PGDATABASE="$DB" PYTHONPATH=clients/python PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 "$WORK/$name")
        else
            if [ ! -d "$WORK/npm/node_modules/pg" ]; then
                mkdir -p "$WORK/npm"
                (cd "$WORK/npm" && npm install --no-audit --no-fund --silent pg@8 >npm.log 2>&1) || cat "$WORK/npm/npm.log"
            fi
            run=(env PGDATABASE="$DB" NODE_PATH="$WORK/npm/node_modules" GSU_CLIENTS="$PWD/clients" node "$WORK/$name")
        fi
        if "${run[@]}" >"$WORK/extra.out" 2>&1; then
            echo "ok $page:$line ($lang)"; passed=$((passed + 1))
        else
            echo "FAILED $page:$line ($lang)"; sed 's/^/  /' "$WORK/extra.out" | tail -8
            failed=$((failed + 1))
        fi
    done < "$WORK/page$p.extra"
done
admin "DROP DATABASE IF EXISTS $DB"

# --- the README's index names every SQL object --------------------------------
admin "CREATE DATABASE $DB" || exit 1
"$PSQL" -X -q -v ON_ERROR_STOP=1 -A -t -d "$DB" >"$WORK/objects" 2>&1 <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION pg_gsu;
SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'gsu'
  AND p.proname !~ '_(in|out|recv|send|transfn|combinefn|serialfn|deserialfn|finalfn|support|to_jsonb|from_jsonb)$'
  AND p.proname NOT IN ('partial_combine')
UNION
SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE n.nspname = 'gsu' AND t.typtype IN ('b', 'c', 'd', 'e') AND t.typname !~ '^_'
ORDER BY 1;
SQL
admin "DROP DATABASE IF EXISTS $DB"
index=$(sed -n '/^## Index of SQL objects/,/^## /p' README.md | grep '^| ' | cut -d'|' -f2)
missing=0
while read -r obj; do
    [ -n "$obj" ] || continue
    if grep -q "gsu\.$obj\b" <<<"$index"; then
        passed=$((passed + 1))
    else
        echo "FAILED README.md index: no row for gsu.$obj"; failed=$((failed + 1)); missing=1
    fi
done < "$WORK/objects"
[ "$missing" = 0 ] && echo "ok README.md index names all $(grep -c . "$WORK/objects") SQL objects of the schema gsu"

# --- relative links and their anchors ------------------------------------------
python3 - README.md CHANGELOG.md docs/*.md > "$WORK/links" <<'PY'
import sys, os, re, unicodedata
def slug(h):
    o = ''
    for c in h.strip().lstrip('#').strip().lower():
        if c == ' ': o += '-'
        elif c in '-_': o += c
        elif unicodedata.category(c)[0] in 'LN': o += c
    return o
def anchors(f):
    out, inf = set(), False
    for l in open(f, encoding='utf-8'):
        if l.startswith('```'): inf = not inf
        elif not inf and l.startswith('#'): out.add(slug(l))
    return out
bad = 0; n = 0
for f in sys.argv[1:]:
    for no, l in enumerate(open(f, encoding='utf-8'), 1):
        for t in re.findall(r'\]\(([^)\s]+)\)', l):
            if re.match(r'[a-z]+:', t): continue
            n += 1
            path, _, a = t.partition('#')
            target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(target) or (a and target.endswith('.md') and a not in anchors(target)):
                print('FAILED %s:%d: broken link %s' % (f, no, t)); bad += 1
print('links %d %d' % (n, bad))
PY
grep '^FAILED' "$WORK/links"
read -r _ nlinks nbad < <(grep '^links ' "$WORK/links")
if [ "$nbad" -eq 0 ]; then echo "ok all $nlinks relative links and anchors resolve"; passed=$((passed + 1)); else failed=$((failed + nbad)); fi

# --- the licence and the PGXN metadata agree with the build -------------------
meta_ok=$(python3 - <<'PY'
import json, re
m = json.load(open('META.json'))
ext = re.search(r'^EXTVERSION = (\S+)', open('Makefile').read(), re.M).group(1)
ctl = re.search(r"^default_version = '([^']+)'", open('pg_gsu.control').read(), re.M).group(1)
bad = []
if m['version'] != ext or m['provides']['pg_gsu']['version'] != ext or ctl != ext:
    bad.append('versions: META.json %s / %s, Makefile %s, control %s' % (m['version'], m['provides']['pg_gsu']['version'], ext, ctl))
if m['license'] != 'postgresql' or not open('LICENSE').read().startswith('PostgreSQL License'):
    bad.append('META.json and LICENSE must both say the PostgreSQL License')
if 'License: PostgreSQL' not in open('debian/copyright').read():
    bad.append('debian/copyright must name the PostgreSQL License')
print('; '.join(bad) or 'ok')
PY
)
if [ "$meta_ok" = ok ]; then echo "ok META.json, LICENSE and debian/copyright agree with the build"; passed=$((passed + 1)); else echo "FAILED $meta_ok"; failed=$((failed + 1)); fi

echo "($((SECONDS - start)) s)"
echo "docs_examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
