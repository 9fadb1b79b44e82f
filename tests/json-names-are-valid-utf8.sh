#!/bin/sh
# The JSON report and the trace stay valid UTF-8 (and valid JSON) whatever bytes a kernel name holds:
# surrogates, overlong forms, code points above U+10FFFF, F5-F7 lead bytes and truncated sequences are
# replaced by U+FFFD, while valid multi-byte characters pass through.
. "${top_srcdir:-..}/tests/lib.sh"
need_jq
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to check the JSON strictly"
# A surrogate (U+D800), overlong '/' (3 and 4 bytes), U+110000, an F5 and an F7 lead byte, a truncated
# sequence; then a valid name with 2-, 3- and 4-byte characters.
bad=$(printf 'k\355\240\200s\340\200\257o\360\200\200\257p\364\220\200\200q\365\200\200\200r\367\277\277\277t\342\202z')
good=$(printf 'caf\303\251 \342\202\254 \360\237\230\200')
KPROF_FORMAT=json KPROF_OUTPUT="$WORK/r.json" KPROF_TRACE="$WORK/t.json" run_kprof "$PROGS/named" "$bad" "$good" >/dev/null
for f in r.json t.json; do
    python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' "$WORK/$f" \
        || fail "$f is not valid UTF-8 JSON"
    pass "$f loads in Python (strict UTF-8)"
    jq . "$WORK/$f" >/dev/null || fail "jq rejects $f"
    pass "$f loads in jq"
done
expect_eq "$(jq -r '[.kernels[].name] | sort | .[0]' "$WORK/r.json" | od -An -c | tr -s ' ')" \
    "$(printf 'caf\303\251 \342\202\254 \360\237\230\200\n' | od -An -c | tr -s ' ')" "valid UTF-8 passes through"
expect_eq "$(jq -r '[.kernels[].name] | sort | .[1]' "$WORK/r.json")" \
    "k���s���o����p����q����r����t��z" "every invalid byte replaced by U+FFFD"
MERGE=$top_builddir/tools/kprof-merge
if [ -x "$MERGE" ]; then
    "$MERGE" -f json -o "$WORK/m.json" "$WORK/r.json" 2>"$WORK/err" || { cat "$WORK/err" >&2; fail "kprof-merge rejects the report"; }
    expect_eq "$(jq '.kernels | length' "$WORK/m.json")" 2 "kprof-merge reads the report"
fi
if [ -x "$MERGE" ]; then
    # A report without pid and host is labelled by its file name, which is just bytes: the JSON summary
    # stays valid UTF-8 instead of failing.
    weird=$WORK/$(printf 'rank\377.json')
    jq 'del(.pid, .host)' "$WORK/r.json" >"$weird"
    rc=0; "$MERGE" -f json -o "$WORK/m2.json" "$weird" 2>"$WORK/err" || rc=$?
    cat "$WORK/err"
    expect_eq "$rc" 0 "kprof-merge: a report whose file name is not UTF-8"
    python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' "$WORK/m2.json" \
        || fail "kprof-merge's summary is not valid UTF-8 JSON"
    expect_eq "$(jq -r '.process_labels[0]' "$WORK/m2.json")" "$WORK/rank�.json" "its label, the bad byte replaced"
fi
