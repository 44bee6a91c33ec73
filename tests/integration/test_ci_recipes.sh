#!/usr/bin/env bash
# test_ci_recipes.sh - the pipelines of docs/ci.md, run from the page's text:
# the shell of every `run:` step of the two GitHub workflows and of every
# `before_script:`/`script:` item of the GitLab jobs is extracted and run,
# in order, as the forge would (GitHub: `bash -e` per step, `if:` and
# `${{ }}` expressions of the recipe evaluated, GITHUB_OUTPUT; GitLab: the
# job's items in one `bash -eo pipefail` shell, its variables).  Only what
# talks to the forge is a stand-in: `gh` and `curl` serve and record
# comments, notes, runs and artifacts from a folder; `apt-get` checks that
# what it is asked to install resolves (`apt-get install -s`) and unpacks the
# .deb files into a private root whose programs are first in PATH.  So
# cgmap is built with the recipe's own commands, installed from its package,
# collects runtime data from a throwaway PostgreSQL, maps the base and head
# of a repository of fixture migrations, and the diff with the runtime file
# is posted, then edited on the next run; a --fail-on finding fails the job.
set -euo pipefail
src=${CGMAP_SOURCE_DIR:?}
. "$src/tests/lib/pgtest.sh"
command -v jq >/dev/null || { echo "skip: jq is not installed" >&2; exit 77; }
command -v git >/dev/null || { echo "skip: git is not installed" >&2; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cgmap-ci.XXXXXX")
chmod 755 "$work"
trap 'pgtest_stop; rm -rf "$work"' EXIT
doc=$src/docs/ci.md
forge=$work/forge        # the forge's state: comments, notes, artifacts
mkdir -p "$forge/artifacts" "$work/stubs" "$work/root"
echo '[]' >"$forge/comments.json"

# --- the recipes' text -------------------------------------------------------
# The ```yaml block of docs/ci.md whose first line is "# FILE".
yaml_block() {
	awk -v want="# $1" '
		/^```yaml$/ { inside = 1; first = 1; next }
		/^```$/ { if (inside && found) exit; inside = 0; next }
		inside && first { first = 0; if ($0 == want) found = 1 }
		inside && found { print }
	' "$doc"
}
# GitHub steps as lines "STEP", "NAME x", "ID x", "IF x", "USES x", "ENV k=v",
# "RUN line" (the run block with its indentation removed).
github_steps() {
	awk -v stepind=-1 '
		function ind(s) { match(s, /^ */); return RLENGTH }
		/^ *steps:$/ { steps = 1; next }
		!steps { next }
		block {
			if ($0 ~ /^ *$/ || ind($0) > keyind) {
				if (bind < 0) bind = ind($0)
				print "RUN " substr($0, bind + 1); next
			}
			block = 0
		}
		envmap {
			if (ind($0) > keyind && $0 ~ /^ *[A-Za-z_][A-Za-z0-9_]*: /) {
				line = $0; sub(/^ */, "", line); k = line; sub(/:.*/, "", k)
				v = line; sub(/^[^:]*: */, "", v); print "ENV " k "=" v; next
			}
			envmap = 0
		}
		/^ *- / && (stepind < 0 || ind($0) == stepind) {
			stepind = ind($0); keyind = stepind + 2; print "STEP"
			sub(/- /, "  ")
		}
		stepind >= 0 && ind($0) == keyind {
			line = $0; sub(/^ */, "", line)
			if (line ~ /^run: \|$/) { block = 1; bind = -1 }
			else if (line ~ /^run: /) { sub(/^run: /, "", line); print "RUN " line }
			else if (line ~ /^env:$/) envmap = 1
			else if (line ~ /^(name|id|if|uses): /) {
				k = line; sub(/:.*/, "", k); v = line; sub(/^[^:]*: */, "", v)
				print toupper(k) " " v
			}
		}
	'
}
# GitLab jobs as lines "JOB name", "VAR k=v", "ITEM" then "LINE x" lines
# (before_script items first, then script items).  A plain item is one line
# with its YAML comment removed; a "- |" item is its block.
gitlab_jobs() {
	local special='[{'"'"'"*&!|>%@`'
	awk -v special="$special" '
		function ind(s) { match(s, /^ */); return RLENGTH }
		function nocomment(s) { sub(/[ \t]+#.*$/, "", s); return s }
		/^[A-Za-z][A-Za-z0-9_-]*:$/ { job = $0; sub(/:$/, "", job); print "JOB " job; sect = ""; block = 0; next }
		/^[A-Za-z]/ { job = ""; next }
		job == "" { next }
		block {
			if ($0 ~ /^ *$/ || ind($0) > 4) {
				if (bind < 0) bind = ind($0)
				print "LINE " substr($0, bind + 1); next
			}
			block = 0
		}
		ind($0) == 2 { line = $0; sub(/^ */, "", line); sect = line; sub(/:.*/, "", sect); next }
		sect == "variables" && ind($0) == 4 {
			line = nocomment($0); sub(/^ */, "", line); k = line; sub(/:.*/, "", k)
			v = line; sub(/^[^:]*: */, "", v); print "VAR " k "=" v; next
		}
		(sect == "before_script" || sect == "script") && ind($0) == 4 && /^    - / {
			line = $0; sub(/^    - /, "", line)
			print "ITEM " sect
			if (line == "|") { block = 1; bind = -1 }
			else {
				line = nocomment(line)
				if (index(special, substr(line, 1, 1)) || line ~ /: /) print "BADITEM " line
				else print "LINE " line
			}
		}
	'
}

# --- the forge's stand-ins -------------------------------------------------
cat >"$work/stubs/gh" <<'EOF'
#!/usr/bin/env bash
# gh, as far as the recipe uses it: GitHub's runs, artifacts and comments
# served from $FORGE.
set -euo pipefail
echo "gh $*" >>"$FORGE/requests"
[ -n "${GH_TOKEN:-}" ] || { echo "gh: no GH_TOKEN" >&2; exit 4; }
case "$1 $2" in
"run list")
	[ -f "$FORGE/artifacts/cgmap-runtime/runtime.json" ] && echo 1001
	exit 0 ;;
"run download")
	[ "$3" = 1001 ] && [ "$4 $5" = "--name cgmap-runtime" ] || { echo "gh: no such run or artifact: $*" >&2; exit 1; }
	cp "$FORGE/artifacts/cgmap-runtime/"* . ;;
"api repos/"*|"api -X")
	shift
	method=GET body=
	if [ "$1" = -X ]; then method=$2; shift 2; fi
	path=$1; shift
	jqexpr=
	while [ $# -gt 0 ]; do
		case "$1" in
			--paginate) shift ;;
			--jq) jqexpr=$2; shift 2 ;;
			-F) body=${2#body=@}; shift 2 ;;
			*) echo "gh: unexpected argument $1" >&2; exit 1 ;;
		esac
	done
	case "$method $path" in
	"GET repos/$EXPECT_REPO/issues/$EXPECT_PR/comments")
		jq -r "$jqexpr" "$FORGE/comments.json" ;;
	"POST repos/$EXPECT_REPO/issues/$EXPECT_PR/comments")
		jq --rawfile b "$body" '. + [{id: (100 + length), body: $b}]' "$FORGE/comments.json" >"$FORGE/c.tmp"
		mv "$FORGE/c.tmp" "$FORGE/comments.json" ;;
	"PATCH repos/$EXPECT_REPO/issues/comments/"*)
		id=${path##*/}
		jq -e --argjson id "$id" 'any(.id == $id)' "$FORGE/comments.json" >/dev/null || { echo "gh: HTTP 404" >&2; exit 1; }
		jq --argjson id "$id" --rawfile b "$body" 'map(if .id == $id then .body = $b else . end)' \
			"$FORGE/comments.json" >"$FORGE/c.tmp"
		mv "$FORGE/c.tmp" "$FORGE/comments.json" ;;
	*) echo "gh: HTTP 404: $method $path" >&2; exit 1 ;;
	esac ;;
*) echo "gh: not served here: $*" >&2; exit 1 ;;
esac
EOF
cat >"$work/stubs/curl" <<'EOF'
#!/usr/bin/env bash
# curl, as far as the recipe uses it: GitLab's API served from $FORGE.
set -euo pipefail
method=GET data= out= url= token=
while [ $# -gt 0 ]; do
	case "$1" in
		-sf) shift ;;
		-X) method=$2; shift 2 ;;
		-H) case "$2" in "PRIVATE-TOKEN: "*) token=${2#PRIVATE-TOKEN: } ;; esac; shift 2 ;;
		--data) data=$2; shift 2 ;;
		-o) out=$2; shift 2 ;;
		-*) echo "curl: unexpected option $1" >&2; exit 2 ;;
		*) url=$1; shift ;;
	esac
done
echo "curl $method $url" >>"$FORGE/requests"
[ -n "$token" ] || exit 22
api="$CI_API_V4_URL/projects/$CI_PROJECT_ID"
notes="$api/merge_requests/$CI_MERGE_REQUEST_IID/notes"
case "$method $url" in
"GET $api/jobs/artifacts/$CI_DEFAULT_BRANCH/raw/runtime.json?job=cgmap-collect")
	[ -f "$FORGE/artifacts/cgmap-collect/runtime.json" ] || exit 22
	cp "$FORGE/artifacts/cgmap-collect/runtime.json" "${out:?}" ;;
"GET $notes?per_page=100")
	cat "$FORGE/comments.json" ;;
"POST $notes")
	jq --argjson d "$data" '. + [{id: (100 + length), body: $d.body}]' "$FORGE/comments.json" >"$FORGE/c.tmp"
	mv "$FORGE/c.tmp" "$FORGE/comments.json" ;;
"PUT $notes/"*)
	id=${url##*/}
	jq -e --argjson id "$id" 'any(.id == $id)' "$FORGE/comments.json" >/dev/null || exit 22
	jq --argjson id "$id" --argjson d "$data" 'map(if .id == $id then .body = $d.body else . end)' \
		"$FORGE/comments.json" >"$FORGE/c.tmp"
	mv "$FORGE/c.tmp" "$FORGE/comments.json" ;;
*) exit 22 ;;
esac
EOF
cat >"$work/stubs/apt-get" <<'EOF'
#!/usr/bin/env bash
# apt-get, for the recipes: `update` does nothing; `install` checks that
# the .deb files given resolve with this machine's packages (apt-get -s)
# and unpacks them into $PKGROOT, and that every other name is a package
# of the archive (when apt has package lists).
set -euo pipefail
case "${1:-}" in
	update) exit 0 ;;
	install) shift ;;
	*) echo "apt-get stand-in: not handled: $*" >&2; exit 100 ;;
esac
debs=() names=()
for a in "$@"; do
	case "$a" in
		-*) ;;
		*.deb) [ -f "$a" ] || { echo "E: unsupported file $a given on commandline" >&2; exit 100; }
		       debs+=("$a") ;;
		*) names+=("$a") ;;
	esac
done
if [ ${#debs[@]} -gt 0 ]; then
	/usr/bin/apt-get install -s --no-install-recommends "${debs[@]}" >"$PKGROOT.apt.log" 2>&1 ||
		{ cat "$PKGROOT.apt.log" >&2; exit 100; }
	for d in "${debs[@]}"; do dpkg-deb -x "$d" "$PKGROOT"; echo "${d##*/}" >>"$FORGE/installed"; done
fi
if ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1; then
	for n in "${names[@]}"; do
		apt-cache show "$n" >/dev/null 2>&1 || { echo "E: Unable to locate package $n" >&2; exit 100; }
	done
fi
EOF
chmod +x "$work/stubs/"*
export FORGE=$forge PKGROOT=$work/root

# --- a repository of migrations: base, then the pull request ----------------
# make_repo DIR CASE: fixtures/diff/CASE/base.sql then head.sql as
# db/migrations/0001_shop.sql, cgmap's sources at tools/cgmap.
make_repo() {
	local dir=$1 case=$2
	mkdir -p "$dir/db/migrations" "$dir/tools"
	ln -s "$src" "$dir/tools/cgmap"
	git -C "$dir" init -q -b main
	git -C "$dir" config user.email ci@example.invalid
	git -C "$dir" config user.name ci
	cp "$src/fixtures/diff/$case/base.sql" "$dir/db/migrations/0001_shop.sql"
	git -C "$dir" add db
	git -C "$dir" commit -qm base
	cp "$src/fixtures/diff/$case/head.sql" "$dir/db/migrations/0001_shop.sql"
	git -C "$dir" commit -qam head
}

# The values of the ${{ }} expressions the recipes use.
expr_value() {
	case "$1" in
		github.event.pull_request.base.sha) git -C "$repo" rev-parse HEAD~1 ;;
		github.event.pull_request.number) echo 7 ;;
		github.token) echo gh-test-token ;;
		github.repository) echo acme/shop ;;
		secrets.CGMAP_PROD_DSN) echo "dbname=shop" ;;
		steps.*.outputs.*)
			local s=${1#steps.} o=${1#*.outputs.}
			s=${s%%.*}
			sed -n "s/^$o=//p" "$run_dir/output.$s" 2>/dev/null | tail -n 1 ;;
		*) echo "UNKNOWN EXPRESSION $1" ;;
	esac
}
expand() {  # a value with ${{ expr }} replaced
	local v=$1 e
	while [[ $v =~ \$\{\{\ *([^}]*[^} ])\ *\}\} ]]; do
		e=$(expr_value "${BASH_REMATCH[1]}")
		[ "$e" != "UNKNOWN EXPRESSION ${BASH_REMATCH[1]}" ] ||
			pgtest_fail "docs/ci.md uses \${{ ${BASH_REMATCH[1]} }}, which this test does not know"
		v=${v/"${BASH_REMATCH[0]}"/$e}
	done
	printf '%s' "$v"
}

# run_github FILE REPO: the workflow's steps in REPO, as GitHub would run them;
# prints the name of the step that failed (none: empty) to $run_dir/failed.
run_github() {
	local file=$1 n=0 name id cond uses kind rest rc value
	repo=$2
	run_dir=$(mktemp -d "$work/run.XXXXXX")
	yaml_block "$file" | github_steps >"$run_dir/steps"
	[ -s "$run_dir/steps" ] || pgtest_fail "no steps found in $file of docs/ci.md"
	: >"$run_dir/failed"
	echo STEP >>"$run_dir/steps"
	local envs=() script=
	name= id= cond= uses=
	while IFS= read -r line; do
		kind=${line%% *}
		rest=${line#"$kind"}; rest=${rest# }
		case "$kind" in
		STEP)
			if [ $n -gt 0 ] && [ -s "$run_dir/failed" ]; then :
			elif [ $n -gt 0 ]; then
				if [ -n "$cond" ]; then
					[[ $cond =~ ^steps\.([a-z]+)\.outputs\.([a-z]+)\ (==|!=)\ \'(.*)\'$ ]] ||
						pgtest_fail "docs/ci.md: an if: this test cannot evaluate: $cond"
					value=$(expr_value "steps.${BASH_REMATCH[1]}.outputs.${BASH_REMATCH[2]}")
					if [ "${BASH_REMATCH[3]}" = "==" ]; then
						[ "$value" = "${BASH_REMATCH[4]}" ] || script=
					else
						[ "$value" != "${BASH_REMATCH[4]}" ] || script=
					fi
				fi
				if [ -n "$uses" ]; then
					case "$uses" in
						actions/checkout@*) ;;     # the repository is there
						actions/upload-artifact@*)  # what the collect workflow keeps
							mkdir -p "$forge/artifacts/cgmap-runtime"
							cp "$repo/runtime.json" "$forge/artifacts/cgmap-runtime/" ;;
						*) pgtest_fail "docs/ci.md uses $uses, which this test does not run" ;;
					esac
				elif [ -n "$script" ]; then
					printf '%s\n' "$script" >"$run_dir/step$n.sh"
					rc=0
					(cd "$repo" && env "${envs[@]}" GITHUB_OUTPUT="$run_dir/output.${id:-step$n}" \
						GITHUB_STEP_SUMMARY="$run_dir/summary" RUNNER_TEMP="$work/runner" \
						HOME="$work/home" PATH="$work/stubs:$PKGROOT/usr/bin:$PATH" \
						bash -e "$run_dir/step$n.sh" </dev/null) >"$run_dir/step$n.log" 2>&1 || rc=$?
					[ $rc = 0 ] || echo "$name" >"$run_dir/failed"
				fi
			fi
			n=$((n + 1)); envs=(); script=; name= id= cond= uses= ;;
		NAME) name=$rest ;;
		ID) id=$rest ;;
		IF) cond=$rest ;;
		USES) uses=$rest ;;
		ENV) envs+=("$(expand "$rest")") ;;
		RUN)
			[[ $rest != *'${{'* ]] || pgtest_fail "docs/ci.md: a run: step uses \${{ }} in its shell: $rest"
			script+=$rest$'\n' ;;
		esac
	done <"$run_dir/steps"
}

# run_gitlab JOB REPO [VAR=VALUE...]: the job's items in one shell.
run_gitlab() {
	local job=$1 vars=() line kind rest
	repo=$2
	shift 2
	run_dir=$(mktemp -d "$work/run.XXXXXX")
	yaml_block .gitlab-ci.yml | gitlab_jobs | awk -v j="$job" '
		/^JOB / { on = ($0 == "JOB " j); next } on' >"$run_dir/items"
	grep -q '^ITEM' "$run_dir/items" || pgtest_fail "no job $job in the GitLab recipe of docs/ci.md"
	if grep '^BADITEM' "$run_dir/items" >&2; then
		pgtest_fail "docs/ci.md: GitLab items YAML would not read as the shell shown"
	fi
	: >"$run_dir/script"
	while IFS= read -r line; do
		kind=${line%% *}
		rest=${line#"$kind"}; rest=${rest# }
		case "$kind" in
			VAR) vars+=("$rest") ;;
			LINE) printf '%s\n' "$rest" >>"$run_dir/script" ;;
		esac
	done <"$run_dir/items"
	local base rc=0
	base=$(git -C "$repo" rev-parse HEAD~1)
	(cd "$repo" && env "${vars[@]}" "$@" CI_PROJECT_DIR="$repo" CI_API_V4_URL=https://gitlab.example.invalid/api/v4 \
		CI_PROJECT_ID=12 CI_MERGE_REQUEST_IID=7 CI_DEFAULT_BRANCH=main CI_MERGE_REQUEST_DIFF_BASE_SHA="$base" \
		CGMAP_BOT_TOKEN=gl-test-token HOME="$work/home" PATH="$work/stubs:$PKGROOT/usr/bin:$PATH" \
		bash -eo pipefail "$run_dir/script" </dev/null) >"$run_dir/log" 2>&1 || rc=$?
	echo "$rc" >"$run_dir/rc"
}

show_run() { tail -n 30 "$run_dir"/*.log 2>/dev/null; }

# The production database the collect jobs read: the fixture's base schema
# and some traffic.
pgtest_start "track_functions = 'all'"
pgtest_psql -c "CREATE DATABASE shop" >/dev/null
pgtest_psql -d shop -f "$src/fixtures/diff/blast-radius/base.sql" >/dev/null
mkdir -p "$work/home" "$work/runner"

# === GitHub Actions ========================================================
export EXPECT_REPO=acme/shop EXPECT_PR=7
repo=$work/gh-collect
make_repo "$repo" blast-radius
rm -rf "$PKGROOT"; mkdir -p "$PKGROOT"
pgtest_psql -d shop -c "SELECT shop.checkout(10) FROM generate_series(1, 40)" >/dev/null
run_github .github/workflows/cgmap-collect.yml "$repo"
[ ! -s "$run_dir/failed" ] || { show_run >&2; pgtest_fail "GitHub collect workflow failed at: $(cat "$run_dir/failed")"; }
grep -q '^cgmap_.*\.deb$' "$forge/installed" ||
	pgtest_fail "the collect workflow did not install cgmap's package"
jq -e '.format == "cgmap-runtime"' "$forge/artifacts/cgmap-runtime/runtime.json" >/dev/null ||
	pgtest_fail "the collect workflow kept no runtime file"

# the pull request: blast-radius changes two functions, no --fail-on finding
repo=$work/gh-pr
make_repo "$repo" blast-radius
rm -rf "$PKGROOT"; mkdir -p "$PKGROOT"
run_github .github/workflows/cgmap.yml "$repo"
[ ! -s "$run_dir/failed" ] || { show_run >&2; pgtest_fail "GitHub workflow failed at: $(cat "$run_dir/failed")"; }
[ "$(sed -n 's/^rc=//p' "$run_dir/output.diff")" = 2 ] || pgtest_fail "the Diff step's rc is not 2"
[ -f "$repo/runtime.json" ] || pgtest_fail "the runtime file was not fetched"
md=$repo/cgmap-diff.md
head -n 1 "$md" | grep -qxF '<!-- cgmap-diff -->' || pgtest_fail "cgmap-diff.md does not start with the marker"
grep -q 'body-changed | 2' "$md" || pgtest_fail "the diff lacks the two changed bodies: $(cat "$md")"
# the runtime file reached the diff: entry points with production's calls
grep -q '| `shop.checkout(numeric)` | 40 |' "$md" ||
	pgtest_fail "the diff shows no observed calls of the collected runtime file: $(cat "$md")"
cmp -s "$md" "$run_dir/summary" || pgtest_fail "the step summary is not the diff"
[ "$(jq length "$forge/comments.json")" = 1 ] || pgtest_fail "not one comment posted"
jq -j '.[0].body' "$forge/comments.json" | cmp -s - "$md" || pgtest_fail "the comment is not cgmap-diff.md"
# the next push edits the comment instead of adding one
printf -- '-- again\n' >>"$repo/db/migrations/0001_shop.sql"
git -C "$repo" commit -qam again
# (a new job: a fresh checkout and temporary folder, the build kept for speed)
rm -rf "$repo/base-map" "$repo/head-map" "$repo/runtime.json" "$work/runner/base"
git -C "$repo" worktree prune
run_github .github/workflows/cgmap.yml "$repo"
[ ! -s "$run_dir/failed" ] || { show_run >&2; pgtest_fail "GitHub workflow (second push) failed at: $(cat "$run_dir/failed")"; }
[ "$(jq length "$forge/comments.json")" = 1 ] || pgtest_fail "the second push added a comment instead of editing it"
grep -q '^gh api -X PATCH repos/acme/shop/issues/comments/100 ' "$forge/requests" ||
	pgtest_fail "the comment was not edited: $(cat "$forge/requests")"

# a pull request with a --fail-on finding fails the job at the policy step
repo=$work/gh-fail
make_repo "$repo" missing-callee
rm -rf "$PKGROOT" "$work/runner/base"; mkdir -p "$PKGROOT"
echo '[]' >"$forge/comments.json"
run_github .github/workflows/cgmap.yml "$repo"
[ "$(cat "$run_dir/failed")" = "Apply the policy" ] ||
	{ show_run >&2; pgtest_fail "a missing callee did not fail the policy step: failed at \"$(cat "$run_dir/failed")\""; }
[ "$(sed -n 's/^rc=//p' "$run_dir/output.diff")" = 3 ] || pgtest_fail "the Diff step's rc is not 3"
grep -q 'missing-callee' "$(ls "$run_dir"/step*.log | tail -n 1)" 2>/dev/null ||
	grep -q '::error::cgmap diff found a --fail-on finding' "$run_dir"/step*.log ||
	pgtest_fail "the policy step did not say why"
[ "$(jq length "$forge/comments.json")" = 1 ] || pgtest_fail "the failing diff was not posted"

# === GitLab CI ==============================================================
repo=$work/gl
make_repo "$repo" blast-radius
rm -rf "$PKGROOT"; mkdir -p "$PKGROOT"
echo '[]' >"$forge/comments.json"
: >"$forge/installed"
run_gitlab cgmap-package "$repo"
[ "$(cat "$run_dir/rc")" = 0 ] || { cat "$run_dir/log" >&2; pgtest_fail "GitLab job cgmap-package failed"; }
ls "$repo"/cgmap-build/cgmap_*.deb >/dev/null || pgtest_fail "cgmap-package made no cgmap_*.deb in cgmap-build/"
pgtest_psql -d shop -c "SELECT shop.report()" >/dev/null
run_gitlab cgmap-collect "$repo" PROD_DSN="dbname=shop"
[ "$(cat "$run_dir/rc")" = 0 ] || { cat "$run_dir/log" >&2; pgtest_fail "GitLab job cgmap-collect failed"; }
mkdir -p "$forge/artifacts/cgmap-collect"
mv "$repo/runtime.json" "$forge/artifacts/cgmap-collect/"
rm -rf "$PKGROOT"; mkdir -p "$PKGROOT"
run_gitlab cgmap "$repo"
[ "$(cat "$run_dir/rc")" = 0 ] || { cat "$run_dir/log" >&2; pgtest_fail "GitLab job cgmap failed"; }
grep -q '^cgmap_.*\.deb$' "$forge/installed" || pgtest_fail "the GitLab job did not install cgmap's package"
md=$repo/cgmap-diff.md
grep -q '| `shop.checkout(numeric)` | 40 |' "$md" ||
	pgtest_fail "the GitLab diff shows no observed calls of the collected runtime file: $(cat "$md")"
[ "$(jq length "$forge/comments.json")" = 1 ] || pgtest_fail "GitLab: not one note posted"
jq -j '.[0].body' "$forge/comments.json" | cmp -s - "$md" || pgtest_fail "GitLab: the note is not cgmap-diff.md"
rm -rf "$repo/base-map" "$repo/head-map" "$repo/runtime.json"
git -C "$repo" worktree prune
run_gitlab cgmap "$repo"
[ "$(cat "$run_dir/rc")" = 0 ] || { cat "$run_dir/log" >&2; pgtest_fail "GitLab job cgmap (second run) failed"; }
[ "$(jq length "$forge/comments.json")" = 1 ] || pgtest_fail "GitLab: the second run added a note instead of editing it"
grep -q "^curl PUT .*/merge_requests/7/notes/100$" "$forge/requests" || pgtest_fail "GitLab: the note was not edited"

repo=$work/gl-fail
make_repo "$repo" missing-callee
cp -R "$work/gl/cgmap-build" "$repo/"
echo '[]' >"$forge/comments.json"
run_gitlab cgmap "$repo"
[ "$(cat "$run_dir/rc")" = 1 ] || { cat "$run_dir/log" >&2; pgtest_fail "GitLab: a missing callee did not fail the job"; }
[ "$(jq length "$forge/comments.json")" = 1 ] || pgtest_fail "GitLab: the failing diff was not posted"

echo "ok: the GitHub and GitLab recipes of docs/ci.md run as written"
