#!/usr/bin/env bash
# Runs what the Dockerfile and compose.yaml run, without Docker (no engine on the build machines):
#   build stage  a clean copy of what it copies, `npm ci --ignore-scripts`, `tsc`
#   final stage  a clean copy of what it copies, `npm ci --omit=dev --ignore-scripts`, the build's dist/
#   run          the simulator and the default command (`tokenmeter serve`) with compose's environment and
#                the mounted config file, then the image's own HEALTHCHECK command, /readyz, one request
#                through, /metrics and the records file; then compose's `load` command as an unprivileged user
#                in the image's WORKDIR while the app folder stays root's (the image runs as `node` in /app).
# Slow (two npm installs from the registry), so a script rather than a test: `scripts/check-image-steps.sh`.
# test/observability/packaging.test.ts checks that the COPY lists below match the Dockerfile's.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/tokenmeter-image-steps.XXXXXX")"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Keep in step with the Dockerfile's COPY lines (packaging.test.ts compares them).
BUILD_COPIES=(package.json package-lock.json tsconfig.json src plugins loadgen)
FINAL_COPIES=(package.json package-lock.json bin loadgen/data)

copy_into() {
  local dest="$1"
  shift
  mkdir -p "$dest"
  for path in "$@"; do
    mkdir -p "$dest/$(dirname "$path")"
    cp -R "$repo/$path" "$dest/$path"
  done
}

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

step() { printf '\n== %s\n' "$*"; }

step "build stage: clean copy (${BUILD_COPIES[*]}), npm ci --ignore-scripts, tsc"
copy_into "$work/build" "${BUILD_COPIES[@]}"
(cd "$work/build" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && npx tsc -p tsconfig.json)
echo "compiled: $(find "$work/build/dist" -name '*.js' | wc -l) files"

step "final stage: clean copy (${FINAL_COPIES[*]}), npm ci --omit=dev --ignore-scripts, dist/ from the build"
copy_into "$work/app" "${FINAL_COPIES[@]}"
(cd "$work/app" && NODE_ENV=production npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
cp -R "$work/build/dist" "$work/app/dist"
echo "node_modules: $(du -sh "$work/app/node_modules" | cut -f1), packages: $(ls "$work/app/node_modules" | wc -l)"
if [ -e "$work/app/node_modules/typescript" ]; then echo "FAIL: a dev dependency reached the final stage"; exit 1; fi

step "run: the simulator (compose's sim command) and the default command, configured like compose's gateway"
sim_port="$(free_port)"
gateway_port="$(free_port)"
mkdir -p "$work/data"
sed -e "s#http://sim:8000#http://127.0.0.1:${sim_port}#" -e "s#/data/requests.jsonl#${work}/data/requests.jsonl#" \
  "$repo/deploy/gateway.config.json" > "$work/config.json"
(cd "$work/app" && exec node "$work/app/bin/tokenmeter.js" sim --host 127.0.0.1 --port "$sim_port") > "$work/sim.log" 2>&1 &
pids+=("$!")
(cd "$work/app" && NODE_ENV=production TOKENMETER_CONFIG="$work/config.json" TOKENMETER_HOST=0.0.0.0 \
  TOKENMETER_PORT="$gateway_port" TOKENMETER_LOG_LEVEL=info exec node "$work/app/bin/tokenmeter.js" serve) \
  > "$work/gateway.log" 2>&1 &
pids+=("$!")

step "the image's HEALTHCHECK command, as written in the Dockerfile"
probe="$(node -e "
  const text = require('fs').readFileSync(process.argv[1], 'utf8').replace(/\\\\\n/g, ' ');
  const line = text.split('\n').find((l) => l.startsWith('HEALTHCHECK'));
  const argv = JSON.parse(line.slice(line.indexOf('CMD') + 3).trim());
  if (argv[0] !== 'node' || argv[1] !== '-e') throw new Error('unexpected HEALTHCHECK: ' + line);
  console.log(argv[2]);
" "$repo/Dockerfile")"
echo "probe: node -e \"$probe\""
healthy=""
for _ in $(seq 1 50); do
  if (cd "$work/app" && TOKENMETER_PORT="$gateway_port" node -e "$probe"); then healthy=yes; break; fi
  sleep 0.2
done
if [ -z "$healthy" ]; then echo "FAIL: health check never passed"; cat "$work/gateway.log"; exit 1; fi
echo "healthy: exit 0"

step "readiness, one request through the gateway, metrics, records"
GATEWAY="http://127.0.0.1:${gateway_port}" node -e "
  const base = process.env.GATEWAY;
  const main = async () => {
    const ready = await fetch(base + '/readyz');
    console.log('/readyz', ready.status, await ready.text());
    if (!ready.ok) throw new Error('not ready');
    const res = await fetch(base + '/v1/chat/completions', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tokenmeter/sim-7b', stream: true, max_tokens: 8,
        messages: [{ role: 'user', content: 'hello' }] }) });
    const body = await res.text();
    console.log('POST /v1/chat/completions', res.status, body.split('\n\n').filter(Boolean).length, 'SSE events');
    if (res.status !== 200) throw new Error(body);
    const metrics = await (await fetch(base + '/metrics')).text();
    const line = metrics.split('\n').find((l) => l.startsWith('tokenmeter_requests_total{'));
    console.log('/metrics:', line);
    if (!line) throw new Error('no request counted');
  };
  main().catch((e) => { console.error('FAIL:', e.message); process.exit(1); });
"
for _ in $(seq 1 25); do [ -s "$work/data/requests.jsonl" ] && break; sleep 0.2; done
echo "records file: $(wc -l < "$work/data/requests.jsonl") line(s), outcome $(node -e "
  const l = require('fs').readFileSync(process.argv[1], 'utf8').trim().split('\n').pop();
  console.log(JSON.parse(l).outcome)" "$work/data/requests.jsonl")"
echo "gateway log: $(head -c 300 "$work/gateway.log")"

step "compose's load command as an unprivileged user: in the image's WORKDIR (a volume it owns), /app root-owned"
# The image runs as `node` with /app owned by root; bench writes its records into the working directory. Here the
# same: the app folder stays root's, the WORKDIR stand-in belongs to the user that runs bench.
workdir="$(sed -n 's/^WORKDIR //p' "$repo/Dockerfile" | tail -n 1)"
bench_dir="$work/volume${workdir}"
mkdir -p "$bench_dir"
chmod 755 "$work"
as_user=()
if [ "$(id -u)" = 0 ]; then
  chown nobody "$bench_dir"
  as_user=(runuser -u nobody --)
else
  echo "not root: bench runs as $(id -un), who cannot be shown the root-owned /app case"
fi
mapfile -t load_args < <(GATEWAY="http://127.0.0.1:${gateway_port}" node -e "
  const text = require('fs').readFileSync(process.argv[1], 'utf8');
  const load = /^  load:\n((?:    .*\n|\s*\n)*)/m.exec(text)[1];
  const items = /^    command:\n((?:      - .*\n)+)/m.exec(load)[1].split('\n').filter(Boolean)
    .map((l) => l.replace(/^\s+- /, '').replace(/^\"(.*)\"$/, '\$1'));
  const set = (flag, value) => { items[items.indexOf(flag) + 1] = value; };
  set('--base-url', process.env.GATEWAY);
  set('--num-prompts', '6');
  for (const item of [...items, '--disable-tqdm']) console.log(item);
" "$repo/compose.yaml")
echo "tokenmeter ${load_args[*]} (as ${as_user[2]:-$(id -un)}, in ${workdir})"
(cd "$bench_dir" && "${as_user[@]}" node "$work/app/bin/tokenmeter.js" "${load_args[@]}") > "$work/bench.log" 2>&1 \
  || { echo "FAIL: bench exited $?"; cat "$work/bench.log"; exit 1; }
records="$(find "$bench_dir" -name '*.records.jsonl')"
echo "records: $(basename "$records"), $(wc -l < "$records") line(s), owned by $(stat -c %U "$records")"
[ "$(wc -l < "$records")" = 6 ] || { echo "FAIL: expected 6 records"; exit 1; }
if [ "${#as_user[@]}" -gt 0 ]; then
  set +e
  (cd "$work/app" && "${as_user[@]}" node "$work/app/bin/tokenmeter.js" "${load_args[@]}") > "$work/bench-app.log" 2>&1
  status=$?
  set -e
  echo "the same in root-owned /app: exit ${status}: $(cat "$work/bench-app.log")"
  [ "$status" = 1 ] && grep -q 'cannot write' "$work/bench-app.log" || { echo "FAIL: expected one line, exit 1"; exit 1; }
fi

step "OK: the image's steps build, install without dev dependencies, start, pass their health check, and bench writes"
